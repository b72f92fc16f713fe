"""invoke_claude_code with default-mode (2026-07-28) clients: the real ``claude`` CLI against
the fake API, over real HTTP.

A 2026-07-28 server cannot ask mid-call: the task's decisions ride input-required rounds and
the task goes on when the client retries with the answers. A client that cannot be asked
gets ``waiting_for_input`` at once (no TUI here), with what to answer through claude_respond.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from cctui.mcp_server.transport.http import HttpService
from tests.helpers import git
from tests.mcp.conftest import Answers, authed, client, ok

pytestmark = pytest.mark.e2e

COMMIT = "git add src && git -c user.name=t -c user.email=t@t commit -qm add"


def repo(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    (root / "existing.txt").write_text("one\n")
    (root / ".gitignore").write_text(".claude/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")


async def test_a_default_mode_client_is_asked_and_committed_files_are_reported(
    real_http: HttpService, project_dir: Path
) -> None:
    """Two decisions (Write, then Bash committing it), each an input-required round."""
    repo(project_dir)
    answers = Answers("accept", {"decision": "allow"})
    progress: list[str] = []

    async def on_progress(_p: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with client(authed(real_http), name="desktop", elicit=answers) as c:  # mode="auto"
        await ok(c, "register_project", {"name": "p", "rootPath": str(project_dir), "id": "p"})
        task = f"[[write path=src/a.txt content=hi]] [[bash cmd={COMMIT}]]"
        out = await ok(
            c,
            "invoke_claude_code",
            {"projectId": "p", "task": task, "maxTime": 90},
            progress_callback=on_progress,
        )
        status = await ok(c, "get_project_status", {"projectId": "p"})
    assert out["status"] == "completed" and out["exitCode"] == 0, out
    assert (project_dir / "src" / "a.txt").read_text().strip() == "hi"
    assert git(project_dir, "log", "--format=%s", "-1").strip() == "add"  # it was committed
    assert out["filesCreated"] == ["src/a.txt"], out
    assert out["filesModified"] == [] and out["filesDeleted"] == []
    assert len(answers.asked) == 2, answers.asked
    assert "Write" in answers.asked[0] and "Bash" in answers.asked[1]
    assert out["duration"] < 80
    # Every notification names the session and the task (a client can answer or look it up).
    assert progress and all(out["sessionId"] in m and out["taskId"] in m for m in progress)
    assert any("Creating" in m and "a.txt" in m for m in progress), progress
    [record] = status["claudeCodeTasks"]
    assert record["taskId"] == out["taskId"] and record["status"] == "completed"


async def test_a_client_that_cannot_be_asked_gets_the_input_at_once(
    real_http: HttpService, project_dir: Path
) -> None:
    """No elicitation and no TUI: waiting_for_input well before maxTime; claude_respond
    answers it, the task finishes, and its record is completed all the same."""
    async with client(authed(real_http), name="plain") as c:  # mode="auto", no elicitation
        await ok(c, "register_project", {"name": "p", "rootPath": str(project_dir), "id": "p"})
        began = time.monotonic()
        out = await ok(
            c,
            "invoke_claude_code",
            {"projectId": "p", "task": "[[write path=b.txt content=yes]]", "maxTime": 120},
        )
        assert time.monotonic() - began < 60, out
        assert out["status"] == "waiting_for_input", out
        [pending] = out["pendingInputs"]
        assert pending["toolName"] == "Write"
        assert pending["toolInput"]["file_path"].endswith("b.txt")
        sid = out["sessionId"]
        assert pending["inputId"] in out["note"] and sid in out["note"]
        await ok(
            c,
            "claude_respond",
            {"sessionId": sid, "inputId": pending["inputId"], "decision": "allow"},
        )
        waited = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 50_000})
        assert waited["status"] == "completed", waited
        record: dict[str, Any] = {}
        for _ in range(100):  # the task's own record is closed when its turn ends
            state = json.loads((project_dir / ".claude" / "session_state.json").read_text())
            record = state["claudeCodeTasks"][0]
            if record["status"] != "running":
                break
            await anyio.sleep(0.1)
    assert (project_dir / "b.txt").read_text().strip() == "yes"
    assert record["taskId"] == out["taskId"] and record["status"] == "completed", record
    assert record["filesCreated"] == ["b.txt"]
