"""One ``claude_query`` run as its callers see it: messages, notifications, the result.

A run can outlive a call: on 2026-07-28 connections each decision asked of the caller ends
a round (an input-required result) and the retry continues the same run, and a caller that
nobody can ask gets the open inputs back at once to answer with ``claude_respond``. So the
clock, the messages and the end belong to the run (``cctui.core.runs``), which ends the
process after its turn (a query is one run; it would hold a MAX_SESSIONS slot otherwise).
A call only follows it: it sends the messages as notifications and asks the decisions
routed to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context

from cctui.core import ApiRetryEvent, UserMessageEvent
from cctui.mcp_server.asking.progress import notify
from cctui.mcp_server.asking.rounds import Followed
from cctui.mcp_server.schemas.query import QueryOut, QueryResult
from cctui.mcp_server.schemas.sessions import PendingInputOut
from cctui.mcp_server.sdk_messages import is_system, sdk_messages
from cctui.timestamps import iso_z


def _init(run: QueryRun) -> dict[str, Any]:
    """The SDK's first message of a run: ``system``/``init`` with the session's setup."""
    info = run.manager.get(run.sid)
    return {
        "type": "system",
        "subtype": "init",
        "session_id": run.sid,
        "cwd": str(info.config.cwd),
        "model": info.config.model,
        "permissionMode": info.permission_mode,
        "eventSeq": 0,
        "kind": "init",
        "text": f"session {run.sid} in {info.config.cwd}",
        "timestamp": iso_z(info.created_at),
    }


async def _notify(
    ctx: Context[Any, Any], session_id: str, sequence: int, msg: dict[str, Any]
) -> None:
    """One progress notification and one log message (seed 003's claude-code/messages:
    ``{type, sessionId, message: SDKMessage, timestamp, sequence}``; ``messageType`` and
    ``text`` repeat the message's type and cctui's one-line rendering)."""
    await notify(
        ctx,
        sequence,
        f"[{msg['type']}] {str(msg['text'])[:500]}",
        logger="claude-code/messages",
        data={
            "type": "claude_code_message",
            "sessionId": session_id,
            "message": msg,
            "timestamp": msg["timestamp"],
            "sequence": sequence,
            "messageType": msg["type"],
            "text": msg["text"],
        },
    )


@dataclass(kw_only=True)
class QueryRun(Followed):
    """A query's run followed by its calls: its id across rounds and what it returns."""

    max_messages: int = 100
    """Seed 003's ``maxMessages``: the returned messages are the last this many."""
    with_system: bool = True
    """Seed 003's ``includeSystemMessages``."""
    _sent: int = 0
    """Messages already sent as notifications (a later round sends the rest)."""

    async def supervise(self, on_over: Callable[[QueryRun], None]) -> None:
        """Until the turn ended or maxTimeMs stopped it, then end the process."""
        try:
            await self.run.supervise(end=True)
        finally:
            on_over(self)

    @property
    def _first(self) -> int:
        """Where the run's messages start in its log: after its own prompt."""
        log = self.run.log
        return 1 if log and isinstance(log[0], UserMessageEvent) else 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The run's messages so far, as the SDK's message objects (its init first),
        numbered from 1 in ``seq`` (the notifications' ``sequence``)."""
        out = [_init(self)]
        called: set[str] = set()
        for ev in self.run.log[self._first :]:
            out.extend(sdk_messages(ev, called))
        return [{**m, "seq": n} for n, m in enumerate(out, 1)]

    async def notify(self, ctx: Context[Any, Any]) -> None:
        """Each message not yet sent, as a notification."""
        messages = self.messages
        while self._sent < len(messages):
            msg = messages[self._sent]
            self._sent += 1
            await _notify(ctx, self.sid, msg["seq"], msg)

    def out(self) -> QueryOut:
        """Seed 003's result: the run's result when it is over, else what waits and how to
        answer it (the run goes on, and ends its process when its turn ends)."""
        over, last = self.run.over, self.run.last_result
        final = self.manager.get(self.sid)
        pending = [] if over else self.manager.pending(self.sid)
        messages = self.messages
        if not self.with_system:
            messages = [m for m in messages if not is_system(m)]
        kept = messages[-self.max_messages :]
        success = over and last is not None and not last.is_error
        notes = list(self.tally.notes)
        if self.run.stopping == "timeout":
            notes.append(f"Interrupted after {self.run.max_s * 1000:.0f} ms (maxTimeMs).")
        if pending:
            notes.append(
                f"Claude Code session {self.sid} waits for a decision "
                + self.nobody_decides(pending)
                + " The run keeps its maxTimeMs."
            )
        error = final.error or (" ".join(notes) or None)
        elapsed_ms = int(self.run.elapsed_s * 1000)
        summary = (final.last_result or "") if over else ""
        return QueryOut(
            session_id=self.sid,
            messages=kept,
            total_messages=len(messages),
            truncated=len(kept) < len(messages),
            execution_time=elapsed_ms,
            execution_time_ms=elapsed_ms,
            api_retries=sum(1 for ev in self.run.log if isinstance(ev, ApiRetryEvent)),
            timed_out=self.run.stopping == "timeout",
            result=QueryResult(success=success, summary=summary, error=error),
            success=success,
            text=final.last_result if over else None,
            error=error,
            cost_usd=final.total_cost_usd,
            turn_count=final.num_turns,
            usage=(last.usage or None) if last is not None else None,
            # Routed to the human, but none is there: nobody is asked until claude_respond.
            pending_inputs=[
                PendingInputOut.of(p).model_copy(update={"asked": "nobody"}) for p in pending
            ],
        )
