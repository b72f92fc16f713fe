"""The list follows Claude Code's files as they change, row by row: a transcript that grows
(a running session appends on every tool call) redraws its own row only; one that is deleted
leaves the list. Real files, the real watcher."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.pilot import Pilot
from textual.widget import Widget

from cctui.config import Settings, load_settings
from cctui.core import SessionManager
from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.markdown import MarkdownView
from cctui.tui.widgets.blocks import ToolCall
from tests.snapshot_apps.history import write_transcript
from tests.tui.conftest import until

WAIT_S = 10.0
"""How long a condition may take (the real watcher)."""

IDS = [f"0a1b2c3d-0000-4000-8000-00000000{n:04d}" for n in range(3)]


def _settings(tmp_path: Path) -> Settings:
    (tmp_path / "proj").mkdir()
    return load_settings(
        env={"HOME": str(tmp_path / "home")},
        config_path=tmp_path / "none.toml",
        overrides={"default_cwd": tmp_path / "proj"},
    )


@asynccontextmanager
async def _running(settings: Settings) -> AsyncIterator[tuple[CctuiApp, Pilot[None]]]:
    """The app over a real manager, its list read from the history on disk."""
    manager = SessionManager(settings)
    await manager.start()
    app = CctuiApp(settings, Services.build(settings, manager))
    try:
        async with app.run_test() as pilot:
            await app.history_loaded.wait()
            yield app, pilot
    finally:
        await manager.shutdown()


async def test_a_growing_transcript_redraws_its_row_only_and_a_deleted_one_leaves(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path)
    cwd, start = str(tmp_path / "proj"), datetime.now(UTC) - timedelta(hours=3)
    paths = [
        write_transcript(
            settings.claude_config_dir,
            sid,
            cwd,
            start + timedelta(minutes=n),
            [(f"task {n}", [{"type": "text", "text": "Done."}])],
        )
        for n, sid in enumerate(IDS)
    ]
    async with _running(settings) as (app, pilot):
        table = app.main.sessions
        await until(pilot, lambda: all(table.row(sid) is not None for sid in IDS), WAIT_S)
        before = {sid: table.row(sid) for sid in IDS}

        write_transcript(
            settings.claude_config_dir,
            IDS[0],
            cwd,
            start,
            [("task 0", [{"type": "text", "text": "Done."}]), ("and more", [])],
        )
        row = before[IDS[0]]
        assert row is not None
        await until(pilot, lambda: table.row(IDS[0]) != row, WAIT_S)
        grown = table.row(IDS[0])
        assert grown is not None and grown.last_activity is not None
        assert row.last_activity is not None and grown.last_activity > row.last_activity
        # The others were not read again: the very same rows.
        assert table.row(IDS[1]) is before[IDS[1]]
        assert table.row(IDS[2]) is before[IDS[2]]

        paths[1].unlink()
        await until(pilot, lambda: table.row(IDS[1]) is None, WAIT_S)
        await app.settle()
        assert IDS[1] not in table.shown
        assert table.row(IDS[0]) is grown


async def test_a_past_session_is_previewed_from_its_transcript_and_left_claude_codes(
    tmp_path: Path,
) -> None:
    """The cursor's past session: the pane draws its transcript, and cctui does not take it
    on (it stays Claude Code's in the list; its file deleted, it leaves)."""
    settings = _settings(tmp_path)
    sid = IDS[0]
    path = write_transcript(
        settings.claude_config_dir,
        sid,
        str(tmp_path / "proj"),
        datetime.now(UTC) - timedelta(hours=1),
        [("what is in the box", [{"type": "text", "text": "A cat, alive."}])],
    )
    async with _running(settings) as (app, pilot):
        pane = app.main.pane
        await until(pilot, lambda: pane.session_id == sid, WAIT_S)
        await until(
            pilot,
            lambda: "A cat, alive." in [view.text for view in pane.query(MarkdownView)],
            WAIT_S,
        )
        assert sid not in {info.session_id for info in app.manager.list()}
        row = app.main.sessions.row(sid)
        assert row is not None and not row.ours

        path.unlink()
        await until(pilot, lambda: app.main.sessions.row(sid) is None, WAIT_S)
        assert sid not in {info.session_id for info in app.manager.list()}


async def test_a_session_running_elsewhere_is_followed_in_the_pane(tmp_path: Path) -> None:
    """Claude Code running in someone's terminal: the pane draws its transcript, its call
    still running (no result yet), then what it writes next: the result and the reply."""
    settings = _settings(tmp_path)
    sid, cwd = IDS[0], str(tmp_path / "proj")
    start = datetime.now(UTC) - timedelta(minutes=5)
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "make"}}
    running = [("build it", [{"type": "text", "text": "Building."}, call])]
    write_transcript(settings.claude_config_dir, sid, cwd, start, running)
    async with _running(settings) as (app, pilot):
        pane = app.main.pane
        await until(pilot, lambda: pane.session_id == sid, WAIT_S)
        await until(pilot, lambda: _calls(pane) == ["▸ ◌ Bash  make"], WAIT_S)

        result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "built"}
        done = [*running[0][1], result, {"type": "text", "text": "It builds."}]
        write_transcript(settings.claude_config_dir, sid, cwd, start, [("build it", done)])
        await until(pilot, lambda: _calls(pane) == ["▸ ✓ Bash  make"], WAIT_S)
        await until(
            pilot, lambda: "It builds." in [v.text for v in pane.query(MarkdownView)], WAIT_S
        )
        assert sid not in {info.session_id for info in app.manager.list()}  # still not ours


def _calls(pane: Widget) -> list[str]:
    return [str(call.render()) for call in pane.query(ToolCall)]
