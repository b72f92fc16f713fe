"""Project tools through a real MCP client: cctui's own state is not writable, a write's
result is not hidden by its bookkeeping, git status follows commits wherever git keeps its
files, seed fields are always present, and odd elicitation answers cancel cleanly."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.content import first_text
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.helpers import git
from tests.mcp.conftest import Answers, call, client, error_body


@pytest.fixture
def settings(tmp_path: Path, project: Path) -> Settings:
    return make_settings(
        tmp_path, default_cwd=project, projects_config=tmp_path / "claude" / "projects.json"
    )


@pytest.fixture
async def server(settings: Settings, factory: FakeDriverFactory) -> AsyncIterator[CctuiMCPServer]:
    m = SessionManager(settings, driver_factory=factory)
    await m.start()
    yield build_server(m, settings)
    await m.shutdown()


async def fails(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    return error_body(await c.call_tool(tool, args))


# -- cctui's session state -------------------------------------------------------------------

STATE_PATHS = [
    ".claude/session_state.json",
    ".claude/session_state.json.lock",
    ".claude/session_state.json.corrupt-20250101T000000Z-abcd1234",
    ".claude/.session_state.json.0123456789ab.tmp",
    ".CLAUDE/Session_State.JSON",  # the same file on macOS' case-insensitive filesystem
    "./.claude//session_state.json",
    "state_link/session_state.json",  # a link to .claude inside the project
    ".claude/session_state.json/x",  # would turn the state file into a directory
]


async def test_state_files_are_not_writable(server: CctuiMCPServer, project: Path) -> None:
    (project / "state_link").symlink_to(".claude")
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        await call(c, "create_checkpoint", projectId="p", summary="first")
        state_file = project / ".claude" / "session_state.json"
        before = state_file.read_bytes()
        for rel in STATE_PATHS:
            body = await fails(
                c, "write_to_project", projectId="p", filePath=rel, content="{}", overwrite=True
            )
            assert body["code"] == "path_outside_project", (rel, body)
            assert "session state" in body["message"] and "create_checkpoint" in body["suggestion"]
        assert state_file.read_bytes() == before
        # Other files in .claude/ are the project's (CLAUDE.md, settings, commands...).
        ok = await call(
            c, "write_to_project", projectId="p", filePath=".claude/notes.md", content="n"
        )
        assert ok["action"] == "created" and ok["note"] is None
        second = await call(c, "create_checkpoint", projectId="p", summary="second")
        status = await call(c, "get_project_status", projectId="p")
    assert second["checkpoints"] == 2 and status["checkpoints"] == 2
    assert status["recentFiles"][0] == ".claude/notes.md"


async def test_a_write_that_cannot_be_recorded_still_reports_the_write(
    server: CctuiMCPServer, project: Path
) -> None:
    (project / ".claude").mkdir()
    bad = project / ".claude" / "session_state.json"
    bad.write_text("{oops")
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        out = await call(c, "write_to_project", projectId="p", filePath="a.txt", content="hello")
    assert out["success"] is True and out["action"] == "created" and out["bytes"] == 5
    assert (project / "a.txt").read_text() == "hello"
    assert "written" in out["note"] and "not recorded" in out["note"]
    assert "corrupt" in out["note"]
    assert bad.read_text() == "{oops"  # still left for a human


# -- git status where .git is not root/.git ---------------------------------------------------


async def _until(c: Any, project_id: str, wanted: int) -> None:
    got = None
    for _ in range(200):
        out = await call(c, "get_project_status", projectId=project_id, includeGitStatus=True)
        got = out["gitStatus"]["uncommitted"]
        if got == wanted:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"uncommitted stayed {got}, never {wanted}")


@pytest.mark.parametrize("where", ["subdirectory", "worktree"])
async def test_git_status_follows_commits_below_the_top_and_in_worktrees(
    server: CctuiMCPServer, tmp_path: Path, where: str
) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text(".claude/\n")
    (repo / "sub" / "x.txt").write_text("x")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    if where == "worktree":
        git(repo, "worktree", "add", "-q", "-b", "wt", str(tmp_path / "wt"))
        root, top = tmp_path / "wt", tmp_path / "wt"
        assert (root / ".git").is_file()
    else:
        root, top = repo / "sub", repo
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(root), id="p")
        await _until(c, "p", 0)  # the watcher is up
        (root / "new.txt").write_text("n")  # seen by the watcher
        await _until(c, "p", 1)
        git(top, "add", "-A")
        git(top, "commit", "-qm", "more")  # touches only git's files, outside the root
        await _until(c, "p", 0)


# -- seed fields -----------------------------------------------------------------------------


async def test_the_session_resource_always_has_a_session_id(
    server: CctuiMCPServer, project: Path
) -> None:
    async with client(server) as c:
        await call(c, "register_project", name="plain", rootPath=str(project), id="plain")
        fresh = json.loads(first_text(await c.read_resource("claude-code://plain/session")))
        await call(c, "create_checkpoint", projectId="plain", summary="s")
        after = json.loads(first_text(await c.read_resource("claude-code://plain/session")))
    assert "sessionId" in fresh and fresh["sessionId"] is None
    assert after["sessionId"] is None and after["checkpoints"][0]["summary"] == "s"


async def test_the_session_resource_names_the_newest_task_session(
    server: CctuiMCPServer, project: Path
) -> None:
    def task(n: int, session: str | None) -> dict[str, Any]:
        t: dict[str, Any] = {"taskId": f"task_{n}", "status": "completed", "command": "c"}
        t["startTime"] = f"2025-01-20T14:3{n}:00Z"
        return t | ({"sessionId": session} if session else {})

    state = project / ".claude" / "session_state.json"
    state.parent.mkdir()
    tasks = [task(1, "sess-old"), task(2, "sess-new"), task(3, None)]  # task 3 still starting
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        state.write_text(json.dumps({"claudeCodeTasks": tasks}))
        from_tasks = json.loads(first_text(await c.read_resource("claude-code://p/session")))
        state.write_text(json.dumps({"sessionId": "sess_abc123", "claudeCodeTasks": tasks}))
        own = json.loads(first_text(await c.read_resource("claude-code://p/session")))
    assert from_tasks["sessionId"] == "sess-new"
    assert own["sessionId"] == "sess_abc123"  # the state's own (seed 000) wins


async def test_registry_entries_always_have_a_default_branch(
    server: CctuiMCPServer, project: Path, tmp_path: Path, settings: Settings
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "feature/x")
    async with client(server) as c:
        await call(c, "register_project", name="plain", rootPath=str(project), id="plain")
        await call(c, "register_project", name="repo", rootPath=str(repo), id="repo")
    assert settings.projects_config is not None
    entries = json.loads(settings.projects_config.read_text())["projects"]
    by_id = {e["id"]: e for e in entries}
    assert "defaultBranch" in by_id["plain"] and by_id["plain"]["defaultBranch"] is None
    assert by_id["repo"]["defaultBranch"] == "feature/x"  # no commit yet: still the branch


# -- elicitation answers that do not fit the form ----------------------------------------------


@pytest.mark.parametrize("content", [{"choice": "bogus"}, {}, {"other": 1}])
async def test_an_answer_outside_the_form_cancels(
    server: CctuiMCPServer, project: Path, content: dict[str, Any]
) -> None:
    (project / "f.txt").write_text("old")
    answers = Answers(content=content)
    async with client(server, elicit=answers, mode="legacy") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        body = await fails(c, "write_to_project", projectId="p", filePath="f.txt", content="new")
        dup = await fails(c, "register_project", name="q", rootPath=str(project), id="p")
    assert len(answers.asked) == 2
    assert body["code"] == dup["code"] == "cancelled"
    assert "did not fit" in body["message"] and "overwrite, append, cancel" in body["message"]
    assert (project / "f.txt").read_text() == "old"


@pytest.mark.parametrize("content", [{"choice": "bogus"}, {}, {"other": 1}])
async def test_an_answer_outside_the_form_cancels_on_2026_07_28(
    server: CctuiMCPServer, project: Path, content: dict[str, Any]
) -> None:
    # Asked through the SDK's Elicit marker: its own validation would blame the tool's
    # arguments (validation_error "choice: Field required").
    (project / "f.txt").write_text("old")
    answers = Answers(content=content)
    async with client(server, elicit=answers) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        body = await fails(c, "write_to_project", projectId="p", filePath="f.txt", content="new")
        dup = await fails(c, "register_project", name="q", rootPath=str(project), id="p")
        listed = await call(c, "list_projects")
    assert len(answers.asked) == 2
    assert body["code"] == dup["code"] == "cancelled", (body, dup)
    assert "did not fit" in body["message"] and "overwrite, append, cancel" in body["message"]
    assert "overwrite, cancel" in dup["message"]
    assert (project / "f.txt").read_text() == "old"
    assert [p["name"] for p in listed["projects"]] == ["p"]


async def test_an_answer_inside_the_form_still_counts_on_2026_07_28(
    server: CctuiMCPServer, project: Path
) -> None:
    (project / "f.txt").write_text("old")
    async with client(server, elicit=Answers(content={"choice": "append"})) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        out = await call(c, "write_to_project", projectId="p", filePath="f.txt", content="+")
    assert out["action"] == "appended"
    assert (project / "f.txt").read_text() == "old+"


async def test_an_accepted_answer_without_content_cancels(
    server: CctuiMCPServer, project: Path
) -> None:
    from mcp.types import ElicitResult

    async def no_content(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept")

    (project / "f.txt").write_text("old")
    async with client(server, elicit=no_content, mode="legacy") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        body = await fails(c, "write_to_project", projectId="p", filePath="f.txt", content="new")
    assert body["code"] == "cancelled"
    assert (project / "f.txt").read_text() == "old"


# -- hard links ------------------------------------------------------------------------------


async def test_hard_linked_files_are_not_read_or_appended(
    server: CctuiMCPServer, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("SECRET")
    os.link(outside, project / "hard.txt")
    async with client(server, elicit=Answers(content={"choice": "append"})) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        read = await fails(c, "read_from_project", projectId="p", filePath="hard.txt")
        append = await fails(c, "write_to_project", projectId="p", filePath="hard.txt", content="+")
        context = await fails(
            c, "invoke_claude_code", projectId="p", task="x", contextFiles=["hard.txt"]
        )
        # Replacing the name is fine: the other name (outside) keeps its content.
        replaced = await call(
            c, "write_to_project", projectId="p", filePath="hard.txt", content="mine",
            overwrite=True,
        )  # fmt: skip
        again = await call(c, "read_from_project", projectId="p", filePath="hard.txt")
    assert read["code"] == append["code"] == context["code"] == "path_outside_project"
    assert "hard links" in read["message"] and "SECRET" not in json.dumps([read, append])
    assert replaced["action"] == "overwritten" and again["content"] == "mine"
    assert outside.read_text() == "SECRET"
