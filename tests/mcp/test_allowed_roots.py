"""``allowed_roots`` (seeds 002 and 003: working directories within allowed paths): off by
default; when set, what an MCP client starts outside every root is refused before any
process starts, and a symlink pointing out of a root does not get through."""

from __future__ import annotations

import json
from pathlib import Path

from cctui.config import Settings, load_settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from tests.fakes.fake_driver import FakeDriverFactory
from tests.mcp.conftest import call, client, error_body


async def test_outside_the_allowed_roots_nothing_starts(
    manager: SessionManager,
    settings: Settings,
    factory: FakeDriverFactory,
    project: Path,
    tmp_path: Path,
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / "escape").symlink_to(outside)
    inner = project / "sub"
    inner.mkdir()
    bound = settings.model_copy(update={"allowed_roots": (project,)})
    manager.settings = bound
    async with client(build_server(manager, bound)) as c:
        for where in (str(outside), str(project / "escape")):
            for tool, args in [
                ("claude_create_session", {"prompt": "hi", "workingDirectory": where}),
                ("claude_query", {"prompt": "hi", "workingDirectory": where}),
            ]:
                body = error_body(await c.call_tool(tool, args))
                assert body["code"] == "path_not_allowed", (tool, where, body)
                assert "allowed_roots" in body["suggestion"]
            seed = await c.call_tool("start_session", {"prompt": "hi", "cwd": where})
            assert seed.is_error and "PERMISSION_ERROR" in str(seed.content)
        assert factory.drivers == []
        inside = await call(c, "claude_create_session", prompt="hi", workingDirectory=str(inner))
    assert manager.get(inside["sessionId"]).config.cwd == inner.resolve()


async def test_by_default_any_directory_is_allowed(
    manager: SessionManager, settings: Settings, tmp_path: Path
) -> None:
    anywhere = tmp_path / "anywhere"
    anywhere.mkdir()
    assert settings.allowed_roots == ()
    async with client(build_server(manager, settings)) as c:
        started = await call(
            c, "claude_create_session", prompt="hi", workingDirectory=str(anywhere)
        )
    assert started["sessionId"]


def test_the_roots_come_from_the_config_and_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f"allowed_roots = [{json.dumps(str(tmp_path))}]\n")
    assert load_settings(env={}, config_path=config).allowed_roots == (tmp_path,)
    env = {"CCTUI_ALLOWED_ROOTS": f"{tmp_path}/a:{tmp_path}/b"}
    roots = load_settings(env=env, config_path=tmp_path / "none.toml").allowed_roots
    assert roots == (tmp_path / "a", tmp_path / "b")
