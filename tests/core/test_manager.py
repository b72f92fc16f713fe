"""SessionManager over FakeDriver: state machine, events, pending inputs, limits, registry."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from cctui.core import (
    AssistantTextEvent,
    Decision,
    InputRequestedEvent,
    InputResolvedEvent,
    SessionEvent,
    SessionManager,
    SessionStatus,
    StatusChanged,
    ToolUseEvent,
)
from cctui.core.dispatch import DispatchRequest
from cctui.core.records import SessionRecords
from cctui.errors import (
    CliNotFound,
    InputAlreadyAnswered,
    InputNotFound,
    SessionLimitReached,
    SessionNotFound,
    ValidationFailed,
)
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import (
    FakeDriverFactory,
    Step,
    crash,
    exit_clean,
    fake_driver_factory,
    sleep,
    text,
    tool,
)

S = SessionStatus


def statuses(manager: SessionManager, sid: str) -> list[SessionStatus]:
    return [e.status for e in manager.events(sid).events if isinstance(e, StatusChanged)]


async def test_turn_completes_and_session_goes_idle(manager: SessionManager, project: Path) -> None:
    info = await manager.create("hello there", manager.default_config(project))
    assert info.title == "hello there"
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "turn_ended"
    assert outcome.session.status == S.IDLE
    assert outcome.session.last_result == "Echo: hello there"
    assert statuses(manager, info.session_id) == [S.STARTING, S.RUNNING, S.IDLE]
    assert outcome.session.total_cost_usd == pytest.approx(0.01)


async def test_pre_assigned_session_id_is_used(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid = "5117f92f-0000-4000-8000-000000000001"
    info = await manager.create("hi", manager.default_config(project), session_id=sid)
    assert info.session_id == sid
    assert factory.specs[0].session_id == sid
    with pytest.raises(ValidationFailed):
        await manager.create("hi", manager.default_config(project), session_id=sid)


async def test_text_deltas_merge_into_one_event_per_message(
    manager: SessionManager, project: Path
) -> None:
    info = await manager.create("a long echo message", manager.default_config(project))
    await manager.wait(info.session_id, 5)
    texts = [e for e in manager.events(info.session_id).events if isinstance(e, AssistantTextEvent)]
    assert len(texts) == 1
    assert texts[0].text == "Echo: a long echo message"
    assert texts[0].complete


async def test_buffer_since_and_missed(make_manager: MakeManager, project: Path) -> None:
    manager = make_manager(event_buffer_size=10)
    info = await manager.create("write", manager.default_config(project))
    sid = info.session_id
    [item] = (await manager.wait(sid, 5)).pending
    first = manager.events(sid)
    manager.respond(item.id, Decision(behavior="allow"), "tui")
    await manager.wait(sid, 5)
    for i in range(6):
        await manager.send(sid, f"msg {i}")
        await manager.wait(sid, 5)
    page = manager.events(sid, since=first.next_seq)
    assert page.missed
    seqs = [e.seq for e in page.events]
    assert seqs == sorted(seqs) and len(seqs) <= 10
    tail = manager.events(sid, since=page.next_seq)
    assert tail.events == [] and not tail.missed
    limited = manager.events(sid, since=page.oldest_seq - 1, limit=2)
    assert len(limited.events) == 2 and not limited.missed


async def test_write_permission_allowed(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    seen: list[SessionEvent] = []
    manager.subscribe(seen.append)
    info = await manager.create("please write", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "input_needed"
    assert outcome.session.status == S.WAITING_FOR_INPUT
    [item] = outcome.pending
    assert item.kind == "permission" and item.tool_name == "Write"
    assert item.expires_at is not None
    assert any(isinstance(e, InputRequestedEvent) and e.input.id == item.id for e in seen)
    manager.respond(item.id, Decision(behavior="allow"), "tui")
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "turn_ended"
    assert factory.drivers[0].answers[0].allow
    tools = [e for e in seen if isinstance(e, ToolUseEvent)]
    assert [t.state for t in tools] == ["running", "completed"]
    assert manager.tool_uses(info.session_id)[0].state == "completed"
    audit = manager.audit.read()
    assert audit[-1]["decision"] == "allow" and audit[-1]["decided_by"] == "tui"
    assert audit[-1]["tool"] == "Write" and audit[-1]["session_id"] == info.session_id


async def test_denied_tool_is_marked_denied(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("run bash", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    manager.decisions.router.note_created(info.session_id, "test", can_ask=False)
    manager.respond(item.id, Decision(behavior="deny", message="not now"), "mcp:test")
    await manager.wait(info.session_id, 5)
    answer = factory.drivers[0].answers[0]
    assert not answer.allow and answer.message == "not now"
    assert manager.tool_uses(info.session_id)[0].state == "denied"


async def test_two_channels_answering_at_once_one_wins(
    manager: SessionManager, project: Path
) -> None:
    info = await manager.create("write", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending

    async def answer(who: str, behavior: str) -> str:
        await asyncio.sleep(0)
        try:
            manager.respond(item.id, Decision(behavior=behavior), who)
        except InputAlreadyAnswered as exc:
            return "lost: " + exc.message
        return "won"

    results = await asyncio.gather(answer("tui", "allow"), answer("mcp:x", "deny"))
    assert sorted(r.split(":")[0] for r in results) == ["lost", "won"]
    assert "already answered" in next(r for r in results if r.startswith("lost"))
    with pytest.raises(InputAlreadyAnswered):
        manager.respond(item.id, Decision(behavior="allow"), "tui")
    with pytest.raises(InputNotFound):
        manager.respond("in_nope", Decision(behavior="allow"), "tui")
    decisions = [r for r in manager.audit.read() if r["event"] == "decision"]
    assert len(decisions) == 1


async def test_unanswered_input_times_out_as_deny(
    make_manager: MakeManager, project: Path, factory: FakeDriverFactory
) -> None:
    manager = make_manager(permission_timeout_ms=100)
    resolved: list[InputResolvedEvent] = []
    manager.subscribe(lambda e: resolved.append(e) if isinstance(e, InputResolvedEvent) else None)
    info = await manager.create("write", manager.default_config(project))
    await asyncio.sleep(0.3)
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "turn_ended"
    assert not factory.drivers[0].answers[0].allow
    assert resolved[0].decided_by == "timeout" and resolved[0].decision == "deny"
    assert manager.audit.read()[-1]["decided_by"] == "timeout"


async def test_inputs_are_withdrawn_when_the_session_ends(
    manager: SessionManager, project: Path
) -> None:
    info = await manager.create("write", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    killed = await manager.kill(info.session_id)
    assert killed.status == S.INTERRUPTED
    assert manager.pending() == []
    with pytest.raises(InputAlreadyAnswered, match="session-ended"):
        manager.respond(item.id, Decision(behavior="allow"), "tui")
    assert manager.audit.read()[-1]["decision"] == "withdrawn"


async def test_always_allow_without_a_rule_allows_only_this_exact_call(
    make_manager: MakeManager, project: Path
) -> None:
    """With no rule suggested by the CLI, `A` allows this exact call again, not the whole
    tool, and says so on the pending input before anyone presses it."""
    script: dict[str, list[Step]] = {
        "write a": [tool("Write", {"file_path": "a", "content": "x"}), text("ok")],
        "write b": [tool("Write", {"file_path": "b", "content": "x"}), text("ok")],
    }
    factory = fake_driver_factory(script)
    manager = make_manager(factory)
    await manager.start()
    info = await manager.create("write a", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    assert item.allow_for_session is not None
    assert "exact call" in item.allow_for_session and "`a`" in item.allow_for_session
    assert "kill or resume forgets" in item.allow_for_session
    manager.respond(item.id, Decision(behavior="allow", always=True), "tui")
    await manager.wait(info.session_id, 5)
    assert factory.drivers[0].answers[0].always
    await manager.send(info.session_id, "write a")
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "turn_ended" and outcome.pending == []
    assert len(factory.drivers[0].answers) == 2 and factory.drivers[0].answers[1].allow
    allowed = [r for r in manager.audit.read() if r.get("decided_by") == "always-allow"]
    assert allowed and allowed[-1]["detail"] == "a"
    await manager.send(info.session_id, "write b")
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "input_needed"  # another Write still asks
    assert outcome.pending[0].tool_input["file_path"] == "b"


async def test_allow_for_session_is_forgotten_when_the_process_ends(
    make_manager: MakeManager, project: Path
) -> None:
    """`A` lasts as long as the live process: after a kill and a resume the call asks again."""
    factory = fake_driver_factory({"write": [tool("Write", {"file_path": "a"}), text("ok")]})
    manager = make_manager(factory)
    await manager.start()
    info = await manager.create("write", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    manager.respond(item.id, Decision(behavior="allow", always=True), "tui")
    assert (await manager.wait(info.session_id, 5)).reason == "turn_ended"
    await manager.kill(info.session_id)
    await manager.send(info.session_id, "write")  # resumes in a new process
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "input_needed"


async def test_always_allow_never_takes_a_whole_tool_rule(
    make_manager: MakeManager, project: Path
) -> None:
    """A CLI suggestion for a whole tool (no rule content) is not sent back on `A`."""
    whole = {
        "type": "addRules",
        "rules": [{"toolName": "Bash"}],
        "behavior": "allow",
        "destination": "localSettings",
    }
    factory = fake_driver_factory(
        {"*": [tool("Bash", {"command": "ls"}, suggestions=(whole,)), text("ok")]}
    )
    manager = make_manager(factory)
    await manager.start()
    info = await manager.create("go", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    assert "exact call" in (item.allow_for_session or "")
    manager.respond(item.id, Decision(behavior="allow", always=True), "tui")
    await manager.wait(info.session_id, 5)
    assert factory.drivers[0].answers[0].suggestions == ()


async def test_plan_review_carries_the_plan_and_feedback(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("make a plan", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    assert item.kind == "plan_review" and item.plan is not None
    assert item.plan.startswith("# Plan")
    manager.respond(item.id, Decision(behavior="deny", message="Add tests first"), "tui")
    await manager.wait(info.session_id, 5)
    assert factory.drivers[0].answers[0].message == "Add tests first"


async def test_question_answers_go_back_as_updated_input(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("ask me", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    assert item.kind == "user_question"
    assert item.questions[0].question == "Which color do you prefer?"
    assert [o.label for o in item.questions[0].options] == ["Red", "Blue"]
    manager.respond(
        item.id, Decision(behavior="allow", answers={"Which color do you prefer?": "Blue"}), "tui"
    )
    await manager.wait(info.session_id, 5)
    answer = factory.drivers[0].answers[0]
    assert answer.updated_input is not None
    assert answer.updated_input["answers"] == {"Which color do you prefer?": "Blue"}
    assert answer.updated_input["questions"] == item.tool_input["questions"]


async def test_router_asks_a_waiting_client_first_and_can_hand_to_the_human(
    manager: SessionManager, project: Path
) -> None:
    requested: list[InputRequestedEvent] = []
    manager.subscribe(lambda e: requested.append(e) if isinstance(e, InputRequestedEvent) else None)
    router = manager.decisions.router
    manager.decisions.attach_human()  # a TUI is attached
    sid = str(uuid.uuid4())
    router.note_created(sid, "claude-code", can_ask=True)  # its own: it may be asked
    with router.waiting(sid, "claude-code", can_ask=True):
        await manager.create("write", manager.default_config(project), session_id=sid)
        [item] = (await manager.wait(sid, 5)).pending
    assert item.route == "client" and item.route_label == "claude-code"
    human = router.to_human(item.id)
    assert human.route == "human" and human.route_label is None
    assert manager.pending()[0].route == "human"
    assert [e.input.route for e in requested] == ["client", "human"]
    assert manager.events(sid).events[-1] == requested[-1]  # announced in the session too


async def test_a_client_that_cannot_ask_leaves_the_input_to_the_human(
    manager: SessionManager, project: Path
) -> None:
    sid = str(uuid.uuid4())
    detach = manager.decisions.attach_human()  # a TUI is attached
    with manager.decisions.router.waiting(sid, "plain-client", can_ask=False):
        await manager.create("write", manager.default_config(project), session_id=sid)
        [item] = (await manager.wait(sid, 5)).pending
    assert item.route == "human" and item.route_label is None
    detach()  # no TUI (cctui serve): nobody is asked, and the input says so
    sid = str(uuid.uuid4())
    with manager.decisions.router.waiting(sid, "plain-client", can_ask=False):
        await manager.create("write", manager.default_config(project), session_id=sid)
        [item] = (await manager.wait(sid, 5)).pending
    assert item.route == "nobody" and item.route_label is None


async def test_a_client_routed_input_goes_to_the_human_after_the_bound(
    manager: SessionManager, project: Path
) -> None:
    router = manager.decisions.router
    router.elicit_bound_s = 0.05
    manager.decisions.attach_human()  # a TUI is attached
    sid = str(uuid.uuid4())
    router.note_created(sid, "claude-code", can_ask=True)  # its own: it may be asked
    with router.waiting(sid, "claude-code", can_ask=True):
        await manager.create("write", manager.default_config(project), session_id=sid)
        [item] = (await manager.wait(sid, 5)).pending
    assert item.route == "client"
    await asyncio.sleep(0.2)
    [item] = manager.pending(sid)
    assert item.route == "human"
    assert router.claim([item], "claude-code") is None  # it gave up: never asked again


async def test_interrupt_stops_the_turn(manager: SessionManager, project: Path) -> None:
    info = await manager.create("slow please", manager.default_config(project))
    await asyncio.sleep(0.15)
    await manager.interrupt(info.session_id)
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.reason == "turn_ended"
    assert outcome.session.status == S.INTERRUPTED
    [metrics] = manager.metrics_snapshot().sessions
    assert (metrics.interrupted, metrics.errors) == (1, 0)  # asked for: not a failure
    await manager.send(info.session_id, "hi again")
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.session.status == S.IDLE
    assert outcome.session.last_result == "Echo: hi again"


async def test_interrupt_cancels_a_pending_input(manager: SessionManager, project: Path) -> None:
    info = await manager.create("write", manager.default_config(project))
    await manager.wait(info.session_id, 5)
    await manager.interrupt(info.session_id)
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.session.status == S.INTERRUPTED and manager.pending() == []


async def test_queued_messages_each_get_a_result(make_manager: MakeManager, project: Path) -> None:
    manager = make_manager(fake_driver_factory({"*": [sleep(0.05), text("ok")]}))
    info = await manager.create("one", manager.default_config(project))
    await manager.send(info.session_id, "two")
    await manager.send(info.session_id, "three")
    seen: list[SessionStatus] = []
    manager.subscribe(lambda e: seen.append(e.status) if isinstance(e, StatusChanged) else None)
    await asyncio.sleep(0.08)
    assert manager.get(info.session_id).status == S.RUNNING
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.reason == "turn_ended" and outcome.session.status == S.IDLE
    assert seen.count(S.IDLE) == 1


async def test_api_error_result_is_error_status(manager: SessionManager, project: Path) -> None:
    info = await manager.create("error please", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.session.status == S.ERROR
    assert outcome.session.error == "API Error: 400 fake 400"
    await manager.send(info.session_id, "again")
    assert (await manager.wait(info.session_id, 2)).session.status == S.IDLE


async def test_crash_is_error_and_resumable(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("crash now", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.reason == "session_ended"
    assert outcome.session.status == S.ERROR and "killed" in (outcome.session.error or "")
    assert not outcome.session.is_active
    await manager.send(info.session_id, "hello again")
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.session.status == S.IDLE
    assert outcome.session.session_id == info.session_id
    assert factory.specs[1].resume == info.session_id and factory.specs[1].session_id is None
    assert outcome.session.total_cost_usd == pytest.approx(0.01)  # the crash had no result


async def test_clean_exit_is_completed(make_manager: MakeManager, project: Path) -> None:
    manager = make_manager(fake_driver_factory({"*": [text("bye"), exit_clean()]}))
    info = await manager.create("x", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 2)
    if outcome.reason == "turn_ended":
        outcome = await manager.wait(info.session_id, 2)
    assert outcome.reason == "session_ended" and outcome.session.status == S.COMPLETED


async def test_max_sessions_limit(make_manager: MakeManager, project: Path) -> None:
    """Only working sessions hold a slot: idle ones do not; past the limit a create is
    queued (or refused when the caller says not to queue)."""
    manager = make_manager(max_sessions=2)
    await manager.start()
    a = await manager.create("slow", manager.default_config(project))
    await manager.create("slow", manager.default_config(project))
    with pytest.raises(SessionLimitReached):
        await manager.create(
            "slow", manager.default_config(project), dispatch=DispatchRequest(queue_when_full=False)
        )
    queued = await manager.create("hi", manager.default_config(project))
    assert queued.status == S.QUEUED and queued.dispatch is not None
    await manager.kill(a.session_id)
    outcome = await manager.wait(queued.session_id, 5)
    assert outcome.session.status in (S.RUNNING, S.IDLE), outcome
    idle = await manager.create(None, manager.default_config(project))
    assert idle.status == S.IDLE  # an idle session holds no slot, so it is never queued


async def test_create_errors(make_manager: MakeManager, project: Path, tmp_path: Path) -> None:
    broken = make_manager(fake_driver_factory(connect_error=CliNotFound("no claude here")))
    with pytest.raises(CliNotFound):
        await broken.create("x", broken.default_config(project))
    assert broken.list() == []
    with pytest.raises(ValidationFailed):
        await broken.create("x", broken.default_config(tmp_path / "missing"))
    with pytest.raises(SessionNotFound):
        await broken.send("00000000-0000-4000-8000-000000000000", "x")


async def test_registry_survives_a_restart(
    make_manager: MakeManager, project: Path, factory: FakeDriverFactory
) -> None:
    first = make_manager()
    config = first.default_config(project, team="red", tags=("a",))
    info = await first.create("remember me", config)
    await first.wait(info.session_id, 2)
    await first.shutdown()
    assert first.get(info.session_id).status == S.COMPLETED

    second = make_manager()
    await second.start()
    [old] = second.list()
    assert old.session_id == info.session_id and old.config.team == "red"
    assert old.title == "remember me" and old.total_cost_usd == pytest.approx(0.01)
    await second.send(info.session_id, "back again")
    outcome = await second.wait(info.session_id, 2)
    assert outcome.session.status == S.IDLE
    assert factory.specs[-1].resume == info.session_id
    assert factory.specs[-1].cwd == project


async def test_batched_saves_are_written_off_the_loop(
    make_manager: MakeManager, project: Path
) -> None:
    """A save fsyncs the registry, milliseconds on a real disk: the batched one is written
    in a worker thread while sessions go on, and shutdown waits for it, then writes last."""
    manager = make_manager()
    await manager.start()
    entered, release = threading.Event(), threading.Event()
    saved_on: list[int] = []
    save = manager.records.save

    def slow_save(records: Any, removed: Any = ()) -> None:
        saved_on.append(threading.get_ident())
        entered.set()
        release.wait(5)
        save(records, removed)

    manager.records.save = slow_save  # type: ignore[method-assign]
    info = await manager.create("remember me", manager.default_config(project))
    await manager.wait(info.session_id, 2)
    await asyncio.wait_for(asyncio.to_thread(entered.wait), 5)
    # The batched write is held in its thread; the loop runs on: another turn completes.
    await manager.send(info.session_id, "and again")
    assert (await manager.wait(info.session_id, 2)).reason == "turn_ended"
    release.set()
    await manager.shutdown()
    assert saved_on and saved_on[0] != threading.get_ident()
    [record] = SessionRecords(manager.settings.state_dir).load().values()
    assert record.total_cost_usd == pytest.approx(0.02)  # both turns reached the file


async def test_resume_unknown_session_from_transcript(
    make_manager: MakeManager, project: Path, tmp_path: Path, factory: FakeDriverFactory
) -> None:
    sid = "0c5e2f8e-1111-4222-8333-444455556666"
    transcripts = tmp_path / "claude" / "projects" / "-proj"
    transcripts.mkdir(parents=True)
    (transcripts / f"{sid}.jsonl").write_text(
        json.dumps({"type": "user", "cwd": str(project), "sessionId": sid}) + "\n"
    )
    manager = make_manager()
    info = await manager.send(sid, "hello")
    assert info.session_id == sid
    assert factory.specs[0].resume == sid and factory.specs[0].cwd == project


async def test_fork_gets_a_new_id(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("original", manager.default_config(project))
    await manager.wait(info.session_id, 2)
    forked = await manager.fork(info.session_id, "go on")
    assert forked.session_id != info.session_id
    spec = factory.specs[-1]
    assert spec.resume == info.session_id and spec.fork and spec.session_id == forked.session_id
    assert (await manager.wait(forked.session_id, 2)).session.status == S.IDLE


async def test_subscribe_fans_out_and_unsubscribes(manager: SessionManager, project: Path) -> None:
    a: list[SessionEvent] = []
    b: list[SessionEvent] = []
    manager.subscribe(a.append)
    unsubscribe = manager.subscribe(b.append)

    def broken(event: SessionEvent) -> None:
        raise RuntimeError("listener bug")

    manager.subscribe(broken)
    info = await manager.create("hi", manager.default_config(project))
    await manager.wait(info.session_id, 2)
    assert a == b and a
    unsubscribe()
    await manager.send(info.session_id, "more")
    await manager.wait(info.session_id, 2)
    assert len(a) > len(b)
    assert [e.seq for e in a] == sorted(e.seq for e in a)


async def test_wait_times_out(make_manager: MakeManager, project: Path) -> None:
    manager = make_manager(fake_driver_factory({"*": [sleep(2)]}))
    info = await manager.create("x", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 0.05)
    assert outcome.reason == "timeout" and outcome.session.status == S.RUNNING


async def test_max_execution_time_interrupts(make_manager: MakeManager, project: Path) -> None:
    manager = make_manager(fake_driver_factory({"*": [sleep(5)]}), max_execution_time_ms=100)
    info = await manager.create("x", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.session.status == S.INTERRUPTED


async def test_shutdown_ends_every_process(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    a = await manager.create("slow", manager.default_config(project))
    b = await manager.create(None, manager.default_config(project))
    await manager.shutdown()
    assert all(d.closed for d in factory.drivers)
    assert manager.get(a.session_id).status == S.INTERRUPTED
    assert manager.get(b.session_id).status == S.COMPLETED
    assert manager.list(active_only=True) == []


async def test_audit_tool_call_is_redacted(manager: SessionManager) -> None:
    manager.record_tool_call(
        "mcp:cli",
        "claude_send_message",
        {"message": "use ANTHROPIC_API_KEY=sk-ant-abcdefghijkl", "n": 1},
        outcome="ok",
        duration_ms=1.0,
    )
    [record] = manager.audit.read()
    assert record["tool"] == "claude_send_message" and record["client"] == "mcp:cli"
    assert "sk-ant-abcdefghijkl" not in str(record)


async def test_crash_script_step_with_custom_message(
    make_manager: MakeManager, project: Path
) -> None:
    manager = make_manager(fake_driver_factory({"*": [crash("boom", exit_code=1)]}))
    info = await manager.create("x", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 2)
    assert outcome.session.status == S.ERROR and outcome.session.error == "boom"


async def test_send_while_starting_waits_for_the_process(
    make_manager: MakeManager, project: Path
) -> None:
    gate = asyncio.Event()  # the process starts when the test has sent (not after 0.2 s)
    manager = make_manager(fake_driver_factory(connect_gate=gate))
    create = asyncio.create_task(manager.create(None, manager.default_config(project)))
    listed = asyncio.Event()
    manager.subscribe(lambda _ev: listed.set())  # the session's first event: it is listed
    await asyncio.wait_for(listed.wait(), 10)
    [starting] = manager.list()
    assert starting.status == S.STARTING and starting.is_active
    sent = asyncio.create_task(manager.send(starting.session_id, "early"))
    await asyncio.sleep(0.05)
    assert not sent.done()  # it waits for the process
    gate.set()
    await create
    await sent
    outcome = await manager.wait(starting.session_id, 10)
    assert outcome.session.last_result == "Echo: early"


async def test_tool_table_is_bounded_for_long_sessions(
    make_manager: MakeManager, project: Path
) -> None:
    """Status readers see the newest calls; a session with thousands of calls stays small."""
    from cctui.core.session import translate

    kept = translate._TOOLS_KEPT
    calls = [tool("Read", {"file_path": f"/f{i}"}, ask=False) for i in range(kept + 50)]
    manager = make_manager(fake_driver_factory({"*": [*calls, text("done")]}))
    await manager.start()
    info = await manager.create("read everything", manager.default_config(project))
    outcome = await manager.wait(info.session_id, 10)
    assert outcome.reason == "turn_ended"
    uses = manager.tool_uses(info.session_id)
    assert len(uses) == kept
    assert uses[-1].input_preview.endswith(f"/f{kept + 49}")


async def test_always_allow_with_cli_suggestions_leaves_the_rule_to_the_cli(
    make_manager: MakeManager, project: Path
) -> None:
    """`A` on a Bash ask that carries a rule suggestion does not allow every later command."""
    rule = {
        "type": "addRules",
        "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
        "behavior": "allow",
        "destination": "localSettings",
    }
    script: dict[str, list[Step]] = {
        "first": [tool("Bash", {"command": "npm test"}, suggestions=(rule,)), text("ok")],
        "second": [tool("Bash", {"command": "rm -rf build"}), text("ok")],
    }
    factory = fake_driver_factory(script)
    manager = make_manager(factory)
    await manager.start()
    info = await manager.create("first", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    assert "Bash(npm test *)" in (item.allow_for_session or "")
    manager.respond(item.id, Decision(behavior="allow", always=True), "tui")
    assert (await manager.wait(info.session_id, 5)).reason == "turn_ended"
    assert factory.drivers[0].answers[0].suggestions == (0,)
    await manager.send(info.session_id, "second")
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "input_needed"
    assert outcome.pending[0].tool_input == {"command": "rm -rf build"}


async def test_plan_review_shows_this_sessions_plan_file(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    """With an empty ExitPlanMode input (CLI 2.1.330), the plan is the file this session
    wrote, not the newest file in the plans directory (another session's)."""
    plans = tmp_path / "claude" / "plans"
    plans.mkdir(parents=True)
    mine, theirs = plans / "mine.md", plans / "theirs.md"
    mine.write_text("# My plan")
    theirs.write_text("# Their plan")
    os.utime(mine, (1, 1))  # theirs is the newest file
    script: dict[str, list[Step]] = {
        "*": [
            tool("Write", {"file_path": str(mine), "content": "# My plan"}, ask=False),
            tool("ExitPlanMode", {}),
            text("ok"),
        ]
    }
    manager = make_manager(fake_driver_factory(script))
    await manager.start()
    info = await manager.create("plan it", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    assert item.kind == "plan_review"
    assert item.plan == "# My plan"


async def test_question_answers_are_checked_against_the_options(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    info = await manager.create("ask me", manager.default_config(project))
    [item] = (await manager.wait(info.session_id, 5)).pending
    q = "Which color do you prefer?"
    for bad in ({q: "Green"}, {"Which pet?": "Red"}, {}):
        with pytest.raises(ValidationFailed):
            manager.respond(item.id, Decision(behavior="allow", answers=bad), "tui")
    assert [p.id for p in manager.pending()] == [item.id]  # still open, nothing lost
    manager.respond(item.id, Decision(behavior="allow", answers={q: "blue"}), "tui")
    await manager.wait(info.session_id, 5)
    answer = factory.drivers[0].answers[0]
    assert answer.updated_input is not None and answer.updated_input["answers"] == {q: "Blue"}


async def test_a_transcript_with_invalid_utf8_can_be_resumed(
    make_manager: MakeManager, project: Path, tmp_path: Path, factory: FakeDriverFactory
) -> None:
    sid = "0f0f0f0f-1111-4222-8333-444455556666"
    path = tmp_path / "claude" / "projects" / "-p" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    entry = {"type": "user", "cwd": str(project), "sessionId": sid, "message": "x"}
    path.write_bytes(b'{"type":"summary","summary":"caf\xe9 \xff"}\n' + json.dumps(entry).encode())
    manager = make_manager()
    await manager.start()
    info = await manager.send(sid, "go on")
    assert info.config.cwd == project
    assert factory.specs[-1].resume == sid


async def test_a_reachable_owner_is_asked_between_calls_and_falls_back_when_it_cannot(
    manager: SessionManager, project: Path
) -> None:
    """Seed 002 Flow A in the core: the session's owner, reachable through an asker, gets a
    new input at once; a decline, or an asker that cannot reach it, hands the input on
    (nobody, with no human attached)."""
    router = manager.decisions.router
    asked: list[str] = []

    async def allow(item: Any) -> Decision | None:
        asked.append(item.id)
        return Decision(behavior="allow")

    router.reach("desk", allow, "mcp:desk")
    sid = str(uuid.uuid4())
    router.note_created(sid, "desk", can_ask=True)
    resolved: list[InputResolvedEvent] = []
    manager.subscribe(lambda e: resolved.append(e) if isinstance(e, InputResolvedEvent) else None)
    await manager.create("write", manager.default_config(project), session_id=sid)
    for _ in range(5):
        if (await manager.wait(sid, 5)).reason == "turn_ended":
            break
    assert asked and [(r.decision, r.decided_by) for r in resolved] == [("allow", "mcp:desk")]

    async def decline(item: Any) -> Decision | None:
        return None

    async def unreachable(item: Any) -> Decision | None:
        raise ConnectionError("no channel")

    for asker in (decline, unreachable):
        router.reach("desk", asker, "mcp:desk")
        sid = str(uuid.uuid4())
        router.note_created(sid, "desk", can_ask=True)
        await manager.create("write", manager.default_config(project), session_id=sid)
        for _ in range(100):
            pending = manager.pending(sid)
            if pending and pending[0].route != "client":
                break
            await asyncio.sleep(0.02)
        [item] = manager.pending(sid)
        assert item.route == "nobody", (asker, item)


async def test_a_past_session_looked_at_keeps_its_times(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    """Looking a past session up (an MCP status read does) joins it as completed with the
    times its transcript began and was written, not now: it must not jump to the top as
    "now", nor be taken for a session started now. Reading its events (the TUI's preview)
    does not take it on at all: it has none."""
    sid = "0c5e2f8e-1111-4222-8333-444455557777"
    transcripts = tmp_path / "claude" / "projects" / "-proj"
    transcripts.mkdir(parents=True)
    path = transcripts / f"{sid}.jsonl"
    began = "2026-11-20T08:15:30.250Z"
    entries = [
        {"type": "summary", "summary": "an old chat", "leafUuid": "x"},
        {"type": "user", "cwd": str(project), "sessionId": sid, "timestamp": began},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    written = datetime.now(UTC) - timedelta(days=3)
    os.utime(path, (written.timestamp(), written.timestamp()))
    manager = make_manager()
    with pytest.raises(SessionNotFound):
        manager.events(sid, since=0)
    assert sid not in {i.session_id for i in manager.list()}
    info = manager.get(sid)
    assert info.status == S.COMPLETED
    assert abs((info.last_activity - written).total_seconds()) < 1
    assert info.created_at == datetime(2026, 11, 20, 8, 15, 30, 250000, tzinfo=UTC)
