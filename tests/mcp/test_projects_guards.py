"""Project tools through a real MCP client: cctui's own state is not writable, a write's
result is not hidden by its bookkeeping, git status follows commits wherever git keeps its
files, seed fields are always present, and odd elicitation answers cancel cleanly."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.mcp.conftest import Answers, client, error_body


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


async def call(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    result = await c.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    out: dict[str, Any] = result.structured_content
    return out


async def fails(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    return error_body(await c.call_tool(tool, args))


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
