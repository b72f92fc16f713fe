"""Where the project registry lives: ~/.claude/projects.json, CLAUDE_CONFIG_DIR, the flag."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from cctui.cli import _parser, _settings
from cctui.config import load_settings
from tests.content import first_text
from tests.mcp.conftest import client


def test_default_follows_claude_config_dir(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path)}
    plain = load_settings(env=home, config_path=tmp_path / "none.toml")
    assert plain.projects_file == tmp_path / ".claude" / "projects.json"
    moved = load_settings(
        env=home | {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}, config_path=tmp_path / "none"
    )
    assert moved.projects_file == tmp_path / "cfg" / "projects.json"


def test_flag_and_config_file_expand_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # what "~" means for the flag
    args = _parser().parse_args(["serve", "--projects-config", "~/reg/projects.json"])
    args.config = str(tmp_path / "none.toml")
    assert _settings(args).projects_file == tmp_path / "reg" / "projects.json"
    toml = tmp_path / "c.toml"
    toml.write_text('projects_config = "~/from-file.json"\n')
    from_file = load_settings(env={"HOME": str(tmp_path)}, config_path=toml)
    assert from_file.projects_file == tmp_path / "from-file.json"


@pytest.mark.process
async def test_serve_stdio_uses_the_flag(tmp_path: Path, project: Path) -> None:
    """A real ``cctui serve --stdio --projects-config`` registers into that file."""
    registry = tmp_path / "elsewhere" / "projects.json"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cctui", "serve", "--stdio", "--projects-config", str(registry)],
        env={
            "HOME": str(tmp_path / "home"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "PATH": "/usr/bin:/bin",
        },
    )
    async with client(params, name="desktop", mode="legacy") as c:
        reg = await c.call_tool("register_project", {"name": "p", "rootPath": str(project)})
        assert not reg.is_error, first_text(reg)
        listed = await c.call_tool("list_projects", {})
    assert listed.structured_content["registryPath"] == str(registry)
    assert [p["id"] for p in json.loads(registry.read_text())["projects"]] == ["p"]
    assert not (tmp_path / "home" / ".claude" / "projects.json").exists()
