"""stdio <-> Streamable HTTP: a stdio-only client (Claude Desktop) reaches the running cctui.

Messages are pumped verbatim both ways, so tools, progress, logs, cancellation and
(handshake-era) elicitation all pass through; ``streamable_http_client`` handles the
session id, the GET stream and SSE.

``--window`` (what another machine's cctui runs over ssh: ``cctui bridge --start --window``)
makes the caller this machine's human: the bridge puts this machine's window key into the
internal window tools' calls (``cctui_answer_as_window``), so a permission of a session
started here is answered from the other window as the human, not as a delegate limited to
the sessions it created. The key never leaves this machine; whoever runs the bridge is
already this user (ssh authenticated them), and could read the key as well. Never put
``--window`` in an MCP client's configuration.

A bridge serves nothing itself, so this module imports no server, tool or core module: an
attached window and each remote host link start a bridge, and those imports (the tools'
modules, the core's, uvicorn's) were about a third of its start.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest

from cctui.config import Settings
from cctui.mcp_server.transport.stdio import stdio_streams
from cctui.owner import KEYED_TOOLS, owner_endpoint, window_key

log = logging.getLogger(__name__)


def vouch(msg: SessionMessage, window_key: str) -> SessionMessage:
    """``msg`` with ``window_key`` as its ``windowKey`` when it calls a window tool."""
    req = msg.message
    if not isinstance(req, JSONRPCRequest) or req.method != "tools/call":
        return msg
    params = req.params if isinstance(req.params, dict) else {}
    if params.get("name") not in KEYED_TOOLS:
        return msg
    arguments = {**(params.get("arguments") or {}), "windowKey": window_key}
    vouched = req.model_copy(update={"params": {**params, "arguments": arguments}})
    return SessionMessage(message=vouched, metadata=msg.metadata)


async def _pump(src: Any, dst: Any, label: str, window_key: str | None = None) -> None:
    async with dst:
        async for msg in src:
            if isinstance(msg, Exception):  # a parse error of one message: skip it
                log.warning("bridge %s: %r", label, msg)
                continue
            await dst.send(vouch(msg, window_key) if window_key else msg)


async def run_bridge(settings: Settings, *, as_window: bool = False) -> int:
    """Forward a stdio client to the owner's HTTP server; 1 if none runs. ``as_window``:
    the caller is this machine's human (``vouch``)."""
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


async def bridge(url: str, token: str, window_key: str | None = None) -> None:
    """Serve stdio until the client closes stdin or the HTTP side goes away; with
    ``window_key``, the caller answers as this machine's human (``vouch``)."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=None)
    )
    async with (
        http,
        stdio_streams() as (stdin_read, stdout_write),
        streamable_http_client(url, http_client=http) as (http_read, http_write),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(_pump, stdin_read, http_write, "stdin->http", window_key)
        await _pump(http_read, stdout_write, "http->stdout")
        tg.cancel_scope.cancel()


def say(text: str) -> None:
    """A line for the human on stderr (stdout belongs to JSON-RPC)."""
    print(f"cctui bridge: {text}", file=sys.stderr, flush=True)
