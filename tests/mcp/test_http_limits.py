"""Idle connections cannot lock out an authorized client (real sockets, a real `cctui serve`
with 256 file descriptors, the real CLI against the fake API)."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.e2e

_LIMITED = (
    "import os, resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)); "
    "os.execv(sys.executable, [sys.executable, '-m', 'cctui', 'serve', '--http', '--port', '0'])"
)


def _wait_for(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def _closed_by_peer(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False  # still open
    except OSError:
        return True  # reset (or never accepted and refused)


async def test_idle_connections_do_not_lock_out_a_client(
    claude_env: dict[str, str], claude_home: Path, project_dir: Path
) -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", _LIMITED],
        env=claude_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server_file = claude_home / ".local" / "state" / "cctui" / "server.json"
    idle: list[socket.socket] = []
    try:
        assert _wait_for(server_file.exists, 30)
        info = json.loads(server_file.read_text())
        host, port = info["url"].split("//")[1].split("/")[0].split(":")
        for _ in range(300):  # connections that never send a byte
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect((host, int(port)))
            idle.append(sock)
        await anyio.sleep(0.5)  # let the server accept what it can
        headers = {"Authorization": f"Bearer {info['token']}"}
        # A hang here is the defect; the bound only turns it into a failure.
        with anyio.fail_after(120):
            async with (
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
                Client(streamable_http_client(info["url"], http_client=http)) as client,
            ):
                created = await client.call_tool(
                    "claude_create_session",
                    {"prompt": "[[say text=still here]]", "workingDirectory": str(project_dir)},
                )
                assert not created.is_error, created.content
                sid = created.structured_content["sessionId"]  # type: ignore[index]
                waited = await client.call_tool(
                    "claude_wait", {"sessionId": sid, "timeoutMs": 50_000}
                )
                assert waited.structured_content is not None
                assert waited.structured_content["reply"] == "still here"
                health = await client.call_tool("claude_health", {})
                assert health.structured_content is not None
                assert health.structured_content["problems"] == []  # the audit log kept up
        audit = claude_home / ".local" / "state" / "cctui" / "audit.jsonl"
        assert "claude_create_session" in audit.read_text()
        assert sum(_closed_by_peer(s) for s in idle) > 0  # the server closed idle ones
    finally:
        for sock in idle:
            sock.close()
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
