"""The `cctui` command: clear errors instead of tracebacks, and the scripting commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "XDG_"))}
    full_env.update(HOME=str(tmp_path), **env)
    return subprocess.run([sys.executable, "-m", "cctui", *args], capture_output=True,
                          text=True, env=full_env, timeout=60, check=False)


def test_version(tmp_path: Path) -> None:
    out = _run(tmp_path, "--version")
    assert out.returncode == 0
    assert out.stdout.startswith("cctui ")


def test_bad_environment_value_is_one_clear_line(tmp_path: Path) -> None:
    out = _run(tmp_path, "sessions", MAX_SESSIONS="many")
    assert out.returncode == 2
    assert "MAX_SESSIONS" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_config_file_names_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("permission_timeout_ms = -1\n")
    out = _run(tmp_path, "sessions", "--config", str(config))
    assert out.returncode == 2
    assert str(config) in out.stderr and "permission_timeout_ms" in out.stderr


def test_mcp_config_without_a_running_server_says_so(tmp_path: Path) -> None:
    out = _run(tmp_path, "mcp-config")
    assert out.returncode == 1
    assert "no running cctui" in out.stderr


def test_mcp_config_prints_client_setup_from_server_file(tmp_path: Path) -> None:
    state = tmp_path / ".local" / "state" / "cctui"
    state.mkdir(parents=True)
    (state / "server.json").write_text(json.dumps(
        {"url": "http://127.0.0.1:5555/mcp", "token": "tok123", "pid": 1}))
    out = _run(tmp_path, "mcp-config")
    assert out.returncode == 0
    assert 'claude mcp add --transport http cctui http://127.0.0.1:5555/mcp' in out.stdout
    assert "Bearer tok123" in out.stdout


def test_logs_go_to_the_state_dir_not_the_terminal(tmp_path: Path) -> None:
    out = _run(tmp_path, "mcp-config")
    assert out.stdout == ""
    assert (tmp_path / ".local" / "state" / "cctui" / "cctui.log").exists()
