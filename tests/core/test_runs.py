"""The run supervisor (``cctui.core.runs``): its end, its deadline, its stop and its cleanup,
over FakeDriver, and once over the real ``claude`` CLI against the fake API."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.config import Settings
from cctui.core import Decision, ErrorEvent, SessionEvent, SessionManager, SessionStatus
from cctui.core.runs import Run
from cctui.errors import CliNotFound
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import FakeDriver, fake_driver_factory, sleep, text, tool
from tests.fakes.procs import alive

S = SessionStatus


async def started(manager: SessionManager, project: Path, prompt: str, max_s: float) -> Run:
    run = Run(manager, max_s)
    await run.start(prompt, manager.default_config(project))
    return run


def deaf(driver: FakeDriver) -> list[float]:
    """Make ``driver`` ignore interrupts (a turn stuck in a tool); returns when they came."""
    came: list[float] = []

    async def interrupt() -> None:
        came.append(time.monotonic())

    driver.interrupt = interrupt  # type: ignore[method-assign]
    return came


async def test_a_run_that_finishes_ends_its_process_and_keeps_its_messages(
    make_manager: MakeManager, project: Path
) -> None:
    manager = make_manager(fake_driver_factory({"*": [text("All done")]}))
    await manager.start()
    run = await started(manager, project, "do it", 10)
    seen: list[SessionEvent] = []
    run.listen(seen.append)
    outcome = await run.supervise()
    assert outcome.stopped is None and outcome.reason == "turn_ended"
    assert outcome.result is not None and not outcome.result.is_error
    assert outcome.result.result == "All done"
    assert outcome.session is not None and outcome.session.status == S.COMPLETED
    assert not manager.get(run.sid).is_active  # the process was ended
    kinds = [e.kind for e in run.log]
    assert kinds[0] == "user" and "text" in kinds and "result" in kinds
    assert "status" not in kinds  # status churn is not a message
    assert seen and all(e.session_id == run.sid for e in seen)
    # Over: no longer subscribed, and nothing more to stop.
    manager.publish(ErrorEvent(session_id=run.sid, message="late"))
    assert run.log[-1].kind == "result" and seen[-1].kind != "error"
    await run.stop("cancelled")
    assert run.stopping is None


async def test_at_the_deadline_the_turn_is_interrupted_given_grace_then_killed(
    make_manager: MakeManager, project: Path
) -> None:
    factory = fake_driver_factory({"*": [sleep(30)]})
    manager = make_manager(factory)
    await manager.start()
    run = await started(manager, project, "work", 0.3)
    run.grace_s = 0.6
    interrupts = deaf(factory.drivers[0])
    # The clock started when the run was made (``run.started``), not when it is supervised:
    # under load the start alone may take longer than a 0.05 s margin.
    outcome = await asyncio.wait_for(run.supervise(end=False), 10)
    took = time.monotonic() - run.started
    assert outcome.stopped == "timeout" and run.stopping == "timeout"
    assert len(interrupts) == 1 and interrupts[0] - run.started >= 0.3 - 1e-3
    # The turn did not stop, so the grace was waited out before the kill.
    assert took >= 0.3 + 0.6 - 0.05, took
    assert factory.drivers[0].closed
    info = manager.get(run.sid)
    assert info.status == S.INTERRUPTED and not info.is_active


async def test_a_turn_that_stops_at_the_interrupt_is_not_waited_out(
    make_manager: MakeManager, project: Path
) -> None:
    factory = fake_driver_factory({"*": [sleep(30)]})
    manager = make_manager(factory)
    await manager.start()
    run = await started(manager, project, "work", 0.3)
    run.grace_s = 60  # waited out, the wait_for below would fail: no wall-clock bound needed
    outcome = await asyncio.wait_for(run.supervise(end=False), 30)
    assert factory.drivers[0].interrupts == 1 and factory.drivers[0].closed
    assert outcome.stopped == "timeout"
    assert outcome.result is not None and outcome.result.is_error  # the interrupted turn
    assert manager.get(run.sid).status == S.INTERRUPTED


async def test_a_run_stopped_by_its_owner_is_not_taken_for_finished(
    make_manager: MakeManager, project: Path
) -> None:
    manager = make_manager(fake_driver_factory({"*": [sleep(30)]}))
    await manager.start()
    run = await started(manager, project, "work", 60)
    supervisor = asyncio.create_task(run.supervise(end=False))
    await asyncio.sleep(0.1)
    await run.stop("cancelled", grace_s=0)
    outcome = await asyncio.wait_for(supervisor, 10)
    assert outcome.stopped == "cancelled"
    assert outcome.result is not None and outcome.result.is_error  # the interrupted turn
    assert not manager.get(run.sid).is_active


async def test_a_decision_is_waited_for_not_decided(
    make_manager: MakeManager, project: Path
) -> None:
    manager = make_manager(fake_driver_factory({"*": [tool("Write", {"file_path": "a.txt"})]}))
    await manager.start()
    run = await started(manager, project, "write", 30)
    supervisor = asyncio.create_task(run.supervise())
    outcome = await manager.wait(run.sid, 5)
    assert outcome.reason == "input_needed"
    await asyncio.sleep(0.3)
    assert not supervisor.done() and manager.pending(run.sid)  # still asked, not stopped
    changed = run.changed
    manager.respond(outcome.pending[0].id, Decision(behavior="allow"), "tui")
    await asyncio.wait_for(changed.wait(), 5)  # followers are woken
    ended = await asyncio.wait_for(supervisor, 10)
    assert ended.stopped is None and ended.result is not None and not ended.result.is_error


async def test_a_cancelled_supervisor_still_ends_the_process(
    make_manager: MakeManager, project: Path
) -> None:
    factory = fake_driver_factory({"*": [sleep(30)]})
    manager = make_manager(factory)
    await manager.start()
    run = await started(manager, project, "work", 60)
    supervisor = asyncio.create_task(run.supervise())
    await asyncio.sleep(0.1)
    supervisor.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await supervisor
    assert run.outcome is not None and run.outcome.stopped == "cancelled"
    assert factory.drivers[0].closed and not manager.get(run.sid).is_active


async def test_a_start_that_fails_leaves_nothing_behind(
    make_manager: MakeManager, project: Path
) -> None:
    manager = make_manager(fake_driver_factory(connect_error=CliNotFound("no claude here")))
    await manager.start()
    run = Run(manager, 10)
    with pytest.raises(CliNotFound):
        await run.start("hi", manager.default_config(project))
    await run.close(kill=True)  # nothing to end: no error
    assert run.outcome is not None and run.outcome.session is None
    assert manager.list(active_only=True) == []


# -- the real CLI ---------------------------------------------------------------------------


@pytest.fixture
async def real_manager(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path
) -> AsyncIterator[SessionManager]:
    settings = Settings(
        claude_code_path=claude_bin,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=tmp_path / "state",
        permission_timeout_ms=30_000,
    )
    manager = SessionManager(settings)
    await manager.start()
    yield manager
    await manager.shutdown()


@pytest.mark.e2e
async def test_the_real_cli_is_stopped_at_the_deadline_and_its_process_ends(
    real_manager: SessionManager, project_dir: Path
) -> None:
    # The deadline is set once the CLI is talking: how long it takes to start depends on the
    # machine's load, and the run must be stopped mid-turn, with text said before the stop.
    run = Run(real_manager, 600)
    talking = asyncio.Event()
    run.listen(lambda ev: talking.set() if ev.kind == "text" else None)
    info = await run.start(
        "[[slow seconds=30 chunks=60]]", real_manager.default_config(project_dir)
    )
    assert info.pid is not None and alive(info.pid)
    await asyncio.wait_for(talking.wait(), 60)
    loop = asyncio.get_running_loop()
    run.deadline = loop.time() + 1
    outcome = await asyncio.wait_for(run.supervise(), 30)
    assert outcome.stopped == "timeout"
    assert outcome.session is not None and outcome.session.status == S.INTERRUPTED
    assert loop.time() - run.deadline < run.grace_s + 10  # not the 30 s turn
    assert any(e.kind == "text" for e in run.log)  # what it said before the stop
    for _ in range(50):
        if not alive(info.pid):
            break
        await asyncio.sleep(0.1)
    assert not alive(info.pid)
