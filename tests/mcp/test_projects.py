"""Project tools through a real MCP client (in memory): every tool's success and error cases."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp.types import TextResourceContents

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.content import first_text
from tests.fakes.fake_driver import Step, fake_driver_factory, sleep, tool
from tests.fakes.settings import make_settings
from tests.helpers import git
from tests.mcp.conftest import Answers, call, client, error_body


async def fails(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    return error_body(await c.call_tool(tool, args))


# -- register_project / list_projects -------------------------------------------------------


async def test_register_and_list(server: CctuiMCPServer, project: Path, settings: Settings) -> None:
    async with client(server) as c:
        out = await call(c, "register_project", name="My Application", rootPath=str(project))
        assert out["success"] is True
        assert out["projectId"] == "my-application"
        assert out["message"] == f"Project 'My Application' registered at {project.resolve()}"
        again = await call(c, "register_project", name="My Application", rootPath=str(project))
        assert again["projectId"] == "my-application-2"  # generated ids never collide
        listed = await call(c, "list_projects")
    on_disk = json.loads(settings.projects_file.read_text())
    assert [p["id"] for p in on_disk["projects"]] == ["my-application", "my-application-2"]
    first = on_disk["projects"][0]
    assert first["rootPath"] == str(project.resolve())
    assert first["specPaths"] == ["docs/", "specs/"]
    assert first["active"] is True and "created" in first
    rows = listed["projects"]
    assert [r["id"] for r in rows] == ["my-application", "my-application-2"]
    assert rows[0]["lastAccessed"] == "just now"
    assert rows[0]["hasClaudeState"] is False
    assert listed["registryPath"] == str(settings.projects_file)


async def test_list_hides_inactive_unless_asked(
    server: CctuiMCPServer, project: Path, settings: Settings
) -> None:
    async with client(server) as c:
        await call(c, "register_project", name="a", rootPath=str(project), id="a")
        await call(c, "register_project", name="b", rootPath=str(project), id="b")
        data = json.loads(settings.projects_file.read_text())
        data["projects"][1]["active"] = False
        data["projects"][1]["somethingElse"] = {"kept": True}  # another tool's key
        settings.projects_file.write_text(json.dumps(data))
        assert [p["id"] for p in (await call(c, "list_projects"))["projects"]] == ["a"]
        everything = await call(c, "list_projects", includeInactive=True)
        assert [(p["id"], p["active"]) for p in everything["projects"]] == [
            ("a", True),
            ("b", False),
        ]
        (project / ".claude").mkdir()
        assert (await call(c, "list_projects"))["projects"][0]["hasClaudeState"] is True
        await call(c, "register_project", name="c", rootPath=str(project), id="c")
    kept = json.loads(settings.projects_file.read_text())["projects"][1]
    assert kept["somethingElse"] == {"kept": True}


async def test_register_errors(
    server: CctuiMCPServer, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with client(server) as c:
        missing = await fails(c, "register_project", name="x", rootPath=str(tmp_path / "nope"))
        assert missing["code"] == "path_not_found"
        assert "mkdir -p" in missing["suggestion"]
        relative = await fails(c, "register_project", name="x", rootPath="relative/dir")
        assert relative["code"] == "path_not_found" and "absolute" in relative["message"]
        a_file = tmp_path / "file.txt"
        a_file.write_text("x")
        assert (await fails(c, "register_project", name="x", rootPath=str(a_file)))[
            "code"
        ] == "path_not_found"
        slash = await fails(c, "register_project", name="x", rootPath="/")
        assert slash["code"] == "permission_denied" and "whole machine" in slash["message"]
        bad_id = await fails(c, "register_project", name="x", rootPath=str(project), id="Bad_Id")
        assert bad_id["code"] == "validation_error"
        bad_spec = await fails(
            c, "register_project", name="x", rootPath=str(project), specPaths=["../up"]
        )
        assert bad_spec["code"] == "path_outside_project"
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0)
        if os.geteuid() == 0:  # root reads anything: make access() tell the truth about the bits
            monkeypatch.setattr(
                "cctui.projects.registry.os.access", lambda p, m: os.stat(p).st_mode & 0o500
            )
        denied = await fails(c, "register_project", name="x", rootPath=str(locked))
        locked.chmod(0o755)
        assert denied["code"] == "permission_denied"
        assert "chmod" in denied["suggestion"]


async def test_duplicate_id_without_anyone_to_ask(server: CctuiMCPServer, project: Path) -> None:
    async with client(server) as c:
        await call(c, "register_project", name="one", rootPath=str(project), id="app")
        dup = await fails(c, "register_project", name="two", rootPath=str(project), id="app")
    assert dup["code"] == "duplicate_project"
    assert "'app-2'" in dup["suggestion"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("choice", ["overwrite", "cancel"])
async def test_duplicate_id_confirmed_by_elicitation(
    server: CctuiMCPServer, project: Path, tmp_path: Path, mode: str, choice: str
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    answers = Answers(content={"choice": choice})
    async with client(server, elicit=answers, mode=mode) as c:
        await call(c, "register_project", name="one", rootPath=str(project), id="app")
        result = await c.call_tool(
            "register_project", {"name": "two", "rootPath": str(other), "id": "app"}
        )
        listed = await call(c, "list_projects")
    assert len(answers.asked) == 1 and "'app' is already registered" in answers.asked[0]
    if choice == "overwrite":
        assert result.structured_content["overwritten"] is True
        assert result.structured_content["decidedBy"] == "mcp:tester"
        assert [(p["id"], p["name"]) for p in listed["projects"]] == [("app", "two")]
    else:
        assert error_body(result)["code"] == "cancelled"
        assert [(p["id"], p["name"]) for p in listed["projects"]] == [("app", "one")]


async def test_corrupt_registry_is_reported_backed_up_and_kept(
    server: CctuiMCPServer, project: Path, settings: Settings
) -> None:
    settings.projects_file.parent.mkdir(parents=True, exist_ok=True)
    settings.projects_file.write_text('{"projects": [ {"id": "half"')
    async with client(server) as c:
        listed = await fails(c, "list_projects")
        reg = await fails(c, "register_project", name="x", rootPath=str(project))
    assert listed["code"] == reg["code"] == "corrupt_file"
    assert "will not overwrite" in reg["message"]
    assert settings.projects_file.read_text() == '{"projects": [ {"id": "half"'
    backups = list(settings.projects_file.parent.glob("projects.json.corrupt-*"))
    assert len(backups) == 1  # one copy per distinct content, not one per call
    assert backups[0].read_text() == '{"projects": [ {"id": "half"'


# -- write_to_project / read_from_project ---------------------------------------------------


async def test_write_then_read(server: CctuiMCPServer, project: Path) -> None:
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        out = await call(
            c, "write_to_project", projectId="p", filePath="docs/spec.md", content="a\nb\nc\n"
        )
        assert out == {
            "success": True,
            "fullPath": str(project.resolve() / "docs" / "spec.md"),
            "action": "created",
            "bytes": 6,
            "decidedBy": None,
            "note": None,
            "coalesced": 1,
        }
        replaced = await call(
            c,
            "write_to_project",
            projectId="p",
            filePath="docs/spec.md",
            content="é\n",
            overwrite=True,
        )
        assert replaced["action"] == "overwritten" and replaced["bytes"] == 3
        whole = await call(c, "read_from_project", projectId="p", filePath="docs/spec.md")
        assert whole["content"] == "é\n" and whole["totalLines"] == 1 and not whole["hasMore"]
        status = await call(c, "get_project_status", projectId="p")
    assert status["recentFiles"] == ["docs/spec.md"]
    state = json.loads((project / ".claude" / "session_state.json").read_text())
    assert [(a["path"], a["action"]) for a in state["artifacts"]] == [
        ("docs/spec.md", "overwritten")
    ]
    assert not [p for p in (project / "docs").iterdir() if p.name != "spec.md"]  # no temp files


async def test_write_errors(server: CctuiMCPServer, project: Path) -> None:
    (project / "adir").mkdir()
    async with client(server) as c:
        unknown = await fails(c, "write_to_project", projectId="ghost", filePath="a", content="x")
        assert unknown["code"] == "project_not_found"
        assert "register_project" in unknown["suggestion"]
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        no_parent = await fails(
            c,
            "write_to_project",
            projectId="p",
            filePath="new/dir/a.md",
            content="x",
            createDirs=False,
        )
        assert no_parent["code"] == "path_not_found" and "createDirs" in no_parent["suggestion"]
        assert not (project / "new").exists()
        on_dir = await fails(
            c, "write_to_project", projectId="p", filePath="adir", content="x", overwrite=True
        )
        assert on_dir["code"] == "not_a_file"
        exists = await call(
            c, "write_to_project", projectId="p", filePath="keep.txt", content="old"
        )
        assert exists["action"] == "created"
        refused = await fails(
            c, "write_to_project", projectId="p", filePath="keep.txt", content="new"
        )
        assert refused["code"] == "file_exists" and "overwrite=true" in refused["suggestion"]
    assert (project / "keep.txt").read_text() == "old"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("choice", "expected", "action"),
    [
        ("overwrite", "new", "overwritten"),
        ("append", "oldnew", "appended"),
        ("cancel", "old", None),
    ],
)
async def test_existing_file_asks_by_elicitation(
    server: CctuiMCPServer, project: Path, mode: str, choice: str, expected: str, action: str | None
) -> None:
    (project / "f.txt").write_text("old")
    answers = Answers(content={"choice": choice})
    async with client(server, elicit=answers, mode=mode) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        result = await c.call_tool(
            "write_to_project", {"projectId": "p", "filePath": "f.txt", "content": "new"}
        )
    assert len(answers.asked) == 1 and "'f.txt' already exists" in answers.asked[0]
    assert (project / "f.txt").read_text() == expected
    if action is None:
        assert error_body(result)["code"] == "cancelled"
    else:
        assert result.structured_content["action"] == action
        assert result.structured_content["decidedBy"] == "mcp:tester"


async def test_declining_the_question_leaves_the_file(
    server: CctuiMCPServer, project: Path
) -> None:
    (project / "f.txt").write_text("old")
    async with client(server, elicit=Answers(action="decline"), mode="legacy") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        body = await fails(c, "write_to_project", projectId="p", filePath="f.txt", content="new")
    assert body["code"] == "cancelled"
    assert (project / "f.txt").read_text() == "old"


async def test_existing_file_asks_the_human_when_the_client_cannot(
    server: CctuiMCPServer, manager: SessionManager, project: Path
) -> None:
    """No elicitation: a confirmation input reaches the human (what the TUI modal answers)."""
    import asyncio

    (project / "f.txt").write_text("old")
    detach = manager.decisions.attach_human()
    try:
        async with client(server) as c:
            await call(c, "register_project", name="p", rootPath=str(project), id="p")
            task = asyncio.create_task(
                c.call_tool(
                    "write_to_project", {"projectId": "p", "filePath": "f.txt", "content": "+"}
                )
            )
            for _ in range(500):
                if manager.pending():
                    break
                await asyncio.sleep(0.01)
            (item,) = manager.pending()
            assert item.kind == "confirmation" and item.choices == ("overwrite", "append", "cancel")
            assert item.session_id == "project:p" and "f.txt" in (item.description or "")
            from cctui.core import Decision

            manager.respond(item.id, Decision(behavior="allow", choice="append"), "tui")
            result = await task
    finally:
        detach()
    assert result.structured_content["action"] == "appended"
    assert result.structured_content["decidedBy"] == "tui"
    assert (project / "f.txt").read_text() == "old+"
    audit = [r for r in manager.audit.read() if r["event"] == "decision"]
    assert audit[-1]["input_kind"] == "confirmation" and audit[-1]["decision"] == "append"


async def test_read_ranges_and_errors(server: CctuiMCPServer, project: Path) -> None:
    (project / "lines.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    (project / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(100))
    (project / "latin1.txt").write_bytes("caf\xe9 ol\xe9\n".encode("latin-1"))
    (project / "sub").mkdir()
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        mid = await call(
            c, "read_from_project", projectId="p", filePath="lines.txt", startLine=3, endLine=4
        )
        assert mid["content"] == "line 3\nline 4\n"
        assert (mid["startLine"], mid["endLine"], mid["hasMore"], mid["totalLines"]) == (
            3,
            4,
            True,
            None,
        )
        tail = await call(c, "read_from_project", projectId="p", filePath="lines.txt", startLine=9)
        assert tail["content"] == "line 9\nline 10\n" and tail["totalLines"] == 10
        past = await call(c, "read_from_project", projectId="p", filePath="lines.txt", startLine=50)
        assert past["content"] == "" and past["endLine"] == 49 and past["totalLines"] == 10
        assert (
            past["note"]
            == "lines.txt has 10 lines; startLine 50 is past its end, so nothing was returned."
        )
        assert tail["note"] is None and mid["note"] is None
        (project / "one.txt").write_text("only\n")
        one = await call(
            c, "read_from_project", projectId="p", filePath="one.txt", startLine=2, endLine=2
        )
        assert (one["content"], one["totalLines"], one["hasMore"]) == ("", 1, False)
        assert "one.txt has 1 line; startLine 2 is past its end" in one["note"]
        (project / "empty.txt").write_text("")
        empty = await call(c, "read_from_project", projectId="p", filePath="empty.txt")
        assert (empty["content"], empty["totalLines"], empty["note"]) == ("", 0, None)
        (project / "no-eol.txt").write_text("a\nb")
        for start, total in ((3, 2), (2, 2), (9, 2)):
            got = await call(
                c, "read_from_project", projectId="p", filePath="no-eol.txt", startLine=start
            )
            assert got["totalLines"] == total
            assert got["content"] == ("b" if start == 2 else "")
        backwards = await fails(
            c, "read_from_project", projectId="p", filePath="lines.txt", startLine=5, endLine=2
        )
        assert backwards["code"] == "validation_error"
        zero = await fails(c, "read_from_project", projectId="p", filePath="lines.txt", startLine=0)
        assert zero["code"] == "validation_error"
        binary = await fails(c, "read_from_project", projectId="p", filePath="img.png")
        assert binary["code"] == "binary_file"
        assert (await fails(c, "read_from_project", projectId="p", filePath="latin1.txt"))[
            "code"
        ] == "binary_file"
        assert (await fails(c, "read_from_project", projectId="p", filePath="sub"))[
            "code"
        ] == "not_a_file"
        assert (await fails(c, "read_from_project", projectId="p", filePath="nope.txt"))[
            "code"
        ] == "path_not_found"
        assert (await fails(c, "read_from_project", projectId="zz", filePath="a"))[
            "code"
        ] == "project_not_found"


async def test_large_file_is_streamed_by_range(server: CctuiMCPServer, project: Path) -> None:
    from cctui.fs.reading import MAX_READ_BYTES

    with (project / "big.log").open("w") as fh:
        for i in range(1, 300_001):
            fh.write(f"{i:08d} some log text to make the line longer\n")
    (project / "one-line.min.js").write_text("x" * (3 * MAX_READ_BYTES))
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        head = await call(c, "read_from_project", projectId="p", filePath="big.log")
        assert head["truncated"] and head["hasMore"] and head["totalLines"] is None
        assert len(head["content"].encode()) <= MAX_READ_BYTES
        assert head["content"].startswith("00000001 ") and head["content"].endswith("\n")
        assert head["endLine"] == head["content"].count("\n")
        deep = await call(
            c,
            "read_from_project",
            projectId="p",
            filePath="big.log",
            startLine=250_000,
            endLine=250_001,
        )
        assert deep["content"].splitlines()[0].startswith("00250000 ")
        assert len(deep["content"].splitlines()) == 2
        long_line = await call(c, "read_from_project", projectId="p", filePath="one-line.min.js")
        assert long_line["truncated"] and len(long_line["content"]) == MAX_READ_BYTES


# -- checkpoints, status, resources, prompts ------------------------------------------------


async def test_checkpoints_status_and_git(server: CctuiMCPServer, project: Path) -> None:
    git(project, "init", "-q", "-b", "feature/auth")
    (project / "a.txt").write_text("a")
    git(project, "add", "a.txt")
    git(project, "commit", "-qm", "init")
    (project / "a.txt").write_text("changed")
    (project / "new.txt").write_text("n")
    async with client(server, name="desktop") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        first = await call(
            c, "create_checkpoint", projectId="p", summary="Created authentication spec",
            nextActions=["Implement JWT middleware"], artifacts=["docs/auth_spec.md"],
        )  # fmt: skip
        assert first["success"] and first["checkpoints"] == 1
        assert first["stateFile"] == str(project.resolve() / ".claude" / "session_state.json")
        second = await call(c, "create_checkpoint", projectId="p", summary="second")
        assert second["checkpoints"] == 2
        status = await call(c, "get_project_status", projectId="p", includeGitStatus=True)
        plain = await call(c, "get_project_status", projectId="p")
        missing = await fails(c, "create_checkpoint", projectId="nope", summary="x")
        empty = await fails(c, "create_checkpoint", projectId="p", summary="")
    assert missing["code"] == "project_not_found" and empty["code"] == "validation_error"
    state = json.loads(Path(first["stateFile"]).read_text())
    cp = state["checkpoints"][0]
    assert cp["source"] == "desktop" and cp["summary"] == "Created authentication spec"
    assert cp["nextActions"] == ["Implement JWT middleware"] and cp["timestamp"].endswith("Z")
    assert status["checkpoints"] == 2 and status["lastCheckpoint"] == "just now: second"
    # .claude/ (the state file we just wrote) is untracked too: a.txt, new.txt, 2 state files
    assert status["gitStatus"]["branch"] == "feature/auth"
    assert status["gitStatus"]["uncommitted"] >= 2
    assert plain["gitStatus"] is None


async def test_corrupt_session_state_is_not_overwritten(
    server: CctuiMCPServer, project: Path
) -> None:
    (project / ".claude").mkdir()
    bad = project / ".claude" / "session_state.json"
    bad.write_text("{oops")
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        body = await fails(c, "create_checkpoint", projectId="p", summary="x")
        status = await fails(c, "get_project_status", projectId="p")
    assert body["code"] == status["code"] == "corrupt_file"
    assert bad.read_text() == "{oops"
    assert len(list((project / ".claude").glob("session_state.json.corrupt-*"))) == 1


async def test_resources(server: CctuiMCPServer, project: Path) -> None:
    git(project, "init", "-q")
    (project / ".gitignore").write_text("build/\n*.log\n")
    (project / "docs").mkdir()
    (project / "docs" / "auth_spec.md").write_text("# Auth\n\nJWT.\n")
    (project / "specs").mkdir()
    (project / "specs" / "api.txt").write_text("GET /x\n")
    (project / "specs" / "diagram.png").write_bytes(b"\x89PNG\x00")
    (project / "build").mkdir()
    (project / "build" / "out.js").write_text("x")
    (project / "debug.log").write_text("x")
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("print(1)\n")
    async with client(server) as c:
        await call(c, "register_project", name="My App", rootPath=str(project), id="p")
        await call(c, "create_checkpoint", projectId="p", summary="cp")
        templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
        files = json.loads(first_text(await c.read_resource("claude-code://p/files")))
        session = json.loads(first_text(await c.read_resource("claude-code://p/session")))
        docs = (await c.read_resource("claude-code://p/docs")).contents[0]
        assert isinstance(docs, TextResourceContents), docs
        listing = json.loads(first_text(await c.read_resource("claude-code://projects")))
        prompts = {p.name for p in (await c.list_prompts()).prompts}
        plan = await c.get_prompt("plan-and-implement", {"projectId": "p"})
        await call(c, "write_to_project", projectId="p", filePath="new/dir/n.md", content="n")
        after = json.loads(first_text(await c.read_resource("claude-code://p/files")))
    # cctui's own write is in the cached tree at once, before any rebuild.
    assert {"new/", "new/dir/", "new/dir/n.md"} <= {e["path"] for e in after["tree"]}
    assert templates >= {
        "claude-code://{projectId}/files",
        "claude-code://{projectId}/session",
        "claude-code://{projectId}/docs",
    }
    paths = {e["path"] for e in files["tree"]}
    assert {"docs/", "docs/auth_spec.md", "src/", "src/main.py", ".gitignore"} <= paths
    assert not any(p.startswith((".git/", "build")) or p.endswith(".log") for p in paths)
    spec = next(e for e in files["tree"] if e["path"] == "docs/auth_spec.md")
    assert spec["type"] == "file" and spec["size"] == 13 and spec["modified"] == "just now"
    assert files["source"] == "git" and files["project"] == "p" and not files["truncated"]
    assert session["checkpoints"][0]["summary"] == "cp"
    assert docs.mime_type == "text/markdown"
    assert "## docs/auth_spec.md\n\n# Auth\n\nJWT." in docs.text and "## specs/api.txt" in docs.text
    assert "diagram.png" not in docs.text and "main.py" not in docs.text
    assert listing["projects"][0]["id"] == "p"
    assert prompts == {
        "plan-and-implement",
        "save-to-project",
        "continue-in-cli",
        "project-status",
        *("projects", "project", "save", "implement", "checkpoint", "status"),  # seed 000's /
    }
    text = first_text(plan)
    assert "write_to_project" in text and "invoke_claude_code" in text and "`p`" in text


async def test_resource_for_unknown_project_is_an_error(server: CctuiMCPServer) -> None:
    from mcp.shared.exceptions import MCPError

    async with client(server) as c:
        with pytest.raises(MCPError, match="not registered"):
            await c.read_resource("claude-code://ghost/files")


async def test_invoke_errors_without_running_anything(
    server: CctuiMCPServer, project: Path, tmp_path: Path
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        await call(c, "register_project", name="g", rootPath=str(gone), id="g")
        gone.rmdir()
        unknown = await fails(c, "invoke_claude_code", projectId="nope", task="x")
        vanished = await fails(c, "invoke_claude_code", projectId="g", task="x")
        escaping = await fails(
            c, "invoke_claude_code", projectId="p", task="x", contextFiles=["../../etc/passwd"]
        )
        bad_time = await fails(c, "invoke_claude_code", projectId="p", task="x", maxTime=0)
        no_file = await fails(
            c, "invoke_claude_code", projectId="p", task="x", contextFiles=["missing.md"]
        )
    assert no_file["code"] == "path_not_found"
    assert unknown["code"] == "project_not_found"
    assert vanished["code"] == "path_not_found"
    assert escaping["code"] == "path_outside_project"
    assert bad_time["code"] == "validation_error"


async def test_invoke_without_a_cli_says_how_to_install(tmp_path: Path, project: Path) -> None:
    """The real driver with a claude binary that does not exist: a clear error, task recorded."""
    settings = make_settings(
        tmp_path,
        projects_config=tmp_path / "projects.json",
        claude_code_path=tmp_path / "no" / "claude",
    )
    manager = SessionManager(settings)
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            await call(c, "register_project", name="p", rootPath=str(project), id="p")
            body = await fails(c, "invoke_claude_code", projectId="p", task="do it")
            status = await call(c, "get_project_status", projectId="p")
    finally:
        await manager.shutdown()
    assert body["code"] == "cli_not_found"
    assert "npm install -g @anthropic-ai/claude-code" in body["suggestion"]
    assert "CLAUDE_CODE_PATH" in body["suggestion"]
    assert status["claudeCodeTasks"][0]["status"] == "failed"


async def test_a_task_past_its_max_time_returns_partial_results(
    tmp_path: Path, project: Path
) -> None:
    """No git here: the before/after scan finds the file written before maxTime ran out; the
    turn is interrupted, then the process ended. (Over the fake driver, so maxTime can be a
    fraction of a second and the file is surely written before it: the real CLI stopped at
    a deadline is tests/core/test_runs.py's.)"""

    def script(message: str) -> list[Step]:
        (project / "partial.txt").write_text("half")
        write = {"file_path": str(project / "partial.txt"), "content": "half"}
        return [tool("Write", write, ask=False), sleep(120)]

    settings = make_settings(tmp_path, projects_config=tmp_path / "projects.json")
    manager = SessionManager(settings, driver_factory=fake_driver_factory(script))
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            await call(c, "register_project", name="p", rootPath=str(project), id="p")
            out = await call(c, "invoke_claude_code", projectId="p", task="go", maxTime=0.5)
            session = await call(c, "claude_get_status", sessionId=out["sessionId"])
            status = await call(c, "get_project_status", projectId="p")
    finally:
        await manager.shutdown()
    assert out["status"] == "timeout" and out["exitCode"] == 124, out
    assert out["filesCreated"] == ["partial.txt"]
    assert out["summary"].startswith("Timed out after 0.5 s; partial results.")
    assert 0.5 <= out["duration"] < 60
    assert session["session"]["isActive"] is False  # interrupted, then the process ended
    assert status["claudeCodeTasks"][0]["status"] == "timeout"


PROMPTS = ["plan-and-implement", "save-to-project", "continue-in-cli", "project-status"]


@pytest.mark.parametrize("name", PROMPTS)
async def test_prompts_refuse_an_unknown_project(
    server: CctuiMCPServer, project: Path, name: str
) -> None:
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS

    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        with pytest.raises(MCPError) as raised:
            await c.get_prompt(name, {"projectId": "ghost"})
        known = await c.get_prompt(name, {"projectId": "p"})
        unnamed = await c.get_prompt(name, {})
    assert raised.value.code == INVALID_PARAMS
    body = json.loads(raised.value.message)
    assert body["code"] == "project_not_found"
    assert "'ghost' is not registered (registered: p)" in body["message"]
    assert "list_projects" in body["suggestion"]
    assert "`p`" in first_text(known)
    assert "Which project" in first_text(unnamed)


async def test_projects_profile_has_resources_and_prompts(
    manager: SessionManager, settings: Settings
) -> None:
    only = build_server(manager, settings.model_copy(update={"tools_profile": "projects"}))
    none = build_server(manager, settings.model_copy(update={"tools_profile": "sessions"}))
    async with client(only) as c:
        templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
        prompts = {p.name for p in (await c.list_prompts()).prompts}
    async with client(none) as c:
        assert (await c.list_resource_templates()).resource_templates == []
        assert (await c.list_prompts()).prompts == []
    assert len(templates) == 4 and len(prompts) == 10  # /files/{page}; 6 slash commands


async def test_git_status_follows_changes(server: CctuiMCPServer, project: Path) -> None:
    """Git status is reused while nothing moves, and is fresh once the watcher sees a change
    (or git's index changes)."""
    import asyncio

    git(project, "init", "-q")
    (project / ".gitignore").write_text(".claude/\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "init")

    async def uncommitted(c: Any) -> int:
        out = await call(c, "get_project_status", projectId="p", includeGitStatus=True)
        return int(out["gitStatus"]["uncommitted"])

    async def until(c: Any, wanted: int) -> None:
        for _ in range(300):
            if await uncommitted(c) == wanted:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"uncommitted never became {wanted}")

    async with client(server) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        assert await uncommitted(c) == 0
        await until(c, 0)  # the watcher is up now
        (project / "new.txt").write_text("x")  # a change outside cctui
        await until(c, 1)
        git(project, "add", "new.txt")
        git(project, "commit", "-qm", "more")  # only .git changes: the index mtime says so
        await until(c, 0)
