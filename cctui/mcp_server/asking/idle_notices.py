"""Telling clients that a teammate went idle (seed 004's ``notifyIdle``).

In seed 004 a team member whose turn ended, now waiting for work, sends an idle
notification naming itself, its team and why (``notifyIdle(sessionId, reason)``; nothing
for a session in no team). Here the core's ``teams.idle_notice`` makes it, and each client
that called a tool on a connection able to carry a message of the server's own (stdio;
Streamable HTTP with the standalone GET stream; the 2025-11-25 handshake era) gets it as a
log message from logger ``teammates`` whose ``data`` is the notice, the channel seed 004's
other unasked output (``claude-code/output``) uses. A 2026-07-28 connection has no such
channel outside a call: ``wait_for_completion`` (or ``claude_wait``) on the teammate returns
when it goes idle.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPDeprecationWarning

from cctui.core import SessionManager, SessionStatus
from cctui.core.session.events import ResultEvent, SessionEvent, StatusChanged
from cctui.core.teams import IdleNotice, idle_notice, idle_reason
from cctui.errors import CctuiError
from cctui.mcp_server.asking.decisions import is_modern

log = logging.getLogger(__name__)

IDLE_LOGGER = "teammates"
"""The logger name an idle notice comes from (seed 004's teammates integration)."""

SEND_S = 5.0
"""How long one client may take to take a notice before it is dropped as gone."""

_WAITING = frozenset({SessionStatus.IDLE, SessionStatus.INTERRUPTED, SessionStatus.ERROR})
"""The states a turn's end leaves a live teammate in: waiting for work, whatever the turn's
outcome (the reason says which)."""


class IdleNotices:
    """Watches the manager's events; sends each teammate's idle notice to the clients kept."""

    def __init__(self, manager: SessionManager) -> None:
        self._manager = manager
        self._clients: dict[str, Any] = {}
        """Client label -> the connection (``ServerSession``) of its latest call."""
        self._reasons: dict[str, str] = {}
        """Session id -> how its turn just ended, until its status says where that left it."""
        self._sending: set[asyncio.Task[None]] = set()
        self.unsubscribe = manager.subscribe(self._on_event)

    def keep(self, label: str, ctx: Context[Any, Any]) -> None:
        """Remember this client's connection, if it can carry a message between calls."""
        if is_modern(ctx):
            return
        try:
            self._clients[label] = ctx.session
        except ValueError:  # a direct call, no connection
            return

    def _on_event(self, event: SessionEvent) -> None:
        sid = event.session_id
        if isinstance(event, ResultEvent):
            self._reasons[sid] = idle_reason(is_error=event.is_error, interrupted=event.interrupted)
            return
        if not isinstance(event, StatusChanged):
            return
        reason = self._reasons.pop(sid, None)
        if reason is None or event.ended or event.status not in _WAITING:
            return  # not a turn's end (a start, a kill, a queued turn going on)
        try:
            notice = idle_notice(self._manager.get(sid), reason, event.at)
        except CctuiError:
            return
        if notice is None or not self._clients:
            return
        task = asyncio.get_running_loop().create_task(self._send(notice))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, notice: IdleNotice) -> None:
        data = notice.model_dump()
        for label, session in list(self._clients.items()):
            try:
                with anyio.fail_after(SEND_S), warnings.catch_warnings():
                    # The SDK deprecates server log messages; seed 004's clients read them.
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await session.send_log_message("info", data, logger=IDLE_LOGGER)
            except Exception:  # its connection is gone: it is told nothing more
                log.debug("idle notice not delivered to %s; forgotten", label, exc_info=True)
                if self._clients.get(label) is session:
                    del self._clients[label]
