"""``cctui_follow``: another cctui follows this one's sessions by push, not by polling.

Internal (left out of ``tools/list``): a cctui that shows this machine as a host
(``remote.hosts``) or a window attached to this one holds one call open. It returns as
soon as one of the sessions it names, or any live one, has something new (events, an
input asked or answered, a new state), after ``settleMs`` more so that a burst of streamed
text goes as one answer; or empty when ``timeoutMs`` passes quietly. One outstanding call
per follower, whatever the number of sessions: nothing is sent while nothing happens, where
``claude_get_status`` per session per second cost both sides each second (docs/hosts.md).
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

from cctui.core import LIVE, SessionManager
from cctui.core.catalog import build_catalog
from cctui.errors import CctuiError
from cctui.mcp_server.history_view import HistoryView
from cctui.mcp_server.render import event_out
from cctui.mcp_server.schemas.common import READ
from cctui.mcp_server.schemas.follow import FollowCursor, FollowedSession, FollowOut
from cctui.mcp_server.schemas.sessions import PendingInputOut

TOOL = "cctui_follow"
ROW_KINDS = frozenset({"status", "user", "result", "error"})
"""Events after which a session's list row (title, cost, activity) is sent again: streamed
text and tool calls leave it as it was."""
MAX_HOLD_MS = 50_000
"""A call returns within this (under ``remote.client.CALL_TIMEOUT_S``)."""


def changes(
    manager: SessionManager, cursors: list[FollowCursor], limit: int
) -> list[FollowedSession]:
    """What is new since ``cursors``, and every live session no cursor names yet."""
    wanted = {c.session_id: c for c in cursors}
    spare = manager.spare_ids
    live = [s.session_id for s in manager.list() if s.status in LIVE and s.session_id not in spare]
    out: list[FollowedSession] = []
    for sid in [*wanted, *(s for s in live if s not in wanted)]:
        cursor = wanted.get(sid)
        try:
            info = manager.get(sid)
            page = manager.events(sid, since=cursor.since_seq if cursor else 0, limit=limit)
            if cursor is not None and cursor.epoch and page.epoch != cursor.epoch:
                page = manager.events(sid, since=0, limit=limit)  # its numbering restarted
                missed = True
            else:
                missed = page.missed
        except CctuiError:
            if cursor is not None:
                out.append(FollowedSession(session_id=sid, gone=True))
            continue
        if cursor is not None and not page.events and not missed:
            continue
        row = None
        if cursor is None or missed or any(e.kind in ROW_KINDS for e in page.events):
            entries = build_catalog([], [info], spare)
            row = (
                HistoryView.row(entries[0], info.config.model, info.is_active) if entries else None
            )
        out.append(
            FollowedSession(
                session_id=sid,
                state=info.status,
                events=[event_out(e) for e in page.events],
                next_seq=page.next_seq,
                missed=missed,
                epoch=page.epoch,
                has_more=page.next_seq < info.last_seq,
                pending_inputs=[PendingInputOut.of(p) for p in manager.pending(sid)],
                row=row,
            )
        )
    return out


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add the internal ``cctui_follow``."""

    @server.tool(name=TOOL, annotations=READ)
    async def cctui_follow(
        cursors: list[FollowCursor] | None = None,
        timeoutMs: Annotated[int, Field(ge=0, le=MAX_HOLD_MS)] = 25_000,  # noqa: N803
        settleMs: Annotated[int, Field(ge=0, le=2_000)] = 100,  # noqa: N803
        limit: Annotated[int, Field(ge=1, le=1_000)] = 200,
    ) -> FollowOut:
        """Internal: wait until the named or any live session changes; what changed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeoutMs / 1000
        woke = asyncio.Event()
        unsubscribe = manager.subscribe(lambda _event: woke.set())
        try:
            while True:
                woke.clear()  # before looking: an event after the look wakes the wait
                found = changes(manager, cursors or [], limit)
                left = deadline - loop.time()
                if found or left <= 0:
                    return FollowOut(sessions=found, timed_out=not found)
                try:
                    await asyncio.wait_for(woke.wait(), left)
                except TimeoutError:
                    return FollowOut(sessions=[], timed_out=True)
                await asyncio.sleep(settleMs / 1000)  # the rest of a burst in this answer
        finally:
            unsubscribe()
