"""A second cctui on this machine, under a HOME of its own, reached as a host by a command.

The command runs ``python -m cctui serve --stdio`` (or its ``bridge``) with the other HOME's
locations set by ``env``: the path a real host takes behind ``ssh NAME``, minus SSH.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.plugin import seed_claude_home


@pytest.fixture
def host_project(tmp_path: Path) -> Path:
    path = (tmp_path / "host-proj").resolve()
    path.mkdir()
    return path


@pytest.fixture
def host_home(tmp_path: Path, host_project: Path) -> Path:
    home = (tmp_path / "host-home").resolve()
    for sub in (".config", ".local/state", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    seed_claude_home(home, host_project)
    return home


def host_command(home: Path, project: Path, *cctui_args: str) -> list[str]:
    """``env HOME=... python -m cctui ARGS``: the other cctui, its state under ``home``."""
    locations = {
        "HOME": home,
        "CLAUDE_CONFIG_DIR": home / ".claude",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CACHE_HOME": home / ".cache",
        "CLAUDE_CODE_DEFAULT_CWD": project,
    }
    return [
        "env",
        *(f"{k}={v}" for k, v in locations.items()),
        sys.executable,
        "-m",
        "cctui",
        *cctui_args,
    ]


@pytest.fixture
def serve_command(claude_env: dict[str, str], host_home: Path, host_project: Path) -> list[str]:
    """The second cctui served on the command's stdio (the fake API's variables come from
    ``claude_env``, which this process's environment now holds)."""
    return host_command(host_home, host_project, "serve", "--stdio")
