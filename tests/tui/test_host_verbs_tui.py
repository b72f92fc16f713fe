"""A host's session's keys reach its own core: shift+tab on a devbox row sends one
``cctui_window_call`` over devbox's link (the host's session id, the window key left for the
bridge there to vouch), and the notice says what the host's core answered. The host is the
snapshot demo's scripted devbox."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cctui.core import SessionConfig, SessionInfo, SessionManager, SessionStatus
from cctui.core.steering import SettingChange
from cctui.owner import CALL_TOOL
from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.remote import key_of
from cctui.tui.screens.pending_input import PendingInputScreen
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings
from tests.snapshot_apps.hosts import DEPS, demo_hosts
from tests.tui.conftest import raised, until


async def test_shift_tab_on_a_hosts_session_runs_on_its_core(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    hosts, links = demo_hosts(now)
    calls: list[dict[str, Any]] = []

    async def call(tool: str, **arguments: Any) -> dict[str, Any]:
        calls.append({"tool": tool, **arguments})
        info = SessionInfo(
            session_id=DEPS,
            status=SessionStatus.IDLE,
            config=SessionConfig(cwd=tmp_path),
            created_at=now,
            last_activity=now,
        )
        change = SettingChange(
            session=info,
            setting="permission_mode",
            value="acceptEdits",
            previous="default",
            applies="now",
            note="Permission mode is now acceptEdits (on devbox).",
        )
        return {"result": change.model_dump(mode="json")}

    links["devbox"].call = call  # type: ignore[method-assign]
    settings = make_settings(tmp_path, default_cwd=tmp_path)
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    app = CctuiApp(settings, Services.build(settings, manager), hosts=hosts)
    key = key_of("devbox", DEPS)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await until(pilot, lambda: app.main.sessions.row(key) is not None, 10)
        await until(pilot, lambda: isinstance(app.screen, PendingInputScreen), 10)
        await pilot.press("escape")  # devbox's permission popped: later
        await until(pilot, app.main_screen_on_top, 5)
        app.main.open_session(key)
        app.main.sessions.focus()
        await until(pilot, lambda: app.main.current_session_id == key, 5)
        await pilot.press("shift+tab")
        await until(pilot, lambda: bool(calls), 5)
        [sent] = calls
        assert (sent["tool"], sent["method"], sent["windowKey"]) == (
            CALL_TOOL,
            "cycle_permission_mode",
            "",
        )
        assert sent["arguments"] == {"session_id": DEPS}  # its own id there, not the key
        await until(
            pilot,
            lambda: any("acceptEdits (on devbox)" in note.message for note in raised(app)),
            5,
        )


async def test_o_on_a_hosts_session_asks_for_its_claude_only_then(tmp_path: Path) -> None:
    """The ``claude`` a host's cctui drives is asked for (``claude_health``) when ``o`` needs
    it, not when the link comes up, and kept for the next take-over."""
    now = datetime.now(UTC)
    hosts, links = demo_hosts(now)
    devbox = links["devbox"]
    answer = devbox.health
    asked: list[str] = []

    async def health() -> dict[str, Any]:
        asked.append("claude_health")
        return await answer()

    devbox.health = health  # type: ignore[method-assign]
    ran: list[list[str]] = []

    async def runner(_app: object, argv: Sequence[str], _cwd: Path) -> int:
        ran.append(list(argv))
        return 0

    settings = make_settings(tmp_path, default_cwd=tmp_path)
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    app = CctuiApp(settings, Services.build(settings, manager), hosts=hosts)
    app.takeover.runner = runner
    key = key_of("devbox", DEPS)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await until(pilot, lambda: app.main.sessions.row(key) is not None, 10)
        await until(pilot, lambda: isinstance(app.screen, PendingInputScreen), 10)
        await pilot.press("escape")
        await until(pilot, app.main_screen_on_top, 5)
        assert hosts.get("devbox").online and asked == []  # online without it
        app.main.sessions.select(key)
        app.main.sessions.focus()
        await pilot.press("o")  # DEPS has ended there: no process to end first
        await until(pilot, lambda: bool(ran), 5)
        assert ran[0] == [
            "ssh", "-t", "devbox", "sh", "-c",
            f"'cd /srv/billing && exec /home/me/.local/bin/claude --resume {DEPS}'",
        ]  # fmt: skip
        assert asked == ["claude_health"]
        await until(pilot, lambda: app.takeover.running is None, 5)
        await pilot.press("o")
        await until(pilot, lambda: len(ran) == 2, 5)
        assert ran[1] == ran[0] and asked == ["claude_health"]  # kept, not asked again
