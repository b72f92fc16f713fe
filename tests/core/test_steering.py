"""Mode and model of a session, live and for its next start (FakeDriver)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cctui.core import SessionManager, SettingChangedEvent
from cctui.core.steering import next_mode
from cctui.errors import SettingRefused, ValidationFailed
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import BYPASS_REFUSAL, FakeDriverFactory, sleep, text


def settings_events(manager: SessionManager, sid: str) -> list[SettingChangedEvent]:
    return [e for e in manager.events(sid).events if isinstance(e, SettingChangedEvent)]


def test_mode_cycle_follows_claude_code() -> None:
    assert next_mode("default", bypass_allowed=False) == "acceptEdits"
    assert next_mode("acceptEdits", bypass_allowed=False) == "plan"
    assert next_mode("plan", bypass_allowed=False) == "auto"
    assert next_mode("auto", bypass_allowed=False) == "default"
    assert next_mode("auto", bypass_allowed=True) == "bypassPermissions"
    assert next_mode("bypassPermissions", bypass_allowed=True) == "default"
    assert next_mode("dontAsk", bypass_allowed=False) == "default"


async def test_live_mode_and_model_reach_the_process_and_the_next_turn(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("hi", manager.default_config(project))
    sid = info.session_id
    await manager.wait(sid, 5)
    change = await manager.set_permission_mode(sid, "plan")
    assert (change.applies, change.value, change.previous) == ("now", "plan", "default")
    assert change.session.permission_mode == "plan"
    model = await manager.set_model(sid, "sonnet")
    assert model.applies == "now" and model.session.config.model == "sonnet"
    driver = factory.drivers[-1]
    assert driver.mode_changes == ["plan"] and driver.model_changes == ["sonnet"]
    await manager.send(sid, "again")
    await manager.wait(sid, 5)
    info = manager.get(sid)
    assert info.permission_mode == "plan" and info.model == "sonnet"
    # One event per change, though the CLI confirmed the mode and every Init repeats it.
    assert [(e.setting, e.value) for e in settings_events(manager, sid)] == [
        ("permission_mode", "plan"),
        ("model", "sonnet"),
    ]


async def test_mode_changes_mid_turn(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    factory.script = {"*": [text("working"), sleep(0.5), text("done")]}
    info = await manager.create("go", manager.default_config(project))
    await asyncio.sleep(0.1)
    assert manager.get(info.session_id).status == "running"
    change = await manager.set_permission_mode(info.session_id, "acceptEdits")
    assert change.applies == "now"
    assert factory.drivers[-1].mode == "acceptEdits"


async def test_a_resume_starts_with_the_last_mode_and_model(
    make_manager: MakeManager, project: Path, factory: FakeDriverFactory
) -> None:
    manager = make_manager()
    await manager.start()
    info = await manager.create("hi", manager.default_config(project))
    sid = info.session_id
    await manager.wait(sid, 5)
    await manager.set_permission_mode(sid, "acceptEdits")
    await manager.set_model(sid, "opus")
    await manager.kill(sid)
    await manager.send(sid, "resumed")
    assert factory.specs[-1].resume == sid
    assert (factory.specs[-1].permission_mode, factory.specs[-1].model) == ("acceptEdits", "opus")
    await manager.wait(sid, 5)
    await manager.shutdown()
    # A restart of cctui reads both back from the registry.
    again = make_manager()
    await again.start()
    assert again.get(sid).config.permission_mode == "acceptEdits"
    await again.send(sid, "after restart")
    assert (factory.specs[-1].permission_mode, factory.specs[-1].model) == ("acceptEdits", "opus")


async def test_an_ended_session_takes_the_change_for_its_next_start(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("hi", manager.default_config(project))
    sid = info.session_id
    await manager.wait(sid, 5)
    await manager.kill(sid)
    change = await manager.set_permission_mode(sid, "plan")
    assert change.applies == "next_start" and "resumes in plan" in change.note
    model = await manager.set_model(sid, "default")
    assert model.value is None and model.applies == "next_start"
    assert len(factory.drivers) == 1  # nothing was started for it
    await manager.send(sid, "next")
    assert (factory.specs[-1].permission_mode, factory.specs[-1].model) == ("plan", None)


async def test_bypass_is_refused_plainly(manager: SessionManager, project: Path) -> None:
    info = await manager.create("hi", manager.default_config(project))
    sid = info.session_id
    await manager.wait(sid, 5)
    with pytest.raises(SettingRefused) as live:
        await manager.set_permission_mode(sid, "bypassPermissions")
    assert live.value.message == BYPASS_REFUSAL  # the CLI's words
    assert "started with it" in (live.value.suggestion or "")
    assert manager.get(sid).permission_mode == "default"
    await manager.kill(sid)
    with pytest.raises(SettingRefused) as ended:
        await manager.set_permission_mode(sid, "bypassPermissions")
    assert "started with it" in (ended.value.suggestion or "")
    with pytest.raises(ValidationFailed):
        await manager.set_permission_mode(sid, "yolo")


async def test_a_skip_permissions_session_cycles_through_bypass(
    manager: SessionManager, project: Path
) -> None:
    config = manager.default_config(project, skip_permissions=True)
    info = await manager.create("hi", config)
    sid = info.session_id
    await manager.wait(sid, 5)
    assert manager.get(sid).permission_mode == "bypassPermissions"
    assert (await manager.cycle_permission_mode(sid)).value == "default"
    assert (await manager.cycle_permission_mode(sid)).value == "acceptEdits"
    assert (await manager.set_permission_mode(sid, "bypassPermissions")).applies == "now"


async def test_a_refused_model_changes_nothing(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("hi", manager.default_config(project, model="sonnet"))
    sid = info.session_id
    await manager.wait(sid, 5)
    with pytest.raises(SettingRefused, match="not found"):
        await manager.set_model(sid, "no-such-model")
    assert manager.get(sid).config.model == "sonnet"
    assert not settings_events(manager, sid)
    assert [m.value for m in manager.models(sid)][:2] == ["default", "opus"]


async def test_quick_switches_stay_in_order(manager: SessionManager, project: Path) -> None:
    """Each switch waits for the CLI's confirmation, so a late frame cannot undo a later one."""
    info = await manager.create("hi", manager.default_config(project))
    sid = info.session_id
    await manager.wait(sid, 5)
    for _ in range(2):
        await manager.cycle_permission_mode(sid)
    await asyncio.sleep(0.05)
    assert manager.get(sid).permission_mode == "plan"
    assert [e.value for e in settings_events(manager, sid)] == ["acceptEdits", "plan"]


async def test_a_session_with_a_log_file_logs_its_changes_and_still_publishes_them(
    manager: SessionManager, project: Path
) -> None:
    """The log has a line for every event kind (the MCP output lines' text); a kind it had
    none for raised inside the fan-out, so a session with seed 004's ``log_file`` never
    published its setting changes."""
    config = manager.default_config(project).model_copy(update={"log_file": "session.log"})
    info = await manager.create("hi", config)
    sid = info.session_id
    await manager.wait(sid, 5)
    seen: list[object] = []
    manager.subscribe(seen.append)
    await manager.set_model(sid, "sonnet")
    await manager.set_permission_mode(sid, "plan")
    assert [(e.setting, e.value) for e in seen if isinstance(e, SettingChangedEvent)] == [
        ("model", "sonnet"),
        ("permission_mode", "plan"),
    ]
    lines = (project / "session.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in lines[-2:]] == [
        "[model] default -> sonnet",
        "[mode] default -> plan",
    ]
