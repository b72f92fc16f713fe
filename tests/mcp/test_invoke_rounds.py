"""invoke_claude_code's decisions over the fake driver (in memory), both protocol eras."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer
from tests.mcp.conftest import Answers, client


async def call(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    result = await c.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    out: dict[str, Any] = result.structured_content
    return out


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_declined_decision_comes_back_at_once_to_answer_by_hand(
    server: CctuiMCPServer, manager: SessionManager, project: Path, mode: str
) -> None:
    """No TUI: after the decline nobody would answer, so the call says so well before
    maxTime, with the input; claude_respond answers it and the task's record completes."""
    answers = Answers(action="decline")
    async with client(server, name="desk", elicit=answers, mode=mode) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        began = time.monotonic()
        out = await call(c, "invoke_claude_code", projectId="p", task="please write", maxTime=60)
        assert time.monotonic() - began < 15, out
        assert out["status"] == "waiting_for_input" and out["exitCode"] is None, out
        assert len(answers.asked) == 1 and "Write" in answers.asked[0]
        [pending] = out["pendingInputs"]
        assert pending["toolName"] == "Write" and pending["inputId"] in out["note"]
        assert "decline" in out["note"]
        sid = out["sessionId"]
        await call(c, "claude_respond", sessionId=sid, inputId=pending["inputId"], decision="allow")
        waited = await call(c, "claude_wait", sessionId=sid, timeoutMs=10_000)
        assert waited["status"] == "completed", waited
        for _ in range(50):
            status = await call(c, "get_project_status", projectId="p")
            if status["claudeCodeTasks"][0]["status"] != "running":
                break
            await anyio.sleep(0.1)
    [task] = status["claudeCodeTasks"]
    assert task["taskId"] == out["taskId"] and task["status"] == "completed", task
