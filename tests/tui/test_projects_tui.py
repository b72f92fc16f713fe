"""The TUI side of projects: the confirmation modal answers an MCP client's write / register,
the projects view lists the registry, and ``project:`` filters by a registered project."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client
from mcp.types import CallToolResult, Implementation

from cctui.core import SessionConfig
from cctui.mcp_server.server import build_server
from cctui.tui.screens.confirm import ConfirmScreen, choice_keys
from cctui.tui.screens.projects import ProjectsScreen
from tests.content import first_text
from tests.tui.conftest import Harness, RunApp


def no_elicitation_client(h: Harness) -> Client:
    server = build_server(h.manager, h.app.settings)
    return Client(server, client_info=Implementation(name="desktop", version="1"))


async def confirm_with(h: Harness, key: str) -> ConfirmScreen:
    await h.until(lambda: isinstance(h.app.screen, ConfirmScreen))
    screen = h.app.screen
    assert isinstance(screen, ConfirmScreen)
    await h.pilot.press(key)
    await h.until(lambda: not isinstance(h.app.screen, ConfirmScreen))
    return screen


def test_choice_keys() -> None:
    assert choice_keys(("overwrite", "append", "cancel")) == {
        "1": "overwrite", "o": "overwrite", "2": "append", "a": "append", "3": "cancel",
        "c": "cancel",
    }  # fmt: skip


async def test_overwrite_append_cancel_answered_in_the_modal(run_app: RunApp) -> None:
    async with run_app() as h:
        (h.project / "spec.md").write_text("v1\n")
        async with no_elicitation_client(h) as c:
            reg = await c.call_tool("register_project", {"name": "App", "rootPath": str(h.project)})
            pid = reg.structured_content["projectId"]

            async def write(content: str) -> asyncio.Task[CallToolResult]:
                return asyncio.create_task(
                    c.call_tool(
                        "write_to_project",
                        {"projectId": pid, "filePath": "spec.md", "content": content},
                    )
                )

            task = await write("v2\n")
            screen = await confirm_with(h, "a")
            assert "spec.md" in (screen.pending.description or "")
            appended = await task
            assert appended.structured_content["action"] == "appended"
            assert appended.structured_content["decidedBy"] == "tui"
            assert (h.project / "spec.md").read_text() == "v1\nv2\n"

            task = await write("v3\n")
            await confirm_with(h, "o")
            assert (await task).structured_content["action"] == "overwritten"
            assert (h.project / "spec.md").read_text() == "v3\n"

            task = await write("never\n")
            await confirm_with(h, "c")
            cancelled = await task
            assert cancelled.is_error and '"cancelled"' in first_text(cancelled)
            assert (h.project / "spec.md").read_text() == "v3\n"
        assert h.manager.pending() == []


async def test_duplicate_id_overwrite_confirmed_in_the_modal(
    run_app: RunApp, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    async with run_app() as h, no_elicitation_client(h) as c:
        await c.call_tool(
            "register_project", {"name": "one", "rootPath": str(h.project), "id": "app"}
        )
        task = asyncio.create_task(
            c.call_tool("register_project", {"name": "two", "rootPath": str(other), "id": "app"})
        )
        screen = await confirm_with(h, "o")
        assert screen.pending.choices == ("overwrite", "cancel")
        result = await task
        assert result.structured_content["overwritten"] is True
        assert [p.name for p in h.app.project_registry.all()] == ["two"]


async def test_esc_keeps_it_for_later_then_the_inbox_reopens_it(run_app: RunApp) -> None:
    """esc leaves the confirmation pending (in the inbox); y in the inbox does not pick a
    choice for you, it opens the modal again."""
    from cctui.tui.screens.inbox import InboxScreen

    async with run_app(permission_timeout_ms=60_000) as h:
        (h.project / "f.txt").write_text("old")
        async with no_elicitation_client(h) as c:
            await c.call_tool(
                "register_project", {"name": "p", "rootPath": str(h.project), "id": "p"}
            )
            task = asyncio.create_task(
                c.call_tool(
                    "write_to_project", {"projectId": "p", "filePath": "f.txt", "content": "x"}
                )
            )
            await confirm_with(h, "escape")
            assert [p.kind for p in h.manager.pending()] == ["confirmation"]
            await h.pilot.press("a")
            await h.until(lambda: isinstance(h.app.screen, InboxScreen))
            await h.pilot.press("y")
            await confirm_with(h, "c")
            result = await task
        assert result.is_error and '"cancelled"' in first_text(result)
        assert (h.project / "f.txt").read_text() == "old"


async def test_projects_view_and_project_filter(run_app: RunApp, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with run_app() as h:
        async with no_elicitation_client(h) as c:
            await c.call_tool(
                "register_project", {"name": "My App", "rootPath": str(h.project), "id": "web"}
            )
        inside = await h.create("inside the project")
        info = await h.manager.create("somewhere else", SessionConfig(cwd=elsewhere))
        await h.settle(info.session_id)
        await h.until(lambda: len(h.app.main.sessions.shown) == 2)
        await h.pilot.press("p")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        table = h.app.screen.query_one("#projects")
        assert table.row_count == 1
        assert str(table.get_row_at(0)[3]) == "1"
        await h.pilot.press("enter")
        await h.until(lambda: not isinstance(h.app.screen, ProjectsScreen))
        await h.until(lambda: h.app.main.sessions.shown == [inside])
        assert h.app.main.query_one("#filter").value == "project:web"
        h.app.main.set_filter("project:my-app")  # the name's slug works as well
        await h.pilot.pause(0.1)
        assert h.app.main.sessions.shown == [inside]


async def test_projects_view_reports_a_corrupt_registry(run_app: RunApp) -> None:
    async with run_app() as h:
        registry = h.app.settings.projects_file
        registry.parent.mkdir(parents=True, exist_ok=True)
        registry.write_text("{not json")
        await h.pilot.press("p")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        await h.pilot.pause(0.1)
        title = str(h.app.screen.query_one("#title").render())
        assert "corrupt" in title
        await h.pilot.press("escape")
        await h.until(lambda: not isinstance(h.app.screen, ProjectsScreen))
        assert registry.read_text() == "{not json"  # shown, never rewritten
