"""Idle connections cannot lock out an authorized client (real sockets, a real `cctui serve`
with 256 file descriptors, the real CLI against the fake API).

The server is stopped (SIGSTOP) while each flood is opened, so it meets the whole flood in
one burst whatever the machine's load: that is what a slow or busy server sees, and what used
to take it past its connection cap into uvicorn's 503 and out of file descriptors.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.helpers import wait_started
from tests.mcp.conftest import INITIALIZE

pytestmark = pytest.mark.e2e

_LIMITED = (
    "import os, resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)); "
    "os.execv(sys.executable, [sys.executable, '-m', 'cctui', 'serve', '--http', '--port', '0'])"
)
FLOOD = 300
"""More connections than the server has file descriptors for."""
ROUNDS = 3


def _closed_by_peer(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False  # still open
    except OSError:
        return True  # reset (or never accepted and refused)


def _open_idle(address: tuple[str, int], n: int) -> list[socket.socket]:
    """``n`` connections that never send a byte."""
    socks = []
    for _ in range(n):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(address)
        socks.append(sock)
    return socks


def _initialize(address: tuple[str, int], token: str) -> socket.socket:
    """Connect and send an authorized ``initialize`` (the server need not be running)."""
    body = json.dumps(INITIALIZE).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
        f"Authorization: Bearer {token}\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    sock = socket.create_connection(address, timeout=30)  # the kernel completes it
    sock.sendall(head + body)
    return sock


def _response(sock: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until it closes (``Connection: close``)."""
    sock.settimeout(timeout)
    chunks = []
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@contextlib.contextmanager
def _stopped(pid: int) -> Iterator[None]:
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


class _Flooder(threading.Thread):
    """Keeps opening idle connections (holding the newest ``FLOOD``) until stopped."""

    def __init__(self, address: tuple[str, int], held: list[socket.socket]) -> None:
        super().__init__(daemon=True)
        self.address = address
        self.held = held
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.2):
            self.held.extend(_open_idle(self.address, 30))
            while len(self.held) > FLOOD:
                self.held.pop(0).close()


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
    state = claude_home / ".local" / "state" / "cctui"
    server_file = state / "server.json"
    idle: list[socket.socket] = []
    closed_by_server = 0
    try:
        wait_started(server, server_file.exists, "cctui serve")
        info = json.loads(server_file.read_text())
        host, port = info["url"].split("//")[1].split("/")[0].split(":")
        address = (host, int(port))
        headers = {"Authorization": f"Bearer {info['token']}"}
        for round_ in range(ROUNDS):
            # The authorized request arrives in the middle of the flood.
            with _stopped(server.pid):
                idle = _open_idle(address, FLOOD // 2)
                authorized = _initialize(address, info["token"])
                idle += _open_idle(address, FLOOD - FLOOD // 2)
            with authorized:
                response = _response(authorized, 60)
            status = response.split(b"\r\n", 1)[0]
            assert status.startswith(b"HTTP/1.1 200"), (round_, response[:300])
            assert b'"protocolVersion"' in response, (round_, response[:300])

            # While idle connections keep coming: spawn a claude, write the audit log.
            flooder = _Flooder(address, idle)
            flooder.start()
            try:
                # A hang here is the defect; the bound only turns it into a failure.
                with anyio.fail_after(120):
                    async with (
                        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
                        Client(streamable_http_client(info["url"], http_client=http)) as client,
                    ):
                        created = await client.call_tool(
                            "claude_create_session",
                            {
                                "prompt": f"[[say text=still here {round_}]]",
                                "workingDirectory": str(project_dir),
                            },
                        )
                        assert not created.is_error, created.content
                        sid = created.structured_content["sessionId"]
                        waited = await client.call_tool(
                            "claude_wait", {"sessionId": sid, "timeoutMs": 50_000}
                        )
                        assert waited.structured_content is not None
                        assert waited.structured_content["reply"] == f"still here {round_}"
                        health = await client.call_tool("claude_health", {})
                        assert health.structured_content is not None
                        assert health.structured_content["problems"] == []  # audit kept up
            finally:
                flooder.done.set()
                flooder.join()
            closed_by_server += sum(_closed_by_peer(s) for s in idle)
            for sock in idle:
                sock.close()
            idle = []
        assert closed_by_server > 0  # the server closed idle ones
        audit = (state / "audit.jsonl").read_text()
        assert audit.count("claude_create_session") >= ROUNDS
        log = (state / "cctui.log").read_text(errors="replace")
        assert "Too many open files" not in log  # the flood never took the descriptors
    finally:
        for sock in idle:
            sock.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGCONT)
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
