"""Metrics: counted from the events the core publishes, and from recorded MCP tool calls."""

from __future__ import annotations

from pathlib import Path

from cctui.claude.frames import AssistantText
from cctui.core.manager import SessionManager
from cctui.core.metrics import Metrics
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import Step, emit, fail, fake_driver_factory, text


async def _turn(manager: SessionManager, sid: str) -> None:
    outcome = await manager.wait(sid, 5)
    assert outcome.reason == "turn_ended", outcome


async def test_per_session_counts_follow_the_conversation(
    make_manager: MakeManager, project: Path
) -> None:
    script: dict[str, list[Step]] = {
        # One message with two text blocks: its text event grows, each character counts once.
        "twice": [emit(AssistantText("m1", "Hello")), emit(AssistantText("m1", "world!"))],
        "bad": [fail("API Error: 500")],
        "*": [text("four")],
    }
    manager = make_manager(fake_driver_factory(script))
    await manager.start()
    a = await manager.create("say twice", manager.default_config(project))
    await _turn(manager, a.session_id)
    await manager.send(a.session_id, "again")
    await _turn(manager, a.session_id)
    await manager.send(a.session_id, "bad")
    await manager.wait(a.session_id, 5)
    b = await manager.create(None, manager.default_config(project, title="quiet"))
    await manager.kill(a.session_id)
    await manager.send(a.session_id, "resumed")  # a second process for a
    await _turn(manager, a.session_id)

    snap = manager.metrics_snapshot()
    m = next(s for s in snap.sessions if s.session_id == a.session_id)
    assert m.messages_sent == 4
    assert m.chars_in == len("say twice") + len("again") + len("bad") + len("resumed")
    assert m.replies == 4 and m.errors == 1
    assert m.chars_out == len("Hello\n\nworld!") + 2 * len("four")
    assert m.assistant_messages == 3
    assert m.processes_started == 2
    assert m.cost_usd == manager.get(a.session_id).total_cost_usd > 0
    assert m.turn_duration.count == 4
    assert m.title == "say twice"
    quiet = next(s for s in snap.sessions if s.session_id == b.session_id)
    assert quiet.messages_sent == 0 and quiet.title == "quiet"
    assert snap.sessions_started == 2  # a and b; the resume is a process, not a session
    assert snap.processes_started == 3
    assert snap.messages_sent == 4 and snap.chars_in == m.chars_in
    # Most recently active first.
    assert snap.sessions[0].session_id == a.session_id


async def test_forks_count_as_started_sessions(manager: SessionManager, project: Path) -> None:
    a = await manager.create("one", manager.default_config(project))
    await _turn(manager, a.session_id)
    await manager.fork(a.session_id, "two")
    assert manager.metrics_snapshot().sessions_started == 2


def test_tool_calls_errors_and_percentiles() -> None:
    metrics = Metrics()
    for ms in range(1, 101):  # 1..100 ms
        metrics.tool_call("claude_get_status", "ok", float(ms), retry=False)
    metrics.tool_call("claude_send_message", "session_not_found", 5.0, retry=False)
    metrics.tool_call("claude_wait", "input_required", 40.0, retry=False)
    metrics.tool_call("claude_wait", "ok", 7.0, retry=True)  # the same call, answered
    metrics.tool_call("claude_query", "cancelled", 9.0, retry=False)
    snap = metrics.snapshot()
    tools = {t.tool: t for t in snap.tools}
    status = tools["claude_get_status"].latency
    assert tools["claude_get_status"].calls == 100 and tools["claude_get_status"].errors == 0
    assert (status.p50_ms, status.p90_ms, status.p99_ms, status.max_ms) == (50, 90, 99, 100)
    assert status.mean_ms == 50.5 and status.last_ms == 100
    assert tools["claude_send_message"].errors == 1
    wait = tools["claude_wait"]
    assert wait.calls == 1 and wait.errors == 0 and wait.latency.count == 1
    assert wait.latency.last_ms == 7.0
    assert tools["claude_query"].errors == 1
    assert snap.tool_calls == 103 and snap.tool_errors == 2
    assert snap.latency.count == 103
    assert snap.tools[0].tool == "claude_get_status"  # busiest first


def test_percentiles_use_a_bounded_window() -> None:
    metrics = Metrics()
    for _ in range(5000):
        metrics.tool_call("t", "ok", 1000.0, retry=False)
    for _ in range(1000):
        metrics.tool_call("t", "ok", 1.0, retry=False)
    latency = metrics.snapshot().tools[0].latency
    assert latency.count == 6000 and latency.max_ms == 1.0  # only the newest 1000 samples


async def test_recorded_calls_reach_the_audit_log_and_the_metrics(
    manager: SessionManager,
) -> None:
    manager.record_tool_call(
        "mcp:x", "claude_wait", {"sessionId": "s"}, outcome="input_required", duration_ms=3.21
    )
    manager.record_tool_call(
        "mcp:x", "claude_wait", {"sessionId": "s"}, outcome="ok", duration_ms=4.0, retry=True
    )
    first, retry = manager.audit.read()
    assert first["event"] == "tool_call" and first["arguments"] == {"sessionId": "s"}
    assert first["outcome"] == "input_required" and first["duration_ms"] == 3.2
    assert retry["event"] == "tool_call_retry" and "arguments" not in retry
    assert retry["outcome"] == "ok" and retry["client"] == "mcp:x"
    [tool] = manager.metrics_snapshot().tools
    assert tool.calls == 1 and tool.latency.count == 1
