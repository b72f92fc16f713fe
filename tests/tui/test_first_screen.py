"""The list's first screen before the first frame, the thousands of rows below it after.

``SessionSource.load_now`` makes the rows of the list's first screen only (a catalog entry
and a row for each of 5,000 past sessions cost the first frame ~0.1 s of CPU); the others
are made once it is on screen. The first screen must be the one the whole list has (groups
placed by every session in them, worktrees folded, archived sessions left out), the count
must say every session, and once the rest is made the list is the one a full read gives.
Real files, a real index, the real app.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cctui.config import Settings, load_settings
from cctui.core import SessionManager
from cctui.history import HistoryIndex
from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.messages import FirstFrame
from cctui.tui.rows import RowPlace, SessionRow
from cctui.tui.screens.main import list_title
from cctui.tui.sources import SessionSource
from cctui.tui.widgets.session_list import FIRST_ROWS, first_of
from tests.snapshot_apps.history import write_history, write_transcript
from tests.tui.conftest import until

PAST = 2 * FIRST_ROWS + 40
"""Past sessions with a transcript: more than a list draws before its first frame."""
PROMPT_ONLY = 8
"""Sessions history.jsonl alone names (no transcript): their directory is the prompt's."""
ARCHIVED = 5


def _sid(n: int) -> str:
    return f"5e5e5e5e-0000-4000-8000-{n:012d}"


def _home(tmp_path: Path, *, processes: bool = False) -> tuple[Settings, list[str]]:
    """A Claude Code home over six projects (one with worktrees of Claude Code's, folded
    under it), sessions started in an order that interleaves the projects; the ids of the
    archived ones. ``processes``: two running ``claude`` processes too (this test's and its
    parent's pids, alive), one of a session with a transcript, one of a session only it
    names."""
    (tmp_path / "proj").mkdir()
    settings = load_settings(
        env={"HOME": str(tmp_path / "home")},
        config_path=tmp_path / "none.toml",
        overrides={"default_cwd": tmp_path / "proj"},
    )
    claude = settings.claude_config_dir
    repos = [str(tmp_path / f"repo{k}") for k in range(5)]
    dirs = [*repos, *(f"{repos[0]}/.claude/worktrees/wt{k}" for k in range(3)), "/"]
    now = datetime.now(UTC).replace(microsecond=0)
    prompts: list[tuple[str, datetime, str, str | None]] = []
    for i in range(PAST):
        cwd = dirs[(i * 5) % len(dirs)]
        start = now - timedelta(minutes=10 + (i * 37) % 1009)
        turn = (f"task {i}", [{"type": "text", "text": "Done."}])
        write_transcript(claude, _sid(i), cwd, start, [turn])
        if i % 3 == 0:
            prompts.append((f"task {i}", start, cwd, _sid(i)))
    for j in range(PROMPT_ONLY):
        prompts.append((f"asked {j}", now - timedelta(minutes=5 + 60 * j), repos[j % 5],
                        _sid(PAST + j)))  # fmt: skip
    write_history(claude, prompts)
    if processes:
        (claude / "sessions").mkdir()
        for pid, sid, cwd, at in (
            (os.getpid(), _sid(3), dirs[3], now - timedelta(hours=30)),
            (os.getppid(), _sid(PAST + PROMPT_ONLY), repos[2], now - timedelta(minutes=2)),
        ):
            at_ms = int(at.timestamp() * 1000)
            body = {
                "pid": pid,
                "sessionId": sid,
                "cwd": cwd,
                "status": "busy",
                "startedAt": at_ms,
                "updatedAt": at_ms + 1000,
                "kind": "interactive",
            }
            (claude / "sessions" / f"{pid}.json").write_text(json.dumps(body))
    return settings, [_sid(i) for i in (0, 1, 7, 100, PAST + 1)][:ARCHIVED]


def _build_index(settings: Settings) -> None:
    index = HistoryIndex.from_settings(settings)
    try:
        index.refresh()
    finally:
        index.close()


@asynccontextmanager
async def _manager(settings: Settings) -> AsyncIterator[SessionManager]:
    manager = SessionManager(settings)
    await manager.start(owner=False)
    try:
        yield manager
    finally:
        await manager.shutdown()


def _source(settings: Settings, manager: SessionManager) -> SessionSource:
    return SessionSource(settings, manager, HistoryIndex.from_settings(settings))


async def test_the_first_screens_rows_are_the_whole_lists_top_and_the_rest_come_after(
    tmp_path: Path,
) -> None:
    settings, archived = _home(tmp_path, processes=True)
    _build_index(settings)
    async with _manager(settings) as manager:
        whole = _source(settings, manager)
        for sid in archived:
            whole.archive.set(sid, True)
        whole.index.load()
        whole.reload_history()
        every = {r.session_id: r for r in whole.rows()}
        assert len(every) == PAST + PROMPT_ONLY + 1  # (and the process-only session)
        assert every[_sid(3)].live and every[_sid(PAST + PROMPT_ONLY)].live
        listed = [r for r in every.values() if not r.archived]
        top = first_of(listed, FIRST_ROWS)
        first = _source(settings, manager)
        first.load_now()
        # The index places every session as its summary has it, without composing them;
        # the places are the rows' own (a worktree under its checkout, "/" and the
        # prompt-only sessions included).
        places = first.index.places()
        assert places == whole.index.places()
        for sid, row in every.items():
            place = RowPlace.past(sid, *places[sid])
            assert (place.group, place.created_at, place.last_activity) == (
                row.group, row.created_at, row.last_activity)  # fmt: skip
        made = {r.session_id: r for r in first.rows()}
        assert set(made) == set(top)  # the first screen, and nothing below it
        assert len(made) + first.unmade == len(every)
        assert all(made[sid] == every[sid] for sid in made)
        assert first.make_the_rest()
        assert first.unmade == 0 and not first.make_the_rest()
        assert {r.session_id: r for r in first.rows()} == every
        whole.index.close()
        first.index.close()


async def test_a_row_asked_for_before_the_rest_is_made_is_made_then(tmp_path: Path) -> None:
    """The rows of sessions below the first screen are made when asked for (a change of
    the history, an archive) before ``make_the_rest``: never taken for gone."""
    settings, _ = _home(tmp_path)
    _build_index(settings)
    async with _manager(settings) as manager:
        source = _source(settings, manager)
        source.load_now()
        below = [sid for sid in (_sid(i) for i in range(PAST)) if sid not in
                 {r.session_id for r in source.rows()}][:3]  # fmt: skip
        assert len(below) == 3
        unmade = source.unmade
        rows, gone = source.rows_of([*below, "not-a-session"])
        assert [r.session_id for r in rows] == below and gone == ["not-a-session"]
        assert source.unmade == unmade - 3
        source.index.close()


class _Watched(CctuiApp):
    """The app, noting its list as it is at the first frame."""

    at_first_frame: tuple[list[str], int, str] | None = None

    def on_first_frame(self, _: FirstFrame) -> None:
        sessions = self.main.sessions
        title = str(self.main.query_one("#left").border_title)
        self.at_first_frame = (sessions.shown, sessions.total, title)


async def test_the_app_shows_the_top_first_then_every_session_in_the_whole_lists_order(
    tmp_path: Path,
) -> None:
    settings, _ = _home(tmp_path)
    _build_index(settings)
    manager = SessionManager(settings)
    await manager.start()
    app = _Watched(settings, Services.build(settings, manager))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.at_first_frame is not None, 10)
            await until(pilot, lambda: not app.main.sessions.filling, 10)
            await app.history_loaded.wait()
            await pilot.pause()
            assert app.at_first_frame is not None
            shown, total, title = app.at_first_frame
            count = PAST + PROMPT_ONLY
            assert len(shown) == FIRST_ROWS and total == count
            assert title == f"Sessions · {FIRST_ROWS} of {count}"
            sessions = app.main.sessions
            rows: list[SessionRow] = list(sessions.all_rows())
            assert sessions.total == len(rows) == count
            assert sessions.shown == first_of(rows, count)  # the whole list's order
            assert sessions.shown[:FIRST_ROWS] == shown  # the first screen did not move
            assert app.main.query_one("#left").border_title == f"Sessions · {count}"
            await pilot.press("G")
            assert sessions.selected_id == sessions.shown[-1]
            await pilot.press("g", "j", "j")
            assert sessions.selected_id == sessions.shown[2]
    finally:
        await manager.shutdown()


def test_the_lists_title_writes_thousands_as_the_status_bar_does() -> None:
    """A home of thousands read "Sessions · 3000" beside the status bar's "3,297"."""
    assert list_title(3000, 3000) == "Sessions · 3,000"
    assert list_title(12, 20_417) == "Sessions · 12 of 20,417"
    assert list_title(7, 7) == "Sessions · 7"
