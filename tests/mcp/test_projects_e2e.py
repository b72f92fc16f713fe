"""invoke_claude_code with the real ``claude`` CLI against the fake API, over real HTTP.

It drives the seed's whole flow (register -> write spec -> invoke -> checkpoint -> status)
in a git repository. A task that times out is ``tests/mcp/test_projects.py``'s (over the fake
driver, so its maxTime can be short); the real CLI stopped at a deadline is
``tests/core/test_runs.py``'s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cctui.mcp_server.transport.http import HttpService
from tests.helpers import git
from tests.mcp.conftest import Answers, authed, client, ok

pytestmark = pytest.mark.e2e


async def test_desktop_write_invoke_checkpoint_flow_in_a_repo(
    real_http: HttpService, project_dir: Path
) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    (project_dir / "existing.txt").write_text("one\n")
    (project_dir / ".gitignore").write_text(".claude/\n")
    git(project_dir, "add", "-A")
    git(project_dir, "commit", "-qm", "init")
    answers = Answers("accept", {"decision": "allow"})
    progress: list[str] = []

    async def on_progress(_p: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with client(authed(real_http), name="desktop", elicit=answers, mode="legacy") as c:
        reg = await ok(c, "register_project", {"name": "Web", "rootPath": str(project_dir)})
        pid = reg["projectId"]
        await ok(
            c,
            "write_to_project",
            {"projectId": pid, "filePath": "docs/spec.md", "content": "# Spec\nAdd src/new.txt\n"},
        )
        task = (
            "Implement the spec. [[write path=src/new.txt content=hello]] "
            "[[bash cmd=echo two >> existing.txt]]"
        )
        out = await ok(
            c,
            "invoke_claude_code",
            {"projectId": pid, "task": task, "contextFiles": ["docs/spec.md"], "maxTime": 120},
            progress_callback=on_progress,
        )
        await ok(c, "create_checkpoint", {"projectId": pid, "summary": "implemented"})
        status = await ok(c, "get_project_status", {"projectId": pid, "includeGitStatus": True})
    assert out["status"] == "completed" and out["exitCode"] == 0, out
    assert out["filesCreated"] == ["src/new.txt"]  # docs/spec.md predates the task
    assert out["filesModified"] == ["existing.txt"]
    assert (project_dir / "src" / "new.txt").read_text().strip() == "hello"
    assert (project_dir / "existing.txt").read_text() == "one\ntwo\n"
    assert out["summary"] and out["duration"] > 0 and out["sessionId"]
    assert any("Creating" in m and "new.txt" in m for m in progress), progress
    assert any(m.startswith("Running echo two") for m in progress), progress
    tag = f" [task {out['taskId']}, session {out['sessionId']}]"  # each notification's
    assert [u["message"] + tag for u in out["updates"]] == progress
    assert progress[0] == "Claude Code started" + tag
    assert len(answers.asked) == 2  # Write and Bash, both asked of this client
    tasks = status["claudeCodeTasks"]
    assert tasks[0]["taskId"] == out["taskId"] and tasks[0]["status"] == "completed"
    assert status["gitStatus"]["branch"] == "main"
    assert status["gitStatus"]["uncommitted"] == 3  # existing.txt, docs/spec.md, src/new.txt
    state = json.loads((project_dir / ".claude" / "session_state.json").read_text())
    record = state["claudeCodeTasks"][0]
    assert record["filesCreated"] == ["src/new.txt"] and record["sessionId"] == out["sessionId"]
    assert record["endTime"] and record["command"] == task
