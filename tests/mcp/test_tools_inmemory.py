"""Tool logic through an in-memory client over a FakeDriver-backed manager (fast)."""

from __future__ import annotations

from cctui.mcp_server.server import CctuiMCPServer
from tests.mcp.conftest import Answers, client, ok


async def test_create_then_wait_returns_the_reply(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        s = await ok(c, "claude_create_session", {"prompt": "hello there"})
        sid = s["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["reason"] == "turn_ended"
        assert "hello there" in (w["reply"] or "")


async def test_write_is_approved_by_elicitation(server: CctuiMCPServer) -> None:
    answers = Answers(content={"decision": "allow"})
    async with client(server, elicit=answers) as c:
        s = await ok(c, "claude_create_session", {"prompt": "please write"})
        w = await ok(c, "claude_wait", {"sessionId": s["sessionId"], "timeoutMs": 5000})
        assert answers.asked and "Write" in answers.asked[0]
        assert w["answered"][0]["decidedBy"] == "mcp:tester"
        assert w["reason"] == "turn_ended", w
