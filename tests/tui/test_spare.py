"""The new-session form starts its ``claude`` process once it has been open a moment, or
as soon as its prompt is written in (``core/spare.py``): the session the form starts runs on
that process, nothing lists it before its prompt, and a cancelled form leaves no process
behind (one closed at once starts none). The real CLI against the fake API, the real
history watcher."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.widgets import Input

from cctui.config import load_settings
from cctui.core import SessionManager
from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.screens.new_session import SPARE_AFTER_S, NewSessionScreen
from tests.fakes.procs import alive
from tests.tui.conftest import until

WAIT_S = 30.0
"""How long a condition may take (a real CLI starting on a loaded machine)."""

pytestmark = pytest.mark.e2e


@pytest.fixture
async def app(
    claude_env: dict[str, str], tmp_path: Path, claude_bin: Path, project_dir: Path
) -> AsyncIterator[CctuiApp]:
    """The app over a real manager driving the real CLI; every process ended afterwards."""
    settings = load_settings(env=claude_env, config_path=tmp_path / "none.toml")
    settings = settings.model_copy(
        update={"claude_code_path": claude_bin, "default_cwd": project_dir}
    )
    app = CctuiApp(settings, Services.build(settings, SessionManager(settings)))
    yield app
    await app.manager.shutdown()


def _process_files(claude_home: Path) -> list[Path]:
    return list((claude_home / ".claude" / "sessions").glob("*.json"))


def _process_file(claude_home: Path, session_id: str) -> dict[str, object] | None:
    """The CLI's ``sessions/<pid>.json`` for ``session_id`` (how any list finds it)."""
    for path in _process_files(claude_home):
        data: dict[str, object] = json.loads(path.read_text())
        if data.get("sessionId") == session_id:
            return data
    return None


async def test_the_session_the_form_starts_runs_on_the_process_it_opened_and_is_listed_then(
    app: CctuiApp, claude_home: Path
) -> None:
    manager = app.manager
    assert isinstance(manager, SessionManager)
    async with app.run_test(size=(160, 45)) as pilot:
        await app.history_loaded.wait()
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, NewSessionScreen)
        await until(pilot, lambda: bool(manager.spare_ids), WAIT_S)
        (spare,) = manager.spare_ids
        # The CLI announces itself in sessions/<pid>.json like any running claude; the
        # index reads it, the list leaves it out.
        await until(pilot, lambda: _process_file(claude_home, spare) is not None, WAIT_S)
        index = app.source.index
        await until(pilot, lambda: spare in index.processes.by_session, WAIT_S)
        await pilot.pause(0.3)
        assert app.main.sessions.row(spare) is None
        assert manager.list() == []
        pid = _process_file(claude_home, spare)["pid"]  # type: ignore[index]

        form.query_one("#prompt", Input).value = "hello from the form"
        await pilot.press("enter")
        await until(pilot, lambda: bool(manager.list()), WAIT_S)
        (info,) = manager.list()
        assert info.session_id == spare and info.pid == pid
        assert manager.spare_ids == frozenset()
        outcome = await manager.wait(spare, 30)
        assert outcome.reason == "turn_ended"
        assert manager.get(spare).last_result == "OK: hello from the form"
        await until(pilot, lambda: app.main.sessions.row(spare) is not None, WAIT_S)
        row = app.main.sessions.row(spare)
        assert row is not None and row.title == "hello from the form"


async def test_a_cancelled_form_ends_its_process_and_another_choice_starts_afresh(
    app: CctuiApp, claude_home: Path
) -> None:
    manager = app.manager
    assert isinstance(manager, SessionManager)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("n")
        await pilot.press("escape")  # at once: no process started
        await pilot.pause(SPARE_AFTER_S + 0.2)
        assert manager.spare_ids == frozenset() and not _process_files(claude_home)
        await pilot.press("n")
        await until(pilot, lambda: bool(manager.spare_ids), WAIT_S)
        (first,) = manager.spare_ids
        await until(pilot, lambda: _process_file(claude_home, first) is not None, WAIT_S)
        pid = _process_file(claude_home, first)["pid"]  # type: ignore[index]
        assert isinstance(pid, int) and alive(pid)
        await pilot.press("escape")
        # Hidden from every list until its process is gone, then forgotten.
        await until(pilot, lambda: not alive(pid) and not manager.spare_ids, WAIT_S)
        assert manager.list() == []

        # The form again, then a model it was not opened with: a process of its own.
        await pilot.press("n")
        await until(pilot, lambda: bool(manager.spare_ids), WAIT_S)
        (second,) = manager.spare_ids
        await until(pilot, lambda: _process_file(claude_home, second) is not None, WAIT_S)
        warm_pid = _process_file(claude_home, second)["pid"]  # type: ignore[index]
        form = app.screen
        assert isinstance(form, NewSessionScreen)
        form.query_one("#model").value = "haiku"  # type: ignore[attr-defined]
        form.query_one("#prompt", Input).value = "on haiku"
        form.query_one("#prompt", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: bool(manager.list()), WAIT_S)
        (info,) = manager.list()
        assert info.session_id != second and info.config.model == "haiku"
        assert isinstance(warm_pid, int)
        await until(pilot, lambda: not alive(warm_pid), WAIT_S)
        assert (await manager.wait(info.session_id, 30)).reason == "turn_ended"
        assert info.pid != warm_pid


async def test_a_prompt_written_at_once_starts_the_process_before_the_timer_would(
    app: CctuiApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cctui.tui.screens.new_session as form_module

    monkeypatch.setattr(form_module, "SPARE_AFTER_S", 600.0)  # only the prompt can start it
    manager = app.manager
    assert isinstance(manager, SessionManager)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert manager.spare_ids == frozenset()
        await pilot.press(*"paste")
        await until(pilot, lambda: bool(manager.spare_ids), WAIT_S)
        (spare,) = manager.spare_ids
        await pilot.press("enter")
        await until(pilot, lambda: bool(manager.list()), WAIT_S)
        (info,) = manager.list()
        assert info.session_id == spare
        assert (await manager.wait(spare, 30)).reason == "turn_ended"
        assert manager.get(spare).last_result == "OK: paste"
