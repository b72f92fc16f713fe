"""Headless entry points: ``serve --stdio`` and ``serve --http`` (``bridge``'s is
``stdio_bridge.run_bridge``, which imports no server)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import anyio

from cctui.config import Settings
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from cctui.mcp_server.transport.stdio import stdio_streams
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
