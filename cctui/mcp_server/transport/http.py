"""Streamable HTTP inside the app's event loop: loopback only, bearer token, Host/Origin checks."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import resource
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from uvicorn.protocols.http.h11_impl import H11Protocol

from cctui.config import Settings
from cctui.core.policy import ClientRegistry
from cctui.errors import CctuiError
from cctui.mcp_server.transport.auth import (
    BearerAuth,
    load_or_create_token,
    read_server_file,
    write_private,
)

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"]
LOOPBACK_ORIGINS = [
    f"{scheme}://{host}:*"
    for scheme in ("http", "https")
    for host in ("localhost", "127.0.0.1", "[::1]")
] + [
    f"{scheme}://{host}"
    for scheme in ("http", "https")
    for host in ("localhost", "127.0.0.1", "[::1]")
]


REQUEST_TIMEOUT_S = 5.0
"""A connection must send a complete request head this soon after it opens (or after its
previous response): idle or trickling connections are closed, not held forever."""


def connection_cap() -> int:
    """How many connections to keep: a quarter of the file descriptors, at most 256, so
    spawning ``claude`` (pipes) and writing the audit log never starve."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 256
    return max(8, min(256, soft // 4))


def accept_batch(cap: int) -> int:
    """How many connections asyncio accepts in one tick (uvicorn's ``backlog``).

    Accepting takes a descriptor before the cap can close anything: asyncio accepts up to
    ``backlog`` sockets per tick, and a batch is reconciled with the cap about three ticks
    later, so at most ``cap + 3 * batch`` sockets are open. uvicorn's default (2048) let one
    burst exhaust the descriptors (and asyncio then logs an EMFILE traceback per attempt).
    """
    return max(4, cap // 4)


LISTEN_BACKLOG = 1024
"""The kernel's queue of connections waiting to be accepted (costs no descriptor): a flood
waits there instead of making clients, authorized ones too, retry their SYN seconds later."""


class _GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head, and a cap on open
    connections: over the cap, the idle connection that has waited longest is closed,
    preferring one that never sent a request (a served client's keep-alive goes last).

    uvicorn only times out a connection between requests (``timeout_keep_alive``); one that
    never sends a byte, or sends a request head byte by byte, would otherwise stay open.
    """

    cap = 256
    _dropped = 0
    _warned_at = float("-inf")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self.waiting_since = 0.0
        self.served = False
        """A request head arrived on this connection."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        # Connections closed but not yet lost stay in the set until their connection_lost
        # (the next tick): never count them, nor pick one again. Picking the same
        # already-closing "oldest" for a whole burst let the set grow past
        # ``limit_concurrency``, and uvicorn answered 503 to everyone.
        live = [c for c in self.connections if not c.transport.is_closing()]
        if len(live) <= self.cap:
            return
        waiting = [c for c in live if isinstance(c, _GuardedH11) and c._head_timer is not None]
        victim = min(waiting, key=lambda c: (c.served, c.waiting_since), default=self)
        victim._drop()
        self._warn_dropped(len(live))

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not None and self.cycle is not cycle:
            self.served = True
            self._disarm()  # a complete request head arrived

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request head has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self.waiting_since = self.loop.time()
        self._head_timer = self.loop.call_later(REQUEST_TIMEOUT_S, self._expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expired(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self._drop()

    def _drop(self) -> None:
        """Close an idle connection and stop counting it now, not at connection_lost:
        uvicorn's ``limit_concurrency`` counts the set, and idle sockets must not reach it."""
        self._disarm()
        self.connections.discard(self)
        self.transport.close()

    def _warn_dropped(self, live: int) -> None:
        """One warning every few seconds, not one per connection of a flood."""
        cls = _GuardedH11
        cls._dropped += 1
        now = self.loop.time()
        if now - cls._warned_at >= REQUEST_TIMEOUT_S:
            log.warning(
                "too many MCP connections (%d open): closing idle ones, oldest first "
                "(%d since the last warning)",
                live,
                cls._dropped,
            )
            cls._warned_at, cls._dropped = now, 0


class _Uvicorn(uvicorn.Server):
    """uvicorn that leaves signals to the host (Textual or ``serve``)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _bind(host: str, port: int) -> socket.socket:
    """Bind ``port``, or any free port if it is taken (the URL goes to server.json)."""
    for candidate in (port, 0) if port else (0,):
        # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on accepted connections when
        # the listening socket says it is TCP; without it every response waits ~40 ms
        # (Nagle + delayed ACK on uvicorn's separate header and body writes).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, candidate))
        except OSError as exc:
            sock.close()
            if exc.errno == errno.EADDRINUSE and candidate:
                log.warning("port %d is taken; serving MCP on a free port instead", candidate)
                continue
            raise CctuiError(f"cannot listen on {host}:{candidate}: {exc.strerror}") from None
        sock.listen(128)
        sock.setblocking(False)
        return sock
    raise CctuiError(f"no free port on {host}")  # pragma: no cover


class HttpService:
    """The MCP server as a background ``HostedService`` of the app (or of ``serve --http``)."""

    def __init__(self, server: MCPServer, settings: Settings) -> None:
        self.server = server
        self.settings = settings
        self.token = ""
        self._port = 0
        self._uv: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>/mcp`` once started."""
        return f"http://{self.settings.http_host}:{self._port}/mcp"

    @property
    def client_count(self) -> int:
        """Clients seen recently (2026-07-28 clients keep no session, so count callers)."""
        count = getattr(self.server, "client_count", None)
        return int(count()) if callable(count) else 0

    def status_line(self) -> str:
        """``MCP <url> · N clients`` (or that it is off)."""
        if self._task is None or self._task.done():
            return "MCP off"
        n = self.client_count
        return f"MCP {self.url} · {n} client{'' if n == 1 else 's'}"

    async def start(self) -> None:
        """Bind, serve in a task of the running loop, publish url+token in server.json."""
        if self._task is not None and not self._task.done():
            return
        self.token = load_or_create_token(self.settings.state_dir)
        app = self.server.streamable_http_app(
            host=self.settings.http_host,
            transport_security=TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=LOOPBACK_HOSTS,
                allowed_origins=LOOPBACK_ORIGINS,
            ),
        )
        sock = _bind(self.settings.http_host, self.settings.http_port)
        self._port = sock.getsockname()[1]
        cap = connection_cap()
        config = uvicorn.Config(
            BearerAuth(app, self.token, _clients(self.server)),
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=2,
            http=type("GuardedH11", (_GuardedH11,), {"cap": cap}),
            # uvicorn's own bound (a 503) stays above the cap, which closes idle ones first,
            # so only requests in flight can reach it.
            limit_concurrency=cap + 16,
            backlog=accept_batch(cap),
            timeout_keep_alive=int(REQUEST_TIMEOUT_S),
        )
        self._uv = _Uvicorn(config)
        self._task = asyncio.create_task(self._uv.serve(sockets=[sock]), name="cctui-mcp-http")
        while not self._uv.started:
            if self._task.done():
                sock.close()
                exc = self._task.exception()
                raise CctuiError(f"the MCP HTTP server did not start: {exc!r}")
            await asyncio.sleep(0.01)
        # asyncio listens with ``backlog`` (the accept batch); the kernel's queue can be longer.
        sock.listen(LISTEN_BACKLOG)
        write_private(
            self.settings.server_file,
            json.dumps({"url": self.url, "token": self.token, "pid": os.getpid()}) + "\n",
        )
        log.info("MCP server listening on %s", self.url)

    async def stop(self) -> None:
        """Stop serving and remove server.json if it still describes us. Idempotent."""
        task, uv = self._task, self._uv
        self._task = self._uv = None
        if task is not None and uv is not None:
            uv.should_exit = True
            try:
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (TimeoutError, asyncio.CancelledError):
                uv.force_exit = True
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            except Exception:
                log.exception("MCP HTTP server stopped with an error")
        info = read_server_file(self.settings.server_file)
        if info is not None and info.get("pid") == os.getpid() and info.get("url") == self.url:
            self.settings.server_file.unlink(missing_ok=True)


def _clients(server: MCPServer) -> ClientRegistry | None:
    """The registered clients of the manager this server serves (a bare MCPServer: none)."""
    manager = getattr(server, "manager", None)
    decisions = getattr(manager, "decisions", None)
    ladder = getattr(decisions, "ladder", None)
    return getattr(ladder, "clients", None)
