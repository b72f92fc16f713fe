"""Worktree and diff tools through a real MCP client (in memory), over a manager running
the real ``claude`` against the fake API, in a temporary git repository."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.helpers import git
from tests.mcp.conftest import client, ok

pytestmark = pytest.mark.e2e


@pytest.fixture
def repo(project_dir: Path) -> Path:
    git(project_dir, "init", "-q", "-b", "main")
    git(project_dir, "config", "user.name", "Test")
    git(project_dir, "config", "user.email", "t@example.com")
    (project_dir / "f.txt").write_text("base\n")
    git(project_dir, "add", "f.txt")
    git(project_dir, "commit", "-qm", "first")
    return project_dir


@pytest.fixture
async def server(real_settings: Settings) -> AsyncIterator[CctuiMCPServer]:
    manager = SessionManager(real_settings)
    await manager.start()
    yield build_server(manager, real_settings)
    await manager.shutdown()


async def fails(c: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    r = await c.call_tool(name, args)
    assert r.is_error, r.structured_content
    error: dict[str, Any] = json.loads(r.content[0].text)
    return error


async def session(c: Any, repo: Path, name: str, content: str) -> str:
    args = {
        "prompt": f"[[write path=f.txt content={content}\\n]]",
        "workingDirectory": str(repo),
        "permissionMode": "acceptEdits",
        "worktree": name,
    }
    sid: str = (await ok(c, "claude_create_session", args))["sessionId"]
    out = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 30000})
    assert out["reason"] == "turn_ended", out
    return sid


async def test_worktree_tools_through_a_client(
    server: CctuiMCPServer, repo: Path, tmp_path: Path
) -> None:
    async with client(server, name="wt") as c:
        a = await session(c, repo, "one", "from one")
        b = await session(c, repo, "two", "from two")
        status = await ok(c, "claude_get_status", {"sessionId": a})
        wt = status["session"]["worktree"]
        assert wt["branch"] == "worktree-one" and wt["baseBranch"] == "main"
        assert wt["state"] == "active" and wt["path"].endswith(".claude/worktrees/one")

        stat = await ok(c, "claude_get_diff", {"sessionId": a, "stat": True})
        assert stat["diff"] is None and stat["baseKind"] == "merge-base"
        assert stat["files"] == [{"path": "f.txt", "status": "M", "added": 1, "removed": 1}]
        full = await ok(c, "claude_get_diff", {"sessionId": b, "maxBytes": 1000})
        assert "+from two" in full["diff"] and not full["truncated"]

        merged = await ok(c, "claude_finish_worktree", {"sessionId": a, "action": "merge"})
        assert merged["worktree"]["state"] == "merged" and merged["fastForward"] is True
        assert (repo / "f.txt").read_text() == "from one\n"

        conflict = await fails(c, "claude_finish_worktree", {"sessionId": b, "action": "merge"})
        assert conflict["code"] == "merge_conflict" and "f.txt" in conflict["message"]
        refused = await fails(c, "claude_finish_worktree", {"sessionId": b, "action": "discard"})
        assert refused["code"] == "worktree_refused" and "f.txt" in refused["message"]
        gone = await ok(
            c, "claude_finish_worktree", {"sessionId": b, "action": "discard", "force": True}
        )
        assert gone["removed"] and gone["worktree"]["state"] == "discarded"
        assert (repo / "f.txt").read_text() == "from one\n"

        plain = tmp_path / "plain"
        plain.mkdir()
        error = await fails(
            c,
            "claude_create_session",
            {"prompt": "hi", "workingDirectory": str(plain), "worktree": True},
        )
        assert error["code"] == "not_a_git_repository"
        bad = await fails(
            c, "claude_create_session", {"workingDirectory": str(repo), "worktree": "../x"}
        )
        assert bad["code"] == "validation_error"
