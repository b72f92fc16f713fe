"""No `claude` child outlives cctui, however cctui is told to stop."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.fakes.procs import alive
from tests.helpers import bearer_http, wait_for, wait_started

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_signal_to_serve_http_ends_every_claude_process(
    claude_env: dict[str, str], claude_home: Path, project_dir: Path, sig: signal.Signals
) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http", "--port", "0"],
        env=claude_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    server_file = claude_home / ".local" / "state" / "cctui" / "server.json"
    try:
        wait_started(server, server_file.exists, "cctui serve")
        info = json.loads(server_file.read_text())
        async with (
            bearer_http(info["token"]) as http,
            Client(streamable_http_client(info["url"], http_client=http)) as client,
        ):
            created = await client.call_tool(
                "claude_create_session",
                {"prompt": "[[slow seconds=30]]", "workingDirectory": str(project_dir)},
            )
            assert not created.is_error, created.structured_content
            sid = created.structured_content["sessionId"]
            status = await client.call_tool("claude_get_status", {"sessionId": sid})
            assert status.structured_content is not None
        pid = _session_pid(claude_home, sid)
        assert alive(pid)
        server.send_signal(sig)
        assert server.wait(timeout=15) == 0
        assert wait_for(lambda: not alive(pid), 5), f"claude pid {pid} outlived cctui"
        assert not server_file.exists()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _session_pid(home: Path, session_id: str) -> int:
    """The CLI's pid, from the running-process file Claude Code writes for each session."""
    sessions = home / ".claude" / "sessions"
    found: list[int] = []

    def look() -> bool:
        for path in sessions.glob("*.json"):
            data = json.loads(path.read_text())
            if data.get("sessionId") == session_id:
                found.append(int(data["pid"]))
                return True
        return False

    assert wait_for(look, 60), "no running-process file for the session"
    return found[0]


def _descendants(root: int) -> set[int]:
    """Every live process whose parent chain leads to ``root``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return {pid for pid in found if alive(pid)}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


async def test_sigkill_of_serve_leaves_no_claude_and_no_tool_command(
    claude_env: dict[str, str], claude_home: Path, project_dir: Path
) -> None:
    """cctui killed with SIGKILL: its claude and the Bash command that claude was running
    end too (nothing cctui started outlives it, however it dies)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http", "--port", "0"],
        env=claude_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server_file = claude_home / ".local" / "state" / "cctui" / "server.json"
    spawned: set[int] = set()
    try:
        wait_started(server, server_file.exists, "cctui serve")
        info = json.loads(server_file.read_text())
        async with (
            bearer_http(info["token"]) as http,
            Client(streamable_http_client(info["url"], http_client=http)) as client,
        ):
            created = await client.call_tool(
                "claude_create_session",
                {
                    "prompt": "[[sleep-bash seconds=60]]",
                    "workingDirectory": str(project_dir),
                    "allowedTools": ["Bash"],
                },
            )
            assert not created.is_error, created.content
            sid = created.structured_content["sessionId"]
        claude_pid = _session_pid(claude_home, sid)

        def tool_running() -> bool:
            spawned.update(_descendants(server.pid))
            return any("time.sleep(60)" in _cmdline(p) for p in spawned)

        assert wait_for(tool_running, 60), [_cmdline(p) for p in spawned]
        assert claude_pid in spawned
        server.kill()
        server.wait(timeout=10)
        assert wait_for(lambda: not any(alive(p) for p in spawned), 15), [
            _cmdline(p) for p in spawned if alive(p)
        ]
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for pid in spawned:  # never leave a sleeper behind, even when the test fails
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
