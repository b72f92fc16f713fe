"""``SessionManager.prewarm``: a process started before its prompt is taken by the ``create``
that launches the same way, and ended by any other, by ``discard_spare`` and by shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from cctui.core import SessionInfo, SessionManager, WaitOutcome
from cctui.core.catalog import build_catalog
from cctui.core.session import process
from cctui.core.session.events import SessionEvent, StatusChanged, UserMessageEvent
from cctui.core.session.states import SessionStatus
from cctui.errors import SessionNotReady
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import FakeDriverFactory


async def _slow(
    make_manager: MakeManager, *, gate: asyncio.Event
) -> tuple[SessionManager, FakeDriverFactory]:
    """A started manager whose processes connect once ``gate`` is set."""
    factory = FakeDriverFactory(connect_gate=gate)
    manager = make_manager(driver_factory=factory)
    await manager.start()
    return manager, factory


async def _take_a_failing_spare(
    make_manager: MakeManager, project: Path
) -> tuple[SessionManager, FakeDriverFactory, str, asyncio.Task[SessionInfo], asyncio.Event]:
    """A spare whose connect will fail once the test opens the gate, taken by a ``create``
    while it still connects; a fresh start would connect. (A 0.2 s connect looked at after
    a 0.05 s sleep had failed, and been started afresh, when the loop ran late under load.)"""
    gate = asyncio.Event()
    slow = FakeDriverFactory(connect_error=RuntimeError("no claude today"), connect_gate=gate)
    manager = make_manager(driver_factory=slow)
    await manager.start()
    manager.prewarm(manager.default_config(project))
    (sid,) = manager.spare_ids
    await _until(lambda: bool(slow.drivers))  # the spare's process is connecting
    listed: list[str] = []
    creating = asyncio.create_task(
        manager.create("go", manager.default_config(project), listed=listed.append)
    )
    await _until(lambda: bool(listed) or creating.done())  # taken
    slow.connect_error = None
    return manager, slow, sid, creating, gate


async def _warm(manager: SessionManager, factory: FakeDriverFactory, project: Path) -> str:
    manager.prewarm(manager.default_config(project))
    (sid,) = manager.spare_ids
    for _ in range(100):
        if factory.drivers and factory.drivers[-1].connected:
            return sid
        await asyncio.sleep(0.01)
    raise AssertionError("the spare never connected")


async def test_create_takes_the_spare_that_launches_the_same_way(
    manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    seen: list[SessionEvent] = []
    manager.subscribe(seen.append)
    sid = await _warm(manager, factory, project)
    assert seen == [] and manager.list() == []  # nobody hears of it before its prompt

    info = await manager.create("go", manager.default_config(project))
    assert info.session_id == sid and info.title == "go"
    assert len(factory.drivers) == 1 and factory.drivers[0].sent == ["go"]
    assert manager.spare_ids == frozenset()
    assert (await manager.wait(sid, 5)).reason == "turn_ended"
    assert {e.session_id for e in seen} == {sid}
    # Its start is heard as any session's is: from "starting", counted once.
    first = seen[0]
    assert isinstance(first, StatusChanged) and first.status == SessionStatus.STARTING
    assert first.previous is None and manager.metrics.sessions_started == 1
    assert [i.session_id for i in manager.list()] == [sid]


async def test_another_launch_ends_the_spare_and_starts_its_own(
    manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    sid = await _warm(manager, factory, project)
    spare = factory.drivers[0]
    listed: list[str] = []
    config = manager.default_config(project, model="haiku")
    info = await manager.create("go", config, listed=listed.append)
    assert info.session_id != sid and listed == [info.session_id]
    assert factory.of(info.session_id).spec.model == "haiku"
    for _ in range(100):
        if spare.closed and not manager.spare_ids:
            break
        await asyncio.sleep(0.01)
    assert spare.closed and spare.sent == [] and manager.spare_ids == frozenset()
    # A new session with an id of its own starts its own process and leaves the spare be.
    kept = await _warm(manager, factory, project)
    chosen = "00000000-0000-4000-8000-0000000000aa"
    taken = await manager.create("mine", manager.default_config(project), session_id=chosen)
    assert taken.session_id == chosen and manager.spare_ids == {kept}


async def test_warming_again_the_same_way_keeps_the_process_another_way_replaces_it(
    manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    sid = await _warm(manager, factory, project)
    manager.prewarm(manager.default_config(project))
    assert manager.spare_ids == {sid} and len(factory.drivers) == 1
    manager.prewarm(manager.default_config(project, permission_mode="plan"))
    assert len(manager.spare_ids - {sid}) == 1  # a new one; the old hidden while it ends
    await manager.discard_spare()
    for _ in range(100):
        if all(d.closed for d in factory.drivers) and not manager.spare_ids:
            break
        await asyncio.sleep(0.01)
    assert all(d.closed for d in factory.drivers) and manager.spare_ids == frozenset()


async def test_a_spare_stays_hidden_until_its_process_is_gone(
    manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    sid = await _warm(manager, factory, project)
    discarding = asyncio.create_task(manager.discard_spare())
    await asyncio.sleep(0)
    assert manager.spare_ids == {sid} and not factory.drivers[0].closed
    await discarding
    assert manager.spare_ids == frozenset() and factory.drivers[0].closed


async def test_shutdown_ends_a_spare_still_connecting(
    make_manager: MakeManager, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Never connected, its owner never sees the stop: stop() waits out the kill grace plus
    # this bound (5 s in cctui), then cancels it. The test waits them out: short here.
    monkeypatch.setattr(process, "STUCK_AFTER_S", 0.2)
    manager, slow = await _slow(make_manager, gate=asyncio.Event())  # never opened
    manager.kill_grace_s = 0.1  # the grace too (2 s): a fake driver has no process to TERM
    manager.prewarm(manager.default_config(project))
    await _until(lambda: bool(slow.drivers))  # connecting
    await manager.shutdown()
    assert len(slow.drivers) == 1 and slow.drivers[0].closed
    assert manager.spare_ids == frozenset()


async def test_a_spare_discarded_before_its_start_began_spawns_nothing(
    manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    manager.prewarm(manager.default_config(project))
    await manager.discard_spare()
    await asyncio.sleep(0.05)
    assert factory.drivers == [] and manager.spare_ids == frozenset()


async def test_a_spare_that_failed_to_start_is_replaced_by_a_fresh_process(
    manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    factory.connect_error = RuntimeError("no claude today")
    manager.prewarm(manager.default_config(project))
    await _until(lambda: bool(factory.drivers))  # built with the error: it fails to start
    factory.connect_error = None
    info = await manager.create("go", manager.default_config(project))
    assert (await manager.wait(info.session_id, 5)).reason == "turn_ended"
    assert len(factory.drivers) == 2 and factory.drivers[1].sent == ["go"]


async def test_a_spare_still_connecting_is_listed_at_once(
    make_manager: MakeManager, project: Path
) -> None:
    gate = asyncio.Event()
    manager, slow = await _slow(make_manager, gate=gate)
    seen: list[SessionEvent] = []
    manager.subscribe(seen.append)
    manager.prewarm(manager.default_config(project))
    (sid,) = manager.spare_ids
    await _until(lambda: bool(slow.drivers))  # connecting
    listed: list[str] = []
    creating = asyncio.create_task(
        manager.create("go", manager.default_config(project), listed=listed.append)
    )
    await _until(lambda: bool(listed) or creating.done())
    # Listed and heard of while its process still connects, not once it is up.
    assert not creating.done() and not slow.drivers[0].connected and listed == [sid]
    assert [(i.session_id, i.status) for i in manager.list()] == [(sid, SessionStatus.STARTING)]
    assert [(e.session_id, e.status) for e in seen if isinstance(e, StatusChanged)] == [
        (sid, SessionStatus.STARTING)
    ]
    assert manager.spare_ids == frozenset()
    gate.set()
    info = await creating
    assert info.session_id == sid and slow.drivers[0].sent == ["go"]
    assert (await manager.wait(sid, 5)).reason == "turn_ended"
    await manager.shutdown()


async def test_a_taken_spare_is_busy_with_its_prompt_from_the_moment_it_is_listed(
    make_manager: MakeManager, project: Path
) -> None:
    """Issue 45: the spare was started without a prompt, so once it connected it read as
    idle with no turn outstanding until ``create`` got round to sending the prompt; a
    ``wait`` in between returned ``turn_ended`` with no result. The prompt counts (and is
    heard of) when the spare is taken, as a fresh start's first prompt does."""
    # The spare connects when the test opens the gate: a 0.3 s connect looked at after a
    # 0.05 s sleep had connected already when the loop was late (a loaded machine).
    slow = FakeDriverFactory(connect_gate=asyncio.Event())
    manager = make_manager(driver_factory=slow)
    await manager.start()
    manager.prewarm(manager.default_config(project))
    (sid,) = manager.spare_ids
    await _until(lambda: bool(slow.drivers))  # the spare's process is connecting
    waited: list[asyncio.Task[WaitOutcome]] = []
    creating = asyncio.create_task(
        manager.create(
            "go",
            manager.default_config(project),
            listed=lambda sid: waited.append(asyncio.create_task(manager.wait(sid, 5))),
        )
    )
    await _until(lambda: bool(waited) or creating.done())  # listed: the spare is taken
    assert not slow.drivers[0].connected and [e.text for e in _prompts(manager, sid)] == ["go"]
    assert slow.connect_gate is not None
    slow.connect_gate.set()
    outcome = await waited[0]
    assert outcome.reason == "turn_ended" and outcome.session.last_result is not None
    assert slow.drivers[0].sent == ["go"] and (await creating).session_id == sid
    assert [e.text for e in _prompts(manager, sid)] == ["go"]  # heard of once
    await manager.shutdown()


async def _until(check: Callable[[], bool], wait_s: float = 10.0) -> None:
    """Wait for ``check`` (a real condition; the bound only ends a hung test)."""
    deadline = asyncio.get_running_loop().time() + wait_s
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "the condition never came"
        await asyncio.sleep(0.005)


def _prompts(manager: SessionManager, sid: str) -> list[UserMessageEvent]:
    return [e for e in manager.events(sid).events if isinstance(e, UserMessageEvent)]


async def test_a_spare_that_fails_after_it_was_taken_is_started_again_for_the_same_session(
    make_manager: MakeManager, project: Path
) -> None:
    manager, slow, sid, creating, gate = await _take_a_failing_spare(make_manager, project)
    gate.set()
    info = await creating
    assert info.session_id == sid
    assert len(slow.drivers) == 2 and slow.drivers[1].sent == ["go"]
    assert (await manager.wait(sid, 5)).reason == "turn_ended"
    assert [i.session_id for i in manager.list()] == [sid]
    assert [e.text for e in _prompts(manager, sid)] == ["go"]  # the fresh start says it once
    await manager.shutdown()


async def test_a_taken_spare_that_fails_during_shutdown_is_not_started_again(
    make_manager: MakeManager, project: Path
) -> None:
    manager, slow, _, creating, gate = await _take_a_failing_spare(make_manager, project)
    shutting = asyncio.create_task(manager.shutdown())
    await _until(lambda: manager._shutting_down)
    gate.set()  # the spare fails now, during shutdown: a fresh start would connect
    await shutting
    with pytest.raises(SessionNotReady):
        await creating
    assert len(slow.drivers) == 1 and manager.list() == []


async def test_no_spare_at_the_session_limit_or_for_a_missing_directory(
    make_manager: MakeManager, factory: FakeDriverFactory, project: Path, tmp_path: Path
) -> None:
    manager = make_manager(max_sessions=1)
    await manager.start()
    await manager.create("first", manager.default_config(project))
    manager.prewarm(manager.default_config(project))
    assert manager.spare_ids == frozenset() and len(factory.drivers) == 1
    manager.prewarm(manager.default_config(tmp_path / "nowhere"))
    assert manager.spare_ids == frozenset()


def test_the_catalog_leaves_hidden_ids_out_of_the_history() -> None:
    from datetime import UTC, datetime

    from cctui.history import SessionSummary

    now = datetime.now(UTC)
    summaries = [
        SessionSummary(session_id=sid, last_activity=now, source="process") for sid in ("a", "b")
    ]
    assert [e.session_id for e in build_catalog(summaries, (), {"a"})] == ["b"]


async def test_another_cctui_on_the_same_state_hides_the_spare_until_it_is_taken(
    make_manager: MakeManager, manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    """Another cctui (or ``cctui serve``) lists the CLI's running processes too: it leaves
    this one's spare out for as long as this one does."""
    other = make_manager()
    await other.start()
    sid = await _warm(manager, factory, project)
    assert other.spare_ids == {sid}
    await manager.create("go", manager.default_config(project))
    assert other.spare_ids == frozenset()

    second = await _warm(manager, factory, project)
    assert other.spare_ids == {second}
    await manager.discard_spare()
    assert other.spare_ids == frozenset()
