"""Headless entry points: ``serve --stdio``, ``serve --http`` and ``bridge``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import anyio
import httpx2

from cctui.config import Settings
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from cctui.mcp_server.transport.stdio import stdio_streams
from cctui.mcp_server.transport.stdio_bridge import bridge, say
from cctui.owner import owner_endpoint, window_key
from cctui.services import Services

log = logging.getLogger(__name__)


async def serve_stdio(services: Services, settings: Settings) -> None:
    """Serve MCP on stdin/stdout until stdin closes; stdout carries JSON-RPC only."""
    server = build_server(services.manager, settings, services=services)
    async with stdio_streams() as (read_stream, write_stream):
        await server.serve_streams(read_stream, write_stream)


async def serve_http(
    services: Services, settings: Settings, listening: Callable[[str], None] | None = None
) -> None:
    """Serve Streamable HTTP without a TUI until cancelled; ``listening`` gets the URL."""
    service = HttpService(build_server(services.manager, settings, services=services), settings)
    await service.start()
    if listening is not None:
        listening(service.url)
    try:
        await asyncio.Event().wait()
    finally:
        with anyio.CancelScope(shield=True):
            await service.stop()


async def run_bridge(settings: Settings, *, as_window: bool = False) -> int:
    """Forward a stdio client to the owner's HTTP server; 1 if none runs. ``as_window``:
    the caller is this machine's human (``stdio_bridge.vouch``)."""
    endpoint = owner_endpoint(settings.state_dir)
    if endpoint is None:
        say(
            f"no running cctui owns the sessions of {settings.state_dir}. "
            "Start `cctui` or `cctui serve --http` first, or run `cctui bridge --start`."
        )
        return 1
    url, token = endpoint
    try:
        async with httpx2.AsyncClient(timeout=5) as probe:
            await probe.get(url, headers={"Authorization": f"Bearer {token}"})
    except httpx2.HTTPError as exc:
        say(f"cctui's MCP server at {url} does not answer ({exc.__class__.__name__}).")
        return 1
    log.info("bridging stdio to %s", url)
    with contextlib.suppress(anyio.get_cancelled_exc_class()):
        key = window_key(settings.state_dir, create=True) if as_window else None
        await bridge(url, token, key)
    return 0
