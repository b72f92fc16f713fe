"""claude_query's decisions over the fake driver (in memory), both protocol eras.

A 2026-07-28 (default-mode) client is asked through an input-required round and the run
goes on when it retries; a client nobody can ask gets the input back at once (no TUI here)
instead of waiting into the permission timeout (20 s in these settings).
"""

from __future__ import annotations

import time

import anyio
import pytest
from mcp.types import (
    ElicitResult,
    InputRequiredResult,
    InputResponses,
    LoggingMessageNotificationParams,
)

from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer
from tests.mcp.conftest import Answers, call, client, error_body


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_eliciting_client_is_asked_and_the_run_goes_on(
    server: CctuiMCPServer, manager: SessionManager, mode: str
) -> None:
    """The Bash permission is asked of the caller (an input-required round on auto), the
    run continues with the answer, and the messages of every round come back and are
    notified once each."""
    answers = Answers("accept", {"decision": "allow"})
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with client(
        server, name="desk", elicit=answers, mode=mode, logging_callback=on_log, log_level="debug"
    ) as c:
        began = time.monotonic()
        out = await call(c, "claude_query", prompt="please bash")
        assert time.monotonic() - began < 10, out
    assert len(answers.asked) == 1 and "Bash" in answers.asked[0], answers.asked
    assert out["result"]["success"] is True, out
    assert out["result"]["summary"] == "Ran it." and out["pendingInputs"] == []
    texts = [m["text"] for m in out["messages"]]
    assert "Running a command." in texts and "Ran it." in texts  # both sides of the round
    notified = [p.data["sequence"] for p in logs if p.logger == "claude-code/messages"]
    assert notified == sorted(set(notified)), notified
    assert set(notified) == {m["seq"] for m in out["messages"]}
    assert manager.get(out["sessionId"]).is_active is False  # the process ended with the run


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_client_nobody_can_ask_gets_the_input_at_once(
    server: CctuiMCPServer, manager: SessionManager, mode: str
) -> None:
    """No elicitation, no TUI: the call returns well before the permission timeout with
    the input and how to answer it; claude_respond answers it, and the run still ends its
    process when its turn ends."""
    async with client(server, name="plain", mode=mode) as c:
        began = time.monotonic()
        out = await call(c, "claude_query", prompt="please bash")
        assert time.monotonic() - began < 10, out
        assert out["result"]["success"] is False, out
        [pending] = out["pendingInputs"]
        sid = out["sessionId"]
        assert pending["toolName"] == "Bash" and pending["asked"] == "nobody"
        assert "claude_respond" in out["result"]["error"] and pending["inputId"] in out["error"]
        await call(c, "claude_respond", sessionId=sid, inputId=pending["inputId"], decision="allow")
        waited = await call(c, "claude_wait", sessionId=sid, timeoutMs=10_000)
        assert waited["reason"] in ("turn_ended", "session_ended"), waited
        assert waited["response"] == "Ran it.", waited
    for _ in range(100):  # the supervisor ends the process just after the turn
        if not manager.get(sid).is_active:
            break
        await anyio.sleep(0.05)
    assert manager.get(sid).is_active is False


async def test_a_retry_from_another_client_is_told_whose_run_it_is(
    server: CctuiMCPServer,
) -> None:
    args = {"prompt": "please bash"}
    async with (
        client(server, name="desk", elicit=Answers()) as c,
        client(server, name="other", elicit=Answers()) as other,
    ):
        first = await c.session.call_tool("claude_query", args, allow_input_required=True)
        assert isinstance(first, InputRequiredResult), first
        answer: InputResponses = {
            "decision": ElicitResult(action="accept", content={"decision": "allow"})
        }
        retry = await other.call_tool(
            "claude_query", args, input_responses=answer, request_state=first.request_state
        )
        body = error_body(retry)
        assert "the client that started it (desk)" in body["message"], body
        mine = await c.call_tool(
            "claude_query", args, input_responses=answer, request_state=first.request_state
        )
        assert not mine.is_error and mine.structured_content["success"] is True, mine
