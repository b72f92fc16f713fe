"""``claude_rewind_files`` through real MCP clients: in memory over FakeDriver, and over
Streamable HTTP with the real ``claude`` CLI against the fake API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer
from cctui.mcp_server.transport.http import HttpService
from tests.mcp.conftest import authed, call, client, error_body

PROMPT_0 = "[[write path=a.txt content=one\\ntwo]]"
PROMPT_1 = "[[write path=a.txt content=one\\nTWO\\nthree]] [[write path=b.txt content=bee]]"


async def two_turns(c: Any) -> str:
    sid: str = (await call(c, "claude_create_session", prompt="first"))["sessionId"]
    await call(c, "claude_wait", sessionId=sid, timeoutMs=5000)
    out = await call(c, "claude_send_message", sessionId=sid, message="second", wait=True)
    assert out["reason"] == "turn_ended", out
    return sid


async def test_listed_with_its_arguments(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        [tool] = [t for t in (await c.list_tools()).tools if t.name == "claude_rewind_files"]
    assert set(tool.input_schema["properties"]) == {
        "sessionId",
        "userMessageId",
        "promptIndex",
        "dryRun",
    }
    assert tool.annotations is not None and tool.annotations.destructive_hint is True


async def test_dry_run_then_rewind(server: CctuiMCPServer, manager: SessionManager) -> None:
    async with client(server, name="rewinder") as c:
        sid = await two_turns(c)
        preview = await call(c, "claude_rewind_files", sessionId=sid, promptIndex=1, dryRun=True)
        second = manager.prompts(sid)[1]
        assert preview["userMessageId"] == second.id and preview["prompt"] == "second"
        assert preview["files"] == ["hello.txt"] and preview["dryRun"] is True
        assert preview["rewound"] is False and "conversation is not rewound" in preview["note"]
        done = await call(c, "claude_rewind_files", sessionId=sid, userMessageId=second.id)
        assert done["rewound"] is True and done["promptIndex"] == 1
    [line] = [r for r in manager.audit.read() if r["event"] == "rewind"]
    assert line["by"] == "mcp:rewinder"


async def test_refusals_are_structured(server: CctuiMCPServer, manager: SessionManager) -> None:
    async with client(server) as c:
        sid = await two_turns(c)
        neither = error_body(await c.call_tool("claude_rewind_files", {"sessionId": sid}))
        assert neither["code"] == "validation_error" and "exactly one" in neither["message"]
        far = error_body(
            await c.call_tool("claude_rewind_files", {"sessionId": sid, "promptIndex": 9})
        )
        assert far["code"] == "validation_error" and "has 2 (0-1)" in far["message"]
        bad = await c.call_tool("claude_rewind_files", {"sessionId": sid, "promptIndex": -1})
        assert bad.is_error
    off = manager.default_config(None).model_copy(update={"file_checkpointing": False})
    info = await manager.create("x", off)
    await manager.wait(info.session_id, 2)
    async with client(server) as c:
        body = error_body(
            await c.call_tool(
                "claude_rewind_files", {"sessionId": info.session_id, "promptIndex": 0}
            )
        )
    assert body["code"] == "rewind_unavailable"
    assert "without file checkpointing" in body["message"] and body["suggestion"]


@pytest.mark.e2e
async def test_with_the_real_cli_over_http(real_http: HttpService, project_dir: Path) -> None:
    async with client(authed(real_http), name="e2e") as c:
        created = await call(
            c, "claude_create_session", prompt=PROMPT_0, permissionMode="acceptEdits"
        )
        sid = created["sessionId"]
        assert (await call(c, "claude_wait", sessionId=sid, timeoutMs=30000))["reason"] == (
            "turn_ended"
        )
        out = await call(
            c, "claude_send_message", sessionId=sid, message=PROMPT_1, wait=True, timeoutMs=30000
        )
        assert out["reason"] == "turn_ended", out
        preview = await call(c, "claude_rewind_files", sessionId=sid, promptIndex=1, dryRun=True)
        assert sorted(preview["files"]) == ["a.txt", "b.txt"]
        assert (preview["insertions"], preview["deletions"]) == (1, 3)
        assert (project_dir / "a.txt").read_text() == "one\nTWO\nthree"
        done = await call(c, "claude_rewind_files", sessionId=sid, promptIndex=1)
        assert done["rewound"] is True
        assert (project_dir / "a.txt").read_text() == "one\ntwo"
        assert not (project_dir / "b.txt").exists()
        status = await call(c, "claude_get_status", sessionId=sid)
        kinds = [e["kind"] for e in status.get("events", [])]
        assert "files_rewound" in kinds, kinds
