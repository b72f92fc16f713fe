"""stdio <-> Streamable HTTP: a stdio-only client (Claude Desktop) reaches the running cctui.

Messages are pumped verbatim both ways, so tools, progress, logs, cancellation and
(handshake-era) elicitation all pass through; ``streamable_http_client`` handles the
session id, the GET stream and SSE.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client

from cctui.mcp_server.transport.stdio import stdio_streams

log = logging.getLogger(__name__)


async def _pump(src: Any, dst: Any, label: str) -> None:
    async with dst:
        async for msg in src:
            if isinstance(msg, Exception):  # a parse error of one message: skip it
                log.warning("bridge %s: %r", label, msg)
                continue
            await dst.send(msg)


async def bridge(url: str, token: str) -> None:
    """Serve stdio until the client closes stdin or the HTTP side goes away."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=None)
    )
    async with (
        http,
        stdio_streams() as (stdin_read, stdout_write),
        streamable_http_client(url, http_client=http) as (http_read, http_write),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(_pump, stdin_read, http_write, "stdin->http")
        await _pump(http_read, stdout_write, "http->stdout")
        tg.cancel_scope.cancel()


def say(text: str) -> None:
    """A line for the human on stderr (stdout belongs to JSON-RPC)."""
    print(f"cctui bridge: {text}", file=sys.stderr, flush=True)
