"""Seed 000's client (Claude Desktop with the connector): its slash commands as prompts
with the seed's names and arguments, ``session_state.json`` with ``sessionId``, the
``files`` resource past 10,000 entries, and rapid saves debounced. The real ``claude`` CLI
against the fake API, over Streamable HTTP in both protocol eras and over stdio."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp.types import TextResourceContents

from cctui.mcp_server.tools.resources import MAX_TREE_ENTRIES
from cctui.mcp_server.transport.http import HttpService
from tests.contracts.clients import over_http, over_stdio
from tests.mcp.conftest import ok

pytestmark = pytest.mark.e2e

SLASH = {
    "projects": [],
    "project": ["projectId"],
    "save": ["filePath"],
    "implement": ["task"],
    "checkpoint": ["summary"],
    "status": [],
}
"""Seed 000 §Slash Commands: the name and the required argument of each."""


async def register(c: Any, root: Path, pid: str = "myapp") -> None:
    await ok(c, "register_project", {"name": "My Application", "rootPath": str(root), "id": pid})


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_slash_commands_are_prompts_with_the_seeds_names_and_arguments(
    real_http: HttpService, project_dir: Path, era: str
) -> None:
    async with over_http(real_http, "claude-desktop", era) as c:
        await register(c, project_dir)
        prompts = {p.name: p for p in (await c.list_prompts()).prompts}
        for name, required in SLASH.items():
            assert name in prompts, sorted(prompts)
            args = prompts[name].arguments or []
            assert [a.name for a in args if a.required] == required, (name, args)
        # The seed's four workflow prompts stay.
        assert {"plan-and-implement", "save-to-project", "continue-in-cli"} <= set(prompts)
        listed = await c.get_prompt("projects", {})
        assert "list_projects" in listed.messages[0].content.text  # type: ignore[union-attr]
        active = await c.get_prompt("project", {"projectId": "myapp"})
        text = active.messages[0].content.text  # type: ignore[union-attr]
        assert "get_project_status" in text and "claude-code://myapp/session" in text
        saved = await c.get_prompt("save", {"filePath": "docs/feature_spec.md"})
        text = saved.messages[0].content.text  # type: ignore[union-attr]
        assert "write_to_project" in text and "docs/feature_spec.md" in text
        task = "create JWT middleware based on auth spec"
        implement = await c.get_prompt("implement", {"task": task})
        text = implement.messages[0].content.text  # type: ignore[union-attr]
        assert "invoke_claude_code" in text and task in text
        summary = "completed auth spec and middleware implementation"
        cp = await c.get_prompt("checkpoint", {"summary": summary})
        text = cp.messages[0].content.text  # type: ignore[union-attr]
        assert "create_checkpoint" in text and summary in text
        status = await c.get_prompt("status", {})
        assert "get_project_status" in status.messages[0].content.text  # type: ignore[union-attr]


async def test_slash_commands_over_stdio(claude_env: dict[str, str], tmp_path: Path) -> None:
    env = {**claude_env, "CCTUI_PROJECTS_CONFIG": str(tmp_path / "projects.json")}
    async with over_stdio(
        env, "claude-desktop", "--projects-config", str(tmp_path / "p.json")
    ) as c:
        names = {p.name for p in (await c.list_prompts()).prompts}
    assert set(SLASH) <= names


async def test_session_state_records_the_session_id(
    real_http: HttpService, project_dir: Path
) -> None:
    async with over_http(real_http, "claude-desktop") as c:
        await register(c, project_dir)
        out = await ok(c, "invoke_claude_code", {"projectId": "myapp", "task": "[[say text=done]]"})
        await ok(
            c,
            "create_checkpoint",
            {"projectId": "myapp", "summary": "s", "conversationId": "conv_xyz789"},
        )
        session = await c.read_resource("claude-code://myapp/session")
    state = json.loads((project_dir / ".claude" / "session_state.json").read_text())
    assert state["sessionId"] == out["sessionId"]
    assert state["desktopConversationId"] == "conv_xyz789"
    [content] = session.contents
    assert isinstance(content, TextResourceContents)
    assert json.loads(content.text)["sessionId"] == out["sessionId"]


async def test_files_resource_pages_past_10000_entries(
    real_http: HttpService, project_dir: Path
) -> None:
    files = MAX_TREE_ENTRIES + 250
    for i in range(files):
        d = project_dir / "src" / f"m{i // 500:03d}"
        if i % 500 == 0:
            d.mkdir(parents=True)
        (d / f"f{i:05d}.txt").write_bytes(b"x")
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
    async with over_http(real_http, "claude-desktop") as c:
        await register(c, project_dir)
        seen: list[str] = []
        uri: str | None = "claude-code://myapp/files"  # the seed's URI is page 1
        pages = 0
        while uri is not None:
            [content] = (await c.read_resource(uri)).contents
            assert isinstance(content, TextResourceContents)
            page = json.loads(content.text)
            assert page["project"] == "myapp" and page["rootPath"]
            seen += [e["path"] for e in page["tree"] if e["type"] == "file"]
            uri, pages = page["nextPage"], pages + 1
    assert pages >= 2  # past 10,000 entries (and within a client's 1 MiB event limit)
    assert len([p for p in seen if p.startswith("src/")]) == files
    assert len(seen) == len(set(seen))


async def test_rapid_saves_of_one_file_are_debounced(
    real_http: HttpService, project_dir: Path
) -> None:
    async with over_http(real_http, "claude-desktop") as c:
        await register(c, project_dir)
        first = await ok(
            c,
            "write_to_project",
            {"projectId": "myapp", "filePath": "docs/spec.md", "content": "v0"},
        )
        assert first["action"] == "created" and first["coalesced"] == 1

        async def later(n: int, call: Any) -> dict[str, Any]:
            await asyncio.sleep(0.03 * n)  # rapid, one after another
            out: dict[str, Any] = await call
            return out

        burst = await asyncio.gather(
            *(
                later(
                    n,
                    ok(
                        c,
                        "write_to_project",
                        {
                            "projectId": "myapp",
                            "filePath": "docs/spec.md",
                            "content": f"v{n}",
                            "overwrite": True,
                        },
                    ),
                )
                for n in range(1, 6)
            )
        )
    # One of the burst's contents (which one arrived last is the server's to see; the unit
    # test of SaveDebouncer pins "the newest wins").
    assert (project_dir / "docs" / "spec.md").read_text() in {f"v{n}" for n in range(1, 6)}
    assert all(r["success"] and r["action"] == "overwritten" for r in burst)
    assert max(r["coalesced"] for r in burst) > 1, burst  # written fewer times than saved
    state = json.loads((project_dir / ".claude" / "session_state.json").read_text())
    assert [a["path"] for a in state["artifacts"]] == ["docs/spec.md"]
