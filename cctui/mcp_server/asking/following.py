"""Following a session's output as it arrives (seed 004's ``stream_output`` with
``follow``): each new piece of text, tool line, result or error goes out through
``progress.notify`` (and as a log message from logger ``claude-code/output``) until the
session's turn ends or it needs a decision.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from mcp.server.mcpserver import Context

from cctui.core import (
    AssistantTextEvent,
    ErrorEvent,
    ResultEvent,
    SessionEvent,
    SessionManager,
    ToolUseEvent,
)
from cctui.mcp_server.asking.progress import notify
from cctui.mcp_server.asking.waiting import heartbeat

OUTPUT_LOGGER = "claude-code/output"
"""The log channel seed 004's clients read the followed output from."""


class OutputChunks:
    """New output of one session as text chunks (the growth of each streamed message)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def chunk(self, ev: SessionEvent) -> str | None:
        match ev:
            case AssistantTextEvent():
                before = self._seen.get(ev.message_id, "")
                self._seen[ev.message_id] = ev.text
                new = ev.text[len(before) :] if ev.text.startswith(before) else ev.text
                return new or None
            case ToolUseEvent() if ev.state != "running":
                return f"\n[tool {ev.state}] {ev.name}\n"
            case ResultEvent():
                return f"\n[turn {'error' if ev.is_error else 'done'}]\n"
            case ErrorEvent():
                return f"\n[error] {ev.message}\n"
        return None


async def follow_output(
    ctx: Context[Any, Any], manager: SessionManager, session_id: str, wait_s: float
) -> None:
    """Send the session's new output until its turn ends or it needs a decision (waiting
    ``wait_s`` at a time, a heartbeat keeping the call alive); the last chunks go out
    before this returns."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    chunks = OutputChunks()

    def listener(ev: SessionEvent) -> None:
        if ev.session_id == session_id and (text := chunks.chunk(ev)) is not None:
            queue.put_nowait(text)

    async def pump() -> None:
        n = 0
        while (text := await queue.get()) is not None:
            n += 1
            data = {"type": "output", "session_id": session_id, "chunk": text, "sequence": n}
            await notify(ctx, n, text, logger=OUTPUT_LOGGER, data=data)

    unsubscribe = manager.subscribe(listener)
    sender = asyncio.get_running_loop().create_task(pump())
    try:
        with heartbeat(ctx, session_id):
            while (await manager.wait(session_id, wait_s)).reason == "timeout":
                pass
        queue.put_nowait(None)  # the last chunks go out before the answer
        await sender
    finally:
        unsubscribe()
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
