"""claude_query (one blocking run, streamed as notifications), history tools, and health.

No ``from __future__ import annotations``: see ``tools_sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

import asyncio
import contextlib
import time
import warnings
from typing import Annotated

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, ConfigDict, Field

from cctui.config import Settings
from cctui.core import (
    AssistantTextEvent,
    ResultEvent,
    SessionEvent,
    SessionManager,
    StatusChanged,
)
from cctui.errors import ValidationFailed
from cctui.history import HistoryIndex
from cctui.mcp_server import history_view
from cctui.mcp_server.decisions import DecisionBroker, can_elicit, client_label, is_modern
from cctui.mcp_server.health import check_health
from cctui.mcp_server.render import event_text
from cctui.mcp_server.schemas import PendingInputOut
from cctui.mcp_server.schemas_more import (
    HealthOut,
    QueryMessage,
    QueryOut,
    QueryResult,
    SessionListOut,
    TranscriptOut,
)
from cctui.mcp_server.tools_sessions import ACT, READ, SessionId
from cctui.mcp_server.waiting import Tally, drive

QUERY_DEFAULT_MAX_MS = 600_000
SYSTEM_KINDS = frozenset({"input_requested", "input_resolved", "error"})
"""Message types that are cctui's notices rather than the conversation (seed 003's
``includeSystemMessages: false`` leaves them out of the returned messages)."""


class QueryOptions(BaseModel):
    """Seed 003's ``options`` object; each field is also a top-level argument of claude_query."""

    model_config = ConfigDict(extra="forbid")

    cwd: str | None = None
    """The working directory (``workingDirectory``)."""
    maxTurns: int | None = Field(default=None, ge=1)  # noqa: N815 -- the seed's name
    model: str | None = None
    appendSystemPrompt: str | None = None  # noqa: N815
    allowedTools: list[str] | None = None  # noqa: N815
    maxMessages: int | None = Field(default=None, ge=1, le=1000)  # noqa: N815
    includeSystemMessages: bool | None = None  # noqa: N815


def _merged(flat: QueryOptions, options: QueryOptions | None) -> QueryOptions:
    """The top-level arguments with ``options`` filled in; the same setting given twice
    with different values is refused (which one was meant?)."""
    if options is None:
        return flat
    out = flat.model_dump()
    for key, value in options.model_dump(exclude_none=True).items():
        if out[key] is not None and out[key] != value:
            name = "workingDirectory" if key == "cwd" else key
            raise ValidationFailed(
                f"options.{key} and {name} disagree.",
                suggestion="Pass the setting once, at the top level or in options.",
            )
        out[key] = value
    return QueryOptions(**out)


def _streamable(ev: SessionEvent) -> bool:
    """Partial text and status churn are not worth a notification each."""
    if isinstance(ev, AssistantTextEvent):
        return ev.complete
    return not isinstance(ev, StatusChanged)


async def _notify(ctx: Context, session_id: str, msg: QueryMessage) -> None:
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


def register(
    server: MCPServer,
    manager: SessionManager,
    broker: DecisionBroker,
    settings: Settings,
    index: HistoryIndex | None = None,
) -> None:
    """Add claude_query, the history tools and claude_health to ``server`` (``index``: a
    history index kept live by someone else, the TUI)."""
    history = history_view.HistoryView(settings, manager, index)

    @server.tool(annotations=ACT)
    async def claude_query(
        prompt: Annotated[str, Field(min_length=1, description="The task for Claude Code")],
        ctx: Context,
        workingDirectory: Annotated[
            str | None, Field(description="Project directory (default: cctui's)")
        ] = None,
        model: Annotated[str | None, Field(description="Model override")] = None,
        maxTurns: Annotated[int | None, Field(ge=1, description="Cap on agentic turns")] = None,
        appendSystemPrompt: Annotated[
            str | None, Field(description="Text appended to the system prompt")
        ] = None,
        allowedTools: Annotated[
            list[str] | None, Field(description="Tools that run without asking")
        ] = None,
        maxMessages: Annotated[
            int | None,
            Field(
                ge=1,
                le=1000,
                description="Return at most this many of the last messages (default 100)",
            ),
        ] = None,
        maxTimeMs: Annotated[
            int, Field(ge=1000, le=3_600_000, description=("Interrupt the run after this long"))
        ] = QUERY_DEFAULT_MAX_MS,
        includeSystemMessages: Annotated[
            bool | None,
            Field(
                description="Include cctui's notices (decisions asked and answered, errors) "
                "in the returned messages (default true); notifications always carry them"
            ),
        ] = None,
        options: Annotated[
            QueryOptions | None,
            Field(
                description="Seed 003's options object (cwd, maxTurns, model, "
                "appendSystemPrompt, allowedTools, maxMessages, includeSystemMessages); "
                "the same settings as the top-level arguments"
            ),
        ] = None,
    ) -> QueryOut:
        """Run one Claude Code task to completion, streaming each message as a notification.

        Returns the last messages, the result, usage, cost and timing. Cancelling the call
        interrupts the run. Seed 003's {prompt, options: {...}} works as is; cwd is
        workingDirectory.
        """
        started = time.monotonic()
        given = _merged(
            QueryOptions(
                cwd=workingDirectory,
                model=model,
                maxTurns=maxTurns,
                appendSystemPrompt=appendSystemPrompt,
                allowedTools=allowedTools,
                maxMessages=maxMessages,
                includeSystemMessages=includeSystemMessages,
            ),
            options,
        )
        max_messages = given.maxMessages or 100
        with_system = given.includeSystemMessages is not False
        config = manager.default_config(
            given.cwd,
            model=given.model,
            max_turns=given.maxTurns,
            append_system_prompt=given.appendSystemPrompt,
            allowed_tools=given.allowedTools,
        )
        info = await manager.create(prompt, config)
        sid = info.session_id
        label = client_label(ctx)
        if can_elicit(ctx) and not is_modern(ctx):
            broker.note_owner(sid, label, True)
        queue: asyncio.Queue[SessionEvent] = asyncio.Queue()
        unsubscribe = manager.subscribe(
            lambda ev: queue.put_nowait(ev) if ev.session_id == sid else None
        )
        messages: list[QueryMessage] = []
        last_result: ResultEvent | None = None
        tally = Tally()
        deadline = asyncio.get_running_loop().time() + maxTimeMs / 1000

        async def pump() -> None:
            nonlocal last_result
            while True:
                ev = await queue.get()
                if isinstance(ev, ResultEvent):
                    last_result = ev
                if _streamable(ev):
                    msg = QueryMessage(
                        seq=ev.seq, type=ev.kind, text=event_text(ev), timestamp=ev.at.isoformat()
                    )
                    messages.append(msg)
                    await _notify(ctx, sid, msg)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump)
                while True:
                    outcome = await drive(ctx, manager, broker, sid, deadline, tally)
                    if outcome.reason != "input_needed":
                        break
                    # Someone else decides (human, claude_respond, the core's timeout).
                    await anyio.sleep(0.1)
                    if asyncio.get_running_loop().time() >= deadline:
                        break
                if outcome.reason == "timeout":
                    await manager.interrupt(sid)
                    tally.notes.append(f"Interrupted after {maxTimeMs} ms (maxTimeMs).")
                await anyio.sleep(0.05)  # let the last events reach the pump
                tg.cancel_scope.cancel()
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await manager.interrupt(sid)
            raise
        finally:
            unsubscribe()
            # A query is one run: its process ends with it (it would hold a MAX_SESSIONS
            # slot forever otherwise). The session stays listed and resumable.
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await manager.end(sid)
        final = manager.get(sid)
        if not with_system:
            messages = [m for m in messages if m.type not in SYSTEM_KINDS]
        kept = messages[-max_messages:]
        success = last_result is not None and not last_result.is_error
        error = final.error or (" ".join(tally.notes) or None)
        elapsed_ms = int((time.monotonic() - started) * 1000)
        return QueryOut(
            session_id=sid,
            messages=kept,
            total_messages=len(messages),
            truncated=len(kept) < len(messages),
            execution_time=elapsed_ms,
            execution_time_ms=elapsed_ms,
            result=QueryResult(success=success, summary=final.last_result or "", error=error),
            success=success,
            text=final.last_result,
            error=error,
            cost_usd=final.total_cost_usd,
            turn_count=final.num_turns,
            usage=(last_result.usage or None) if last_result is not None else None,
            pending_inputs=[PendingInputOut.of(p) for p in manager.pending(sid)],
        )

    @server.tool(annotations=READ)
    async def claude_list_sessions(
        projectDirectory: Annotated[
            str | None, Field(description="Only sessions whose working directory is this path")
        ] = None,
        status: Annotated[
            str | None,
            Field(
                description="Only sessions in this state, e.g. running, waiting_for_input, idle, "
                "completed"
            ),
        ] = None,
        team: Annotated[str | None, Field(description="Only sessions of this team")] = None,
        text: Annotated[
            str | None, Field(description="Only sessions whose title or prompt contains this text")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="Most recent first")] = 50,
    ) -> SessionListOut:
        """List Claude Code sessions (cctui's and any on this machine), newest first.

        Any listed session can be continued with claude_send_message. Seed 004 list_sessions
        names work too: status_filter (all, active, inactive, error), team_filter, limit;
        include_metadata is accepted and ignored (every row carries all its fields).
        """
        return await history.list(projectDirectory, status, team, text, limit)

    @server.tool(annotations=READ)
    async def claude_get_transcript(
        sessionId: SessionId,
        offset: Annotated[int, Field(ge=0, description="First message index")] = 0,
        limit: Annotated[int, Field(ge=1, le=200, description="Messages per page")] = 50,
    ) -> TranscriptOut:
        """Read a Claude Code session's conversation (any session on this machine), paged."""
        return await history.transcript(sessionId, offset, limit)

    register_health(server, manager, settings)


def register_health(server: MCPServer, manager: SessionManager, settings: Settings) -> None:
    """claude_health alone (also the ``menu`` profile's only tool here)."""

    @server.tool(annotations=READ)
    async def claude_health() -> HealthOut:
        """Check that Claude Code can run here: CLI found, its version and path, or why not."""
        health = await check_health(settings, active=len(manager.list(active_only=True)))
        return health.model_copy(update={"problems": manager.problems})
