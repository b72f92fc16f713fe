"""The dispatcher over FakeDriver sessions and a fake clock: the queue, ``after``, schedules,
the usage limit, and all of it across a restart (``cctui.core.dispatch``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cctui.claude.frames import RateLimited
from cctui.core import Decision, SessionManager, SessionStatus
from cctui.core.dispatch import DispatchRequest
from cctui.core.dispatch.store import DISPATCH_FILE
from cctui.errors import SessionLimitReached, SessionNotFound, ValidationFailed
from tests.core.conftest import MakeManager
from tests.fakes.clock import FakeClock
from tests.fakes.fake_driver import (
    FakeDriverFactory,
    Step,
    crash,
    emit,
    fail,
    fake_driver_factory,
    sleep,
    text,
    tool,
)

S = SessionStatus

SCRIPT: dict[str, list[Step]] = {
    "hold": [sleep(30), text("held")],
    "ask": [tool("Write", {"file_path": "a.txt", "content": "x"}), text("asked")],
    "boom": [text("Starting..."), crash()],
    "bad": [fail("API Error: 400 fake")],
    "*": [text("done")],
}


async def until(check: Callable[[], bool], wait_s: float = 5.0) -> None:
    """Return once ``check()`` holds (the dispatcher works on the loop, in the background)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + wait_s
    while not check():
        assert loop.time() < end, "condition not met in time"
        await asyncio.sleep(0.01)


@pytest.fixture
def scripted() -> FakeDriverFactory:
    return fake_driver_factory(SCRIPT)


async def started(
    make_manager: MakeManager,
    factory: FakeDriverFactory,
    clock: FakeClock | None = None,
    **kw: object,
) -> SessionManager:
    manager = make_manager(factory, **kw)
    if clock is not None:
        manager.dispatch.clock = clock
    await manager.start()
    return manager


def run_ended(manager: SessionManager, sid: str) -> bool:
    """A schedule's run ended its turn and then its process (``Dispatcher._run_status``)."""
    try:
        info = manager.get(sid)
    except SessionNotFound:
        return False
    return info.status == S.COMPLETED and not info.is_active and info.last_result == "done"


def status(manager: SessionManager, sid: str) -> SessionStatus | None:
    """The session's status; None while a schedule's run is recorded but not yet created."""
    try:
        return manager.get(sid).status
    except SessionNotFound:
        return None


# ---------------------------------------------------------------------------- the queue


async def test_five_sessions_run_two_at_a_time_and_the_queue_drains_in_order(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted, max_sessions=2)
    config = manager.default_config(project)
    made = await asyncio.gather(*(manager.create(f"hold {i}", config) for i in range(5)))
    ids = [m.session_id for m in made]
    assert [m.status for m in made[:2]] == [S.RUNNING, S.RUNNING]
    assert [m.status for m in made[2:]] == [S.QUEUED] * 3
    notes = [manager.get(sid).dispatch for sid in ids[2:]]
    assert [n.note if n else None for n in notes] == ["queued 1st", "queued 2nd", "queued 3rd"]
    assert [n.queue_position if n else None for n in notes] == [1, 2, 3]
    # The queued prompt is listed with the session (its title).
    assert manager.get(ids[4]).title == "hold 4"

    order: list[str] = []
    manager.subscribe(
        lambda e: (
            order.append(e.session_id)
            if e.kind == "status" and getattr(e, "status", None) == S.STARTING
            else None
        )
    )
    for n in range(3):  # end one working session's turn; the next queued one starts
        running = [s for s in ids if status(manager, s) == S.RUNNING]
        assert len(running) == 2
        await manager.interrupt(running[0])
        await until(lambda n=n: len(order) == n + 1)  # type: ignore[misc]
        await until(lambda: sum(status(manager, s) == S.RUNNING for s in ids) == 2)
    assert order == ids[2:]
    assert all(status(manager, s) != S.QUEUED for s in ids)


async def test_a_session_waiting_on_a_permission_holds_no_slot(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted, max_sessions=1)
    config = manager.default_config(project)
    asking = await manager.create("ask", config)
    queued = await manager.create("hold", config)
    await until(lambda: status(manager, asking.session_id) == S.WAITING_FOR_INPUT)
    await until(lambda: status(manager, queued.session_id) == S.RUNNING)
    # The human answers: two now work at once, over the limit, and nothing else starts.
    third = await manager.create("later", config)
    assert third.status == S.QUEUED


async def test_reorder_start_now_and_cancel(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted, max_sessions=1)
    config = manager.default_config(project)
    await manager.create("hold", config)
    a, b, c = [await manager.create(f"hold {n}", config) for n in "abc"]
    assert manager.dispatch.move(c.session_id, 1) == 1
    assert [e.session_id for e in manager.dispatch.queued()] == [
        c.session_id,
        a.session_id,
        b.session_id,
    ]
    manager.dispatch.cancel(a.session_id, "tui")
    cancelled = manager.get(a.session_id)
    assert cancelled.status == S.CANCELLED and cancelled.error == "cancelled by tui"
    with pytest.raises(SessionNotFound):
        manager.dispatch.cancel(a.session_id, "tui")
    manager.dispatch.start_now(b.session_id)  # over the limit: the human said so
    await until(lambda: status(manager, b.session_id) == S.RUNNING)
    assert status(manager, c.session_id) == S.QUEUED
    assert manager.get(c.session_id).dispatch.note == "queued 1st"  # type: ignore[union-attr]


async def test_the_per_project_limit_queues_only_that_project(
    make_manager: MakeManager, scripted: FakeDriverFactory, tmp_path: Path
) -> None:
    api, web = tmp_path / "api", tmp_path / "web"
    api.mkdir()
    web.mkdir()
    manager = await started(make_manager, scripted, project_max_sessions={"api": 1})
    first = await manager.create("hold", manager.default_config(api))
    second = await manager.create("hold", manager.default_config(api))
    other = await manager.create("hold", manager.default_config(web))
    assert (first.status, second.status, other.status) == (S.RUNNING, S.QUEUED, S.RUNNING)
    await manager.kill(first.session_id)
    await until(lambda: status(manager, second.session_id) == S.RUNNING)


async def test_the_queue_survives_a_restart(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted, max_sessions=1)
    config = manager.default_config(project)
    await manager.create("hold", config)
    queued = await manager.create("after the restart", config, dispatch=DispatchRequest(priority=3))
    await manager.shutdown()
    saved = json.loads((manager.settings.state_dir / DISPATCH_FILE).read_text())
    assert saved["version"] == 1 and saved["queue"][0]["prompt"] == "after the restart"

    again = await started(make_manager, scripted, max_sessions=1)
    await until(lambda: status(again, queued.session_id) == S.IDLE)
    assert again.get(queued.session_id).last_result == "done"
    assert scripted.drivers[-1].sent[0] == "after the restart"


async def test_a_cctui_not_owning_the_state_dir_dispatches_nothing(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    """``serve --stdio`` (started with ``owner=False``: the owner lock is the window's or
    ``serve --http``'s) refuses at the limit as before, queues and schedules nothing, and
    leaves the owner's dispatch.json alone."""
    owner = await started(make_manager, scripted, max_sessions=1)
    owner.dispatch.add_schedule("nightly", "0 3 * * *", "p", owner.default_config(project))
    before = (owner.settings.state_dir / DISPATCH_FILE).read_bytes()
    stdio = make_manager(scripted, max_sessions=1)
    await stdio.start(owner=False)
    assert owner.dispatch.owner and not stdio.dispatch.owner
    config = stdio.default_config(project)
    first = await stdio.create("hold", config)
    with pytest.raises(SessionLimitReached):
        await stdio.create("hold", config)
    with pytest.raises(ValidationFailed, match="serve --stdio"):
        await stdio.create("x", config, dispatch=DispatchRequest(after=(first.session_id,)))
    with pytest.raises(ValidationFailed, match="serve --stdio"):
        stdio.dispatch.add_schedule("mine", "0 4 * * *", "p", config)
    await stdio.shutdown()
    assert (owner.settings.state_dir / DISPATCH_FILE).read_bytes() == before


# ---------------------------------------------------------------------------- after


async def test_after_two_starts_only_when_both_ended_well(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted)
    config = manager.default_config(project)
    a = await manager.create("hold a", config)
    b = await manager.create("first b", config)
    child = await manager.create(
        "use them",
        config,
        dispatch=DispatchRequest(after=(a.session_id, b.session_id), parent_results="reply"),
    )
    assert child.status == S.QUEUED
    await until(lambda: status(manager, b.session_id) == S.IDLE)
    view = manager.get(child.session_id).dispatch
    assert view is not None and view.note == "waits for 1 session"
    assert view.waits_for == (a.session_id,)
    assert status(manager, child.session_id) == S.QUEUED  # one is not enough (AND)
    await manager.interrupt(a.session_id)  # an interrupted turn is not a success...
    await until(lambda: status(manager, child.session_id) == S.CANCELLED)
    error = manager.get(child.session_id).error
    assert error is not None and a.session_id[:8] in error and "interrupted" in error


async def test_after_starts_with_the_parents_replies(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted)
    config = manager.default_config(project)
    a = await manager.create("one", config)
    await until(lambda: status(manager, a.session_id) == S.IDLE)  # finished before: counts
    b = await manager.create("two", config)
    child = await manager.create(
        "sum up",
        config,
        dispatch=DispatchRequest(after=(a.session_id, b.session_id), parent_results="reply"),
    )
    await until(lambda: status(manager, child.session_id) == S.IDLE)
    prompt = scripted.drivers[-1].sent[0]
    assert prompt.startswith("sum up") and prompt.count("done") == 2
    assert a.session_id[:8] in prompt and b.session_id[:8] in prompt


async def test_after_refuses_cycles_unknown_and_failed_parents(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted)
    config = manager.default_config(project)
    sid = "11111111-1111-4111-8111-111111111111"
    with pytest.raises(ValidationFailed, match="itself"):
        await manager.create("x", config, session_id=sid, dispatch=DispatchRequest(after=(sid,)))
    with pytest.raises(ValidationFailed, match="no session"):
        await manager.create("x", config, dispatch=DispatchRequest(after=("nope",)))
    bad = await manager.create("boom", config)
    await until(lambda: status(manager, bad.session_id) == S.ERROR)
    with pytest.raises(ValidationFailed, match="never start"):
        await manager.create("x", config, dispatch=DispatchRequest(after=(bad.session_id,)))
    assert manager.dispatch.queued() == []


async def test_a_cancelled_parent_stops_its_whole_chain(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    manager = await started(make_manager, scripted, max_sessions=1)
    config = manager.default_config(project)
    await manager.create("hold", config)
    parent = await manager.create("p", config)
    child = await manager.create("c", config, dispatch=DispatchRequest(after=(parent.session_id,)))
    grandchild = await manager.create(
        "g", config, dispatch=DispatchRequest(after=(child.session_id,))
    )
    manager.dispatch.cancel(parent.session_id, "mcp:x")
    await until(lambda: status(manager, grandchild.session_id) == S.CANCELLED)
    assert "cancelled" in (manager.get(child.session_id).error or "")
    assert child.session_id[:8] in (manager.get(grandchild.session_id).error or "")


# ---------------------------------------------------------------------------- schedules


async def test_a_schedule_fires_once_across_a_stop_and_start(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    clock = FakeClock()
    manager = await started(make_manager, scripted, clock)
    schedule = manager.dispatch.add_schedule(
        "soon", "in 2 minutes", "scheduled hello", manager.default_config(project)
    )
    assert schedule.next_due == clock.now() + timedelta(minutes=2)
    clock.advance(seconds=100)
    await manager.dispatch.tick()
    assert manager.dispatch.schedule("soon").runs == []
    await manager.shutdown()
    clock.advance(seconds=40)  # due while cctui was stopped, 20 s ago: on time
    again = await started(make_manager, scripted, clock)
    await again.dispatch.tick()
    await again.dispatch.tick()
    runs = again.dispatch.schedule("soon").runs
    assert len(runs) == 1
    await until(lambda: run_ended(again, runs[0].session_id))
    info = again.get(runs[0].session_id)
    assert info.dispatch is not None and info.dispatch.note == "run of schedule soon"
    await again.shutdown()
    third = await started(make_manager, scripted, clock)
    clock.advance(minutes=10)
    await third.dispatch.tick()
    assert len(third.dispatch.schedule("soon").runs) == 1  # a one-off fires once
    assert third.dispatch.schedule("soon").next_due is None


@pytest.mark.parametrize(("rule", "expected"), [("once", 1), ("skip", 0), ("all", 3)])
async def test_runs_missed_while_stopped_follow_the_rule(
    make_manager: MakeManager,
    scripted: FakeDriverFactory,
    project: Path,
    rule: str,
    expected: int,
) -> None:
    clock = FakeClock(datetime(2026, 11, 30, 8, 0, tzinfo=UTC))
    manager = await started(make_manager, scripted, clock)
    manager.dispatch.add_schedule(
        "hourly",
        "0 * * * *",
        "tick",
        manager.default_config(project),
        missed=rule,  # type: ignore[arg-type]
        timezone="UTC",
    )
    await manager.shutdown()
    clock.advance(hours=3, minutes=30)  # 09:00, 10:00 and 11:00 missed
    again = await started(make_manager, scripted, clock)
    for _ in range(5):  # "all": one run at a time, each after the last ended
        await again.dispatch.tick()
        runs = again.dispatch.schedule("hourly").runs
        await until(lambda runs=runs: all(run_ended(again, r.session_id) for r in runs))  # type: ignore[misc]
        await asyncio.sleep(0)
    runs = again.dispatch.schedule("hourly").runs
    assert len(runs) == expected
    assert again.dispatch.schedule("hourly").next_due == datetime(2026, 11, 30, 12, tzinfo=UTC)
    await again.shutdown()
    clock.advance(minutes=1)
    third = await started(make_manager, scripted, clock)
    await third.dispatch.tick()
    assert len(third.dispatch.schedule("hourly").runs) == expected  # not twice


async def test_schedule_edit_pause_run_now_and_cancel(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    clock = FakeClock(datetime(2026, 11, 30, 8, 0, tzinfo=UTC))  # a Monday
    manager = await started(make_manager, scripted, clock)
    config = manager.default_config(project)
    s = manager.dispatch.add_schedule(
        "standup", "every weekday 09:00", "hi", config, timezone="UTC"
    )
    assert s.cron == "0 9 * * 1-5" and s.next_due == datetime(2026, 11, 30, 9, tzinfo=UTC)
    with pytest.raises(ValidationFailed):
        manager.dispatch.add_schedule("standup", "daily", "hi", config)
    with pytest.raises(ValidationFailed, match="not a schedule"):
        manager.dispatch.add_schedule("x", "every blue moon", "hi", config)
    paused = manager.dispatch.edit_schedule("standup", paused=True)
    clock.advance(hours=2)
    await manager.dispatch.tick()
    assert paused.runs == [] and manager.dispatch.schedule("standup").runs == []
    resumed = manager.dispatch.edit_schedule("standup", paused=False, when="every mon 18:30")
    assert resumed.next_due == datetime(2026, 11, 30, 18, 30, tzinfo=UTC)
    info = await manager.dispatch.run_schedule_now("standup")
    assert len(manager.dispatch.schedule("standup").runs) == 1
    await until(lambda: run_ended(manager, info.session_id))
    manager.dispatch.cancel_schedule(s.id)
    assert manager.dispatch.list_schedules() == []
    assert run_ended(manager, info.session_id)  # its run stays listed


async def test_a_runs_process_ends_with_its_turn_and_a_message_resumes_it(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    """Nobody waits at a schedule's run for a next message: its ``claude`` ends with its
    turn (a schedule every 15 minutes would otherwise keep 96 idle processes a day). One
    waiting on a permission keeps it; a person's later turn keeps it too."""
    manager = await started(make_manager, scripted, FakeClock())
    manager.dispatch.add_schedule("asks", "daily 09:00", "ask", manager.default_config(project))
    sid = (await manager.dispatch.run_schedule_now("asks")).session_id
    await until(lambda: status(manager, sid) == S.WAITING_FOR_INPUT)
    assert manager.get(sid).is_active  # its human answers first
    [asked] = manager.pending(sid)
    manager.respond(asked.id, Decision(behavior="allow"), "tui")
    await until(lambda: status(manager, sid) == S.COMPLETED)
    info = manager.get(sid)
    assert not info.is_active and info.last_result == "asked" and info.dispatch is not None

    await manager.send(sid, "and now?")  # resumed: a new process, the person's turn
    await until(lambda: status(manager, sid) == S.IDLE)
    await asyncio.sleep(0.05)
    info = manager.get(sid)
    assert info.status == S.IDLE and info.is_active and info.last_result == "done"
    await manager.shutdown()


# ---------------------------------------------------------------------------- usage limit


async def test_the_usage_limit_pauses_holds_the_queue_and_continues_at_the_reset(
    make_manager: MakeManager, project: Path
) -> None:
    clock = FakeClock()
    reset = clock.now() + timedelta(hours=1)
    factory = fake_driver_factory(
        {
            "limit": [
                emit(RateLimited("rejected", int(reset.timestamp()), "five_hour")),
                fail("You've hit your 5-hour limit · resets 9:00am (UTC)"),
            ],
            "*": [text("done")],
        }
    )
    manager = await started(make_manager, factory, clock)
    config = manager.default_config(project)
    hit = await manager.create("limit", config)
    await until(lambda: status(manager, hit.session_id) == S.PAUSED)
    view = manager.get(hit.session_id).dispatch
    assert view is not None and view.resumes_at == reset
    assert view.note.startswith("paused until") and view.note.endswith("(usage limit)")
    held = await manager.create("new work", config)  # would hit the same limit: it waits
    assert held.status == S.QUEUED and "usage limit" in (
        held.dispatch.note if held.dispatch else ""
    )

    await manager.shutdown()  # the pause and the hold survive a restart
    again = await started(make_manager, factory, clock)
    assert status(again, hit.session_id) == S.PAUSED and status(again, held.session_id) == S.QUEUED
    clock.advance(hours=1, seconds=1)
    await again.dispatch.tick()
    await until(lambda: status(again, held.session_id) == S.IDLE)
    await until(lambda: status(again, held.session_id) == S.IDLE)
    continued = [d for d in factory.drivers if d.sent and d.sent[0].startswith("Your usage")]
    assert len(continued) == 1


async def test_the_continue_message_can_be_switched_off(
    make_manager: MakeManager, project: Path
) -> None:
    clock = FakeClock()
    reset = clock.now() + timedelta(minutes=5)
    factory = fake_driver_factory(
        {
            "limit": [
                emit(RateLimited("rejected", int(reset.timestamp()), "five_hour")),
                fail("limit"),
            ]
        }
    )
    manager = await started(make_manager, factory, clock, usage_limit_resume=False)
    hit = await manager.create("limit", manager.default_config(project))
    await until(lambda: status(manager, hit.session_id) == S.PAUSED)
    clock.advance(minutes=6)
    await manager.dispatch.tick()
    assert status(manager, hit.session_id) == S.IDLE
    assert factory.drivers[-1].sent == ["limit"]


async def test_waiting_work_names_what_needs_a_running_cctui(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    """A background owner stays up for it, and ``q`` asks before closing on it."""
    manager = await started(make_manager, scripted, max_sessions=1)
    config = manager.default_config(project)
    assert manager.dispatch.waiting_work() == []
    await manager.create("hold", config)
    await manager.create("hold", config)
    manager.dispatch.add_schedule("nightly", "0 3 * * *", "p", config)
    paused = manager.dispatch.add_schedule("weekly", "0 3 * * 1", "p", config)
    manager.dispatch.edit_schedule(paused.id, paused=True)
    work = manager.dispatch.waiting_work()
    assert work[0] == "1 queued session" and work[1].startswith("schedule nightly · next ")
    assert len(work) == 2  # a paused schedule fires nothing


async def test_a_schedules_worktree_and_priority_reach_its_runs(
    make_manager: MakeManager, scripted: FakeDriverFactory, project: Path
) -> None:
    """A run queued at the limit takes its schedule's priority; a worktree needs git."""
    manager = await started(make_manager, scripted, max_sessions=1)
    config = manager.default_config(project)
    d = manager.dispatch
    with pytest.raises(ValidationFailed, match="git repository"):
        d.add_schedule("wt", "0 3 * * *", "p", config, worktree=True)
    await manager.create("hold", config)
    plain = await manager.create("x", config)
    d.add_schedule("urgent", "0 3 * * *", "p", config, priority=5)
    run = await d.run_schedule_now("urgent")
    assert [e.session_id for e in d.queued()] == [run.session_id, plain.session_id]
    edited = d.edit_schedule("urgent", priority=-1)
    assert edited.priority == -1 and edited.next_due == d.schedule("urgent").next_due
    with pytest.raises(ValidationFailed, match="git repository"):
        d.edit_schedule("urgent", worktree="w")
