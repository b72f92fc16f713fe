"""The core's problems reach the TUI: at start-up and while it runs."""

from __future__ import annotations

from pathlib import Path

from cctui.config import load_settings
from cctui.core import Decision, SessionManager
from cctui.services import Services
from cctui.tui.app import CctuiApp
from tests.fakes.fake_driver import fake_driver_factory
from tests.tui.conftest import SIZE, RunApp, raised


def _warnings(app: CctuiApp, text: str) -> list[str]:
    return [n.message for n in raised(app) if text in n.message]


async def test_a_registry_set_aside_at_start_up_is_shown(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    settings = load_settings(
        env={"HOME": str(tmp_path / "home")},
        config_path=tmp_path / "none.toml",
        overrides={"default_cwd": project},
    )
    settings.state_dir.mkdir(parents=True)
    (settings.state_dir / "sessions.json").write_bytes(b"\xff\xfe")  # invalid UTF-8
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    await manager.start()
    app = CctuiApp(settings, Services.build(settings, manager))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.05)
            [aside] = settings.state_dir.glob("sessions.json.bad-*")
            [note] = _warnings(app, "unreadable")
            assert str(aside) in note
    finally:
        await manager.shutdown()


async def test_a_problem_that_appears_mid_run_is_shown_once(run_app: RunApp) -> None:
    async with run_app() as h:
        h.manager.audit.path.mkdir(parents=True)  # every audit append fails from now on
        for n in range(2):
            sid = await h.create(f"please bash {n}")
            [item] = h.manager.pending(sid)
            h.manager.decisions.router.note_created(sid, "test", can_ask=False)  # its own
            h.manager.respond(item.id, Decision(behavior="deny"), "mcp:test")
            await h.until(lambda: bool(_warnings(h.app, "audit log")))  # on the next tick
        assert h.manager.audit.failures >= 2
        await h.pilot.pause(1.2)  # another tick: the reworded problem is not news
        assert len(_warnings(h.app, "audit log")) == 1
