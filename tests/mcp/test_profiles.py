"""Tool profiles (``--tools``) and the ``[tools]`` group switches, through real MCP clients.

On ``menu`` a client sees only the review menu and claude_health, and anything else is
refused with a structured error: it has no way to send Claude a free-form prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cctui.cli import _parser
from cctui.config import PROFILE_GROUPS, Settings, ToolGroups, load_settings
from cctui.core import SessionManager
from cctui.errors import ConfigError
from cctui.mcp_server.server import build_server
from cctui.mcp_server.tools.review import TOOL_NAMES as REVIEW_TOOLS
from cctui.mcp_server.transport.http import HttpService
from tests.fakes.fake_driver import FakeDriverFactory
from tests.mcp.conftest import authed, client, error_body

MENU = {*REVIEW_TOOLS, "claude_health"}
"""Pinned by hand on purpose: the menu profile's whole surface is a security promise."""
# Everything a client could use to get a prompt of its own to Claude.
FREE_FORM = [
    ("claude_create_session", {"prompt": "rm -rf /"}),
    ("claude_query", {"prompt": "anything"}),
    ("claude_send_message", {"sessionId": "x", "message": "anything"}),
    ("claude_broadcast", {"team": "t", "message": "anything"}),
    ("claude_run", {"prompt": "anything"}),
]


def profile(settings: Settings, name: str, **update: Any) -> Settings:
    return settings.model_copy(update={"tools_profile": name, **update})


async def names(target: Any) -> set[str]:
    async with client(target) as c:
        return {t.name for t in (await c.list_tools()).tools}


@pytest.fixture
async def groups(manager: SessionManager, settings: Settings) -> dict[str, set[str]]:
    """Each tool group's tools, read off a server with only that group switched on (so a
    new tool needs no list here)."""
    switches = list(ToolGroups.model_fields)
    out = {}
    for group in switches:
        only = ToolGroups(**{g: g == group for g in switches})
        out[group] = await names(build_server(manager, profile(settings, "full", tools=only)))
        out[group] -= {"claude_health"}
    return out


async def test_each_tool_family_lands_in_its_group(groups: dict[str, set[str]]) -> None:
    sessions, projects, review = groups["sessions"], groups["projects"], groups["review"]
    assert not (sessions & projects or sessions & review or projects & review), groups
    families = {
        "claude_create_session", "claude_query", "claude_list_sessions", "claude_broadcast"
    }  # fmt: skip
    assert families <= sessions
    assert {"register_project", "invoke_claude_code", "get_project_status"} <= projects
    assert review == set(REVIEW_TOOLS)


@pytest.mark.parametrize("name", sorted(PROFILE_GROUPS))
async def test_each_profile_lists_its_groups(
    manager: SessionManager, settings: Settings, groups: dict[str, set[str]], name: str
) -> None:
    expected = {"claude_health"}.union(*(groups[g] for g in PROFILE_GROUPS[name]))
    listed = await names(build_server(manager, profile(settings, name)))
    assert listed == expected


async def test_the_menu_is_the_review_menu_and_health_only(
    manager: SessionManager, settings: Settings
) -> None:
    assert await names(build_server(manager, profile(settings, "menu"))) == MENU


async def test_menu_refuses_everything_else_in_memory(
    manager: SessionManager, settings: Settings, factory: FakeDriverFactory
) -> None:
    server = build_server(manager, profile(settings, "menu"))
    async with client(server) as c:
        for tool, args in FREE_FORM:
            body = error_body(await c.call_tool(tool, args))
            assert body["code"] == "tool_not_available", body
            assert "'menu' tool profile" in body["message"]
        assert (await c.list_prompts()).prompts == []
        assert (await c.list_resources()).resources == []
        assert (await c.list_resource_templates()).resource_templates == []
        health = await c.call_tool("claude_health", {})
        assert not health.is_error
    assert factory.drivers == [] and manager.list() == []


async def test_menu_over_real_http(
    manager: SessionManager, settings: Settings, factory: FakeDriverFactory
) -> None:
    service = HttpService(build_server(manager, profile(settings, "menu")), settings)
    await service.start()
    try:
        async with client(authed(service), name="gemini") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert set(tools) == MENU
            judge = tools["claude_judge_review"].input_schema
            assert judge["required"] == ["contract_path"]
            assert set(judge["properties"]) == {"contract_path", "report_dir", "timeout_seconds"}
            assert judge["properties"]["report_dir"]["default"] == "_handoff"
            assert judge["properties"]["timeout_seconds"]["default"] == 900
            out = tools["claude_judge_review"].output_schema or {}
            seed_fields = {"success", "verdict", "blocking_issues_count", "report_md_path",
                           "report_json_path", "error", "duration_ms"}  # fmt: skip
            assert seed_fields <= set(out["properties"])
            for tool, args in FREE_FORM[:2]:
                body = error_body(await c.call_tool(tool, args))
                assert body["code"] == "tool_not_available"
    finally:
        await service.stop()
    assert factory.drivers == []
    audit = (settings.state_dir / "audit.jsonl").read_text()
    assert "claude_create_session" in audit  # refused calls are audited too


async def test_config_switches_turn_groups_off(
    manager: SessionManager, settings: Settings, groups: dict[str, set[str]]
) -> None:
    no_sessions = profile(
        settings, "full", tools=settings.tools.model_copy(update={"sessions": False})
    )
    assert await names(build_server(manager, no_sessions)) == MENU | groups["projects"]
    no_review = profile(settings, "menu", tools=settings.tools.model_copy(update={"review": False}))
    assert await names(build_server(manager, no_review)) == {"claude_health"}


def test_tools_table_and_review_roots_load_from_the_config(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        'tools_profile = "menu"\nreview_roots = ["/srv/a", "/srv/b"]\n[tools]\nsessions = false\n'
    )
    env = {"HOME": str(tmp_path)}
    s = load_settings(env=env, config_path=cfg)
    assert s.tools_profile == "menu" and not s.tools.sessions and s.tools.review
    assert s.review_root_dirs == (Path("/srv/a"), Path("/srv/b"))
    assert s.tool_groups == {"review"}
    s = load_settings(env={**env, "CCTUI_REVIEW_ROOTS": "/x:/y"}, config_path=cfg)
    assert s.review_roots == (Path("/x"), Path("/y"))
    default = load_settings(env=env, config_path=tmp_path / "none.toml", overrides={})
    assert default.review_root_dirs == (Path.cwd(),) and default.tool_groups == {
        "sessions", "projects", "review"
    }  # fmt: skip
    cfg.write_text("[tools]\nbogus = true\n")
    with pytest.raises(ConfigError, match="tools"):
        load_settings(env=env, config_path=cfg)


def test_cli_offers_every_profile() -> None:
    for name in ("full", "sessions", "projects", "menu"):
        assert _parser().parse_args(["serve", "--tools", name]).tools_profile == name
    with pytest.raises(SystemExit):
        _parser().parse_args(["--tools", "everything"])
