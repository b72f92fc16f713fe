"""Decision routing, paging, resume, query and errors through an in-memory client (FakeDriver)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.types import LoggingMessageNotificationParams

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.mcp.conftest import Answers, client, error_body, ok


async def err(c: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    r = await c.call_tool(name, args)
    return error_body(r)


async def test_client_without_elicitation_answers_with_claude_respond(
    server: CctuiMCPServer,
) -> None:
    async with client(server, name="plain") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "please write"}))["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "input_needed"
        item = w["pendingInputs"][0]
        assert item["toolName"] == "Write" and item["asked"] == "nobody"  # no TUI attached
        assert "claude_respond" in w["note"]
        r = await ok(
            c, "claude_respond", {"sessionId": sid, "inputId": item["inputId"], "decision": "allow"}
        )
        assert r["decidedBy"] == "mcp:plain"
        again = await err(
            c, "claude_respond", {"sessionId": sid, "inputId": item["inputId"], "decision": "deny"}
        )
        assert again["code"] == "input_already_answered"
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "turn_ended"


async def test_deny_by_elicitation_reaches_the_session(server: CctuiMCPServer) -> None:
    answers = Answers("accept", {"decision": "deny", "reason": "not today"})
    async with client(server, elicit=answers) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "run bash"}))["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["answered"][0]["decision"] == "deny"
        status = await ok(c, "claude_get_status", {"sessionId": sid})
        assert [t["status"] for t in status["toolUseEvents"]] == ["denied"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_cancelled_elicitation_falls_back_to_the_human(
    server: CctuiMCPServer, mode: str
) -> None:
    answers = Answers("cancel")
    async with client(server, name="orchestrator", elicit=answers, mode=mode) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "please write"}))["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "input_needed" and "claude_respond" in w["note"]
        for _ in range(250):  # legacy: asked between calls (Flow A), perhaps still in flight
            item = (await ok(c, "claude_get_status", {"sessionId": sid}))["pendingInputs"][0]
            if item["asked"] != "client":
                break
            await asyncio.sleep(0.02)
        assert len(answers.asked) == 1
        assert item["asked"] == "nobody"  # no TUI attached: it waits for claude_respond
        # Not asked again for the same input.
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 300})
        assert len(answers.asked) == 1
        await ok(
            c, "claude_respond", {"sessionId": sid, "inputId": item["inputId"], "decision": "allow"}
        )
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "turn_ended"


async def test_send_message_waits_for_the_reply_and_resumes_ended_sessions(
    server: CctuiMCPServer,
) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "hi"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        killed = await ok(c, "claude_kill_session", {"sessionId": sid})
        assert killed["isActive"] is False
        w = await ok(
            c,
            "claude_send_message",
            {"sessionId": sid, "message": "second one", "wait": True, "timeoutMs": 5000},
        )
        assert w["reason"] == "turn_ended" and "second one" in w["reply"]
        sent = await ok(c, "claude_send_message", {"sessionId": sid, "message": "third"})
        assert sent["reason"] == "sent"


async def test_interrupt_stops_a_slow_turn(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "slow please"}))["sessionId"]
        await asyncio.sleep(0.3)
        out = await ok(c, "claude_interrupt", {"sessionId": sid})
        assert out["sessionId"] == sid and out["status"] == "interrupted"  # seed 002
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["session"]["state"] in ("interrupted", "idle")


async def test_since_seq_paging_misses_nothing(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "one"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        await ok(
            c,
            "claude_send_message",
            {"sessionId": sid, "message": "two", "wait": True, "timeoutMs": 5000},
        )
        full = await ok(c, "claude_get_status", {"sessionId": sid, "limit": 1000})
        seqs: list[int] = []
        since = 0
        while True:
            page = await ok(
                c, "claude_get_status", {"sessionId": sid, "sinceSeq": since, "limit": 3}
            )
            assert not page["missed"]
            seqs += [e["seq"] for e in page["events"]]
            since = page["nextSeq"]
            if not page["hasMore"]:
                break
        assert seqs == [e["seq"] for e in full["events"]]
        assert seqs == sorted(set(seqs))
        assert any("Echo: two" in line for line in full["recentOutput"])


async def test_query_streams_notifications_and_returns_the_bundle(server: CctuiMCPServer) -> None:
    logs: list[LoggingMessageNotificationParams] = []
    beats: list[str | None] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        beats.append(message)

    async with client(server, logging_callback=on_log, log_level="debug") as c:
        r = await c.call_tool(
            "claude_query",
            {"prompt": "hello query", "maxMessages": 2},
            progress_callback=on_progress,
        )
        out = r.structured_content
        assert out is not None and not r.is_error, r
        assert out["success"] and "hello query" in out["text"]
        assert out["totalMessages"] >= len(out["messages"]) == 2
        assert out["truncated"] is (out["totalMessages"] > 2)
        assert out["executionTimeMs"] >= 0
    assert beats and logs
    assert logs[0].logger == "claude-code/messages"


async def test_cancelled_query_interrupts_the_session(
    server: CctuiMCPServer, manager: SessionManager
) -> None:
    async with client(server) as c:
        with anyio.move_on_after(0.8):
            await c.call_tool("claude_query", {"prompt": "slow please"})
        await asyncio.sleep(0.5)
        [info] = manager.list()
        assert info.status in ("interrupted", "idle", "completed")


async def test_health_reports_a_missing_cli(
    manager: SessionManager, settings: Settings, tmp_path: Path
) -> None:
    broken = settings.model_copy(update={"claude_code_path": tmp_path / "nope" / "claude"})
    async with client(build_server(manager, broken)) as c:
        out = await ok(c, "claude_health", {})
        assert out["ok"] is False and "does not exist" in out["problem"]
        assert out["source"] == "setting claude_code_path"


async def test_tools_have_descriptions_schemas_and_annotations(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) >= {
        "claude_create_session",
        "claude_send_message",
        "claude_get_status",
        "claude_respond",
        "claude_interrupt",
        "claude_kill_session",
        "claude_wait",
        "claude_list_sessions",
        "claude_get_transcript",
        "claude_fork_session",
        "claude_query",
        "claude_health",
    }
    for tool in tools.values():
        assert tool.description and len(tool.description.splitlines()[0]) < 110
        assert tool.output_schema is not None and tool.annotations is not None
    assert "sessionId" in tools["claude_wait"].input_schema["properties"]
    assert "cp" not in tools["claude_wait"].input_schema["properties"]
    assert tools["claude_get_status"].annotations.read_only_hint is True  # type: ignore[union-attr]


async def test_list_and_fork(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "x", "team": "red"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        listed = await ok(c, "claude_list_sessions", {"team": "red"})
        assert [s["sessionId"] for s in listed["sessions"]] == [sid]
        assert listed["sessions"][0]["isActive"] is True
        assert (await ok(c, "claude_list_sessions", {"team": "blue"}))["sessions"] == []


MALFORMED: list[tuple[str, dict[str, Any]]] = [
    ("claude_create_session", {"maxTurns": 0}),
    ("claude_create_session", {"permissionMode": "yolo"}),
    ("claude_create_session", {"allowedTools": "Read"}),
    ("claude_send_message", {"sessionId": "x", "message": ""}),
    ("claude_send_message", {"sessionId": "", "message": "hi"}),
    ("claude_send_message", {"sessionId": "x", "message": "hi", "timeoutMs": 999999}),
    ("claude_get_status", {}),
    ("claude_get_status", {"sessionId": "x", "sinceSeq": -1}),
    ("claude_respond", {"sessionId": "x", "inputId": "y", "decision": "maybe"}),
    ("claude_respond", {"sessionId": "x", "decision": "allow"}),
    ("claude_interrupt", {"sessionId": 5}),
    ("claude_kill_session", {}),
    ("claude_wait", {"sessionId": "x", "timeoutMs": -5}),
    ("claude_wait", {"sessionId": None}),
    ("claude_list_sessions", {"limit": 0}),
    ("claude_get_transcript", {"sessionId": "x", "offset": -1}),
    ("claude_fork_session", {"sessionId": ["x"]}),
    ("claude_query", {}),
    ("claude_query", {"prompt": "x", "maxMessages": 0}),
    ("claude_health", {"unexpected": object.__name__}),
]


async def test_malformed_arguments_get_structured_errors_and_the_server_keeps_serving(
    server: CctuiMCPServer,
) -> None:
    async with client(server) as c:
        for name, args in MALFORMED:
            r = await c.call_tool(name, args)
            body = error_body(r)  # an unknown argument too (the SDK alone would drop it)
            assert body["code"] == "validation_error", (name, body)
            assert name in body["message"]
        for name in (
            "claude_get_status",
            "claude_interrupt",
            "claude_kill_session",
            "claude_wait",
            "claude_get_transcript",
            "claude_fork_session",
        ):
            body = await err(c, name, {"sessionId": "no-such-session"})
            assert body["code"] == "session_not_found", (name, body)
        assert not (await c.call_tool("claude_health", {})).is_error


@pytest.mark.parametrize("mode", ["auto"])
async def test_input_without_a_waiting_call_goes_to_the_human_and_the_owner_may_still_answer(
    server: CctuiMCPServer, manager: SessionManager, mode: str
) -> None:
    """Nobody waits on the session and the creator cannot be asked between calls (a
    2026-07-28 connection): the human sees it at once; the creator, when it comes to wait,
    is asked too, and the first answer wins."""
    manager.decisions.attach_human()  # a TUI is attached
    routes: list[str] = []
    manager.subscribe(
        lambda e: routes.append(e.input.route) if e.kind == "input_requested" else None
    )
    answers = Answers("accept", {"decision": "allow"})
    async with client(server, name="owner", elicit=answers, mode=mode) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "please write"}))["sessionId"]
        for _ in range(100):
            if manager.pending(sid):
                break
            await asyncio.sleep(0.02)
        [item] = manager.pending(sid)
        assert item.route == "human" and routes == ["human"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert len(answers.asked) == 1
        assert w["answered"][0]["decision"] == "allow"
        assert routes == ["human"]  # the TUI was never told to pop a second modal
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "turn_ended"


async def test_the_creator_is_asked_between_calls_when_its_connection_allows(
    server: CctuiMCPServer, manager: SessionManager
) -> None:
    """Seed 002 Flow A (2025-11-25): nobody waits on the session, and its creator is asked
    at once by an elicitation outside any call; the TUI never pops a modal for it."""
    manager.decisions.attach_human()  # a TUI is attached
    routes: list[str] = []
    manager.subscribe(
        lambda e: routes.append(e.input.route) if e.kind == "input_requested" else None
    )
    answers = Answers("accept", {"decision": "allow"})
    async with client(server, name="owner", elicit=answers, mode="legacy") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "please write"}))["sessionId"]
        for _ in range(250):
            if answers.asked and not manager.pending(sid):
                break
            await asyncio.sleep(0.02)
        assert len(answers.asked) == 1 and routes == ["client"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "turn_ended" and len(answers.asked) == 1


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_waited_ms_is_the_time_the_call_waited(server: CctuiMCPServer, mode: str) -> None:
    async with client(server, mode=mode) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "slow please"}))["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 1000})
        assert w["timed_out"] is True and 900 <= w["waited_ms"] < 5000, w
