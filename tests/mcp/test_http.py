"""The embedded Streamable HTTP server: auth, Host/Origin checks, both protocol eras."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from cctui.config import Settings
from cctui.mcp_server.server import CctuiMCPServer
from cctui.mcp_server.transport.http import HttpService
from tests.mcp.conftest import INITIALIZE, Answers, authed, client

DISCOVER = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {}}}
ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
MODERN = {**ACCEPT, "MCP-Protocol-Version": "2026-07-28"}


@pytest.fixture
async def http(server: CctuiMCPServer, settings: Settings) -> AsyncIterator[HttpService]:
    service = HttpService(server, settings)
    await service.start()
    yield service
    await service.stop()


async def test_server_file_is_private_and_removed_on_stop(
    server: CctuiMCPServer, settings: Settings
) -> None:
    service = HttpService(server, settings)
    await service.start()
    info = json.loads(settings.server_file.read_text())
    assert info == {"url": service.url, "token": service.token, "pid": os.getpid()}
    assert stat.S_IMODE(settings.server_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((settings.state_dir / "token").stat().st_mode) == 0o600
    assert service.status_line().startswith(f"MCP {service.url} · 0 clients")
    await service.stop()
    assert not settings.server_file.exists()
    # The token survives restarts, so client configs keep working.
    again = HttpService(server, settings)
    await again.start()
    assert again.token == service.token
    await again.stop()


async def test_taken_port_falls_back_to_a_free_one(
    server: CctuiMCPServer, settings: Settings, http: HttpService
) -> None:
    taken = int(http.url.rsplit(":", 1)[1].split("/")[0])
    other = HttpService(server, settings.model_copy(update={"http_port": taken}))
    await other.start()
    try:
        assert other.url != http.url
    finally:
        await other.stop()


@pytest.mark.parametrize(
    ("body", "headers"), [(INITIALIZE, ACCEPT), (DISCOVER, MODERN)], ids=["legacy", "modern"]
)
async def test_security_checks(
    http: HttpService, body: dict[str, Any], headers: dict[str, str]
) -> None:
    bearer = {"Authorization": f"Bearer {http.token}"}
    async with httpx2.AsyncClient() as raw:
        assert (await raw.post(http.url, json=body, headers=headers)).status_code == 401
        wrong = {**headers, "Authorization": "Bearer nope"}
        assert (await raw.post(http.url, json=body, headers=wrong)).status_code == 401
        evil = {**headers, **bearer, "Origin": "http://evil.example"}
        assert (await raw.post(http.url, json=body, headers=evil)).status_code == 403
        host = {**headers, **bearer, "Host": "evil.example"}
        assert (await raw.post(http.url, json=body, headers=host)).status_code == 421
        local = {**headers, **bearer, "Origin": "http://localhost:3000"}
        # Past the checks (a bare discover probe may still be a 400 of the protocol itself).
        assert (await raw.post(http.url, json=body, headers=local)).status_code in (200, 400)
        assert (await raw.post(http.url, json=body, headers={**headers, **bearer})).status_code in (
            200,
            400,
        )


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_write_approved_by_elicitation_over_http(http: HttpService, mode: str) -> None:
    answers = Answers("accept", {"decision": "allow"})
    async with client(authed(http), name="http-client", elicit=answers, mode=mode) as c:
        assert c.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        r = await c.call_tool("claude_create_session", {"prompt": "please write"})
        sid = r.structured_content["sessionId"]
        r = await c.call_tool("claude_wait", {"sessionId": sid, "timeoutMs": 10000})
        out = r.structured_content
        assert out is not None and not r.is_error, r
        assert answers.asked and "Write" in answers.asked[0]
        # Legacy: the creator is asked between calls too (seed 002 Flow A), perhaps before
        # this wait began; whichever asked, the client decided.
        assert all(a["decidedBy"] == "mcp:http-client" for a in out["answered"])
        if mode != "legacy":
            assert out["answered"]
        if out["reason"] == "input_needed":  # the between-calls ask was still in flight
            r = await c.call_tool("claude_wait", {"sessionId": sid, "timeoutMs": 10000})
            out = r.structured_content
            assert out is not None
        assert out["reason"] == "turn_ended"
    assert http.client_count >= 1


async def test_a_request_head_sent_byte_by_byte_is_cut_off(
    http: HttpService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trickling a request head keeps no connection open: the head has one deadline
    (0.5 s here instead of 5 s: the test waits it out; 200 bytes at 0.1 s each outlast it)."""
    import socket

    import anyio

    from cctui.mcp_server.transport import http as transport

    monkeypatch.setattr(transport, "REQUEST_TIMEOUT_S", 0.5)

    host, port = http.url.split("//")[1].split("/")[0].split(":")
    sock = socket.create_connection((host, int(port)))
    sock.setblocking(False)
    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
    closed = False
    try:
        with anyio.move_on_after(60):  # the bound only turns a hang into a failure
            for byte in head:
                try:
                    sock.send(bytes([byte]))
                except OSError:
                    closed = True
                    break
                try:
                    closed = sock.recv(1) == b""
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
                if closed:
                    break
                await anyio.sleep(0.1)
    finally:
        sock.close()
    assert closed, "the server kept a trickling connection open"
