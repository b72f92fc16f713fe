"""One ``claude_query`` run, from the call that starts it to the end of its process.

A run can outlive a call: on 2026-07-28 connections each decision asked of the caller ends
a round (an input-required result) and the retry continues the same run, and a caller that
nobody can ask gets the open inputs back at once to answer with ``claude_respond``. So the
clock, the collected messages and the end belong to the run: a supervisor waits for the
turn to end (or for maxTimeMs, then interrupts it), then ends the process (a query is one
run; it would hold a MAX_SESSIONS slot otherwise). A call only follows the run: it sends
the messages as notifications and asks the decisions routed to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPDeprecationWarning

from cctui.core import (
    AssistantTextEvent,
    PendingInput,
    ResultEvent,
    Router,
    SessionEvent,
    SessionManager,
    StatusChanged,
)
from cctui.mcp_server.asking.decisions import can_elicit, client_label
from cctui.mcp_server.asking.rounds import INTERRUPT_GRACE_S, RECHECK_S, next_decision
from cctui.mcp_server.asking.waiting import Tally
from cctui.mcp_server.render import event_text
from cctui.mcp_server.schemas.query import QueryMessage, QueryOut, QueryResult
from cctui.mcp_server.schemas.sessions import PendingInputOut

SYSTEM_KINDS = frozenset({"input_requested", "input_resolved", "error"})
"""Message types that are cctui's notices rather than the conversation (seed 003's
``includeSystemMessages: false`` leaves them out of the returned messages)."""


def _streamable(ev: SessionEvent) -> bool:
    """Partial text and status churn are not worth a notification each."""
    if isinstance(ev, AssistantTextEvent):
        return ev.complete
    return not isinstance(ev, StatusChanged)


async def _notify(ctx: Context[Any, Any], session_id: str, msg: QueryMessage) -> None:
    """One progress notification and one log message (seed 003's claude-code/messages:
    ``{type, sessionId, message, timestamp, sequence}``; ``messageType``/``text`` repeat
    the message's)."""
    with contextlib.suppress(Exception):  # a client gone mid-run must not end the run
        await ctx.report_progress(msg.seq, None, f"[{msg.type}] {msg.text[:500]}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.log(
                "info",
                {
                    "type": "claude_code_message",
                    "sessionId": session_id,
                    "message": msg.model_dump(mode="json", by_alias=True),
                    "timestamp": msg.timestamp,
                    "sequence": msg.seq,
                    "messageType": msg.type,
                    "text": msg.text,
                },
                logger_name="claude-code/messages",
            )


@dataclass
class QueryRun:
    """A running query: its session, clock, messages and decisions so far."""

    manager: SessionManager
    broker: Router
    run_id: str
    """The request state of its input-required rounds."""
    sid: str
    label: str
    """The client that started it; only it continues it in later rounds."""
    max_ms: int
    max_messages: int = 100
    """Seed 003's ``maxMessages``: the returned messages are the last this many."""
    with_system: bool = True
    """Seed 003's ``includeSystemMessages``."""
    on_over: Callable[[QueryRun], None] | None = None
    started: float = field(default_factory=time.monotonic)
    messages: list[QueryMessage] = field(default_factory=list)
    last_result: ResultEvent | None = None
    tally: Tally = field(default_factory=Tally)
    asked: PendingInput | None = None
    """The input the last input-required round asked this client about."""
    over: bool = False
    """The turn ended (or was stopped at maxTimeMs) and the process with it."""
    _sent: int = 0
    """Messages already sent as notifications (a later round sends the rest)."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _unsubscribe: Callable[[], None] | None = None

    def watch(self) -> None:
        """The session exists: collect its messages and supervise it until it ends."""
        self._unsubscribe = self.manager.subscribe(self._on_event)
        self.manager.keep(asyncio.create_task(self._supervise()))

    # -- following it from a call ---------------------------------------------------------

    async def follow(self, ctx: Context[Any, Any]) -> PendingInput | None:
        """Follow the run for one call until it is over, or a decision needs this caller.

        Returns the input to ask about in an input-required round (2026-07-28);
        handshake-era callers are asked right here. Returns None when the run is over, or
        when nobody can answer an open decision (no elicitation, no human at the TUI): the
        caller is told at once (``handed_off``) rather than left to sleep into the
        permission timeout.
        """
        label = client_label(ctx)
        elicits = can_elicit(ctx)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._stream, ctx)
            with self.broker.waiting(self.sid, label, elicits):
                item = await next_decision(ctx, self, label, elicits)
            tg.cancel_scope.cancel()
        await self._flush(ctx)
        return item

    @property
    def ended(self) -> bool:
        """The run is over (``over``)."""
        return self.over

    @property
    def changed(self) -> asyncio.Event:
        """Set at the run's next event."""
        return self._changed

    def waiting_on(self, items: list[PendingInput]) -> None:
        """Nothing to add: the caller sees the decision among the messages."""

    async def cancel(self) -> None:
        """The caller went away: stop the turn and end the process now."""
        if self.over:
            return
        with contextlib.suppress(Exception):
            await self.manager.interrupt(self.sid)
        with contextlib.suppress(Exception):
            await self.manager.end(self.sid)

    # -- messages -----------------------------------------------------------------------

    def _on_event(self, ev: SessionEvent) -> None:
        if ev.session_id != self.sid:
            return
        if isinstance(ev, ResultEvent):
            self.last_result = ev
        if _streamable(ev):
            self.messages.append(
                QueryMessage(
                    seq=ev.seq, type=ev.kind, text=event_text(ev), timestamp=ev.at.isoformat()
                )
            )
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _stream(self, ctx: Context[Any, Any]) -> None:
        while True:
            changed = self._changed
            await self._flush(ctx)
            await changed.wait()

    async def _flush(self, ctx: Context[Any, Any]) -> None:
        while self._sent < len(self.messages):
            msg = self.messages[self._sent]
            self._sent += 1
            await _notify(ctx, self.sid, msg)

    # -- the end --------------------------------------------------------------------------

    async def _supervise(self) -> None:
        """Wait for the turn to end (decisions are for others), or stop it at maxTimeMs;
        then end the process."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.max_ms / 1000 - (time.monotonic() - self.started)
        try:
            while True:
                changed = self._changed
                remaining = deadline - loop.time()
                if remaining <= 0:
                    with contextlib.suppress(Exception):
                        await self.manager.interrupt(self.sid, wait_s=INTERRUPT_GRACE_S)
                    self.tally.notes.append(f"Interrupted after {self.max_ms} ms (maxTimeMs).")
                    break
                outcome = await self.manager.wait(self.sid, remaining)
                if outcome.reason in ("turn_ended", "session_ended"):
                    break
                if outcome.reason == "input_needed":
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(changed.wait(), min(RECHECK_S, remaining))
            await anyio.sleep(0.05)  # let the last events arrive
        finally:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await self.manager.end(self.sid)
            if self._unsubscribe is not None:
                self._unsubscribe()
            self.over = True
            self._wake()
            if self.on_over is not None:
                self.on_over(self)

    # -- the result -----------------------------------------------------------------------

    def out(self) -> QueryOut:
        """Seed 003's result: the run's result when it is over, else what waits and how to
        answer it (the run goes on, and ends its process when its turn ends)."""
        final = self.manager.get(self.sid)
        pending = [] if self.over else self.manager.pending(self.sid)
        messages = self.messages
        if not self.with_system:
            messages = [m for m in messages if m.type not in SYSTEM_KINDS]
        kept = messages[-self.max_messages :]
        success = self.over and self.last_result is not None and not self.last_result.is_error
        notes = list(self.tally.notes)
        if pending:
            notes.append(
                f"Claude Code session {self.sid} waits for a decision that nobody here will "
                "make (this client cannot or did not decide it, and no human is at cctui). "
                "Answer with "
                + "; ".join(
                    f'claude_respond(sessionId="{self.sid}", inputId="{p.id}", '
                    f'decision="allow"|"deny") for {p.tool_name}'
                    for p in pending
                )
                + f', then claude_wait(sessionId="{self.sid}"). The run keeps its maxTimeMs.'
            )
        error = final.error or (" ".join(notes) or None)
        elapsed_ms = int((time.monotonic() - self.started) * 1000)
        summary = (final.last_result or "") if self.over else ""
        return QueryOut(
            session_id=self.sid,
            messages=kept,
            total_messages=len(messages),
            truncated=len(kept) < len(messages),
            execution_time=elapsed_ms,
            execution_time_ms=elapsed_ms,
            result=QueryResult(success=success, summary=summary, error=error),
            success=success,
            text=final.last_result if self.over else None,
            error=error,
            cost_usd=final.total_cost_usd,
            turn_count=final.num_turns,
            usage=(self.last_result.usage or None) if self.last_result is not None else None,
            # Routed to the human, but none is there: nobody is asked until claude_respond.
            pending_inputs=[
                PendingInputOut.of(p).model_copy(update={"asked": "nobody"}) for p in pending
            ],
        )
