"""claude_query: one Claude Code run to its end in one call, streamed as notifications.

A query's decisions take the usual route (``runs.query``): asked of this caller when it can
elicit (mid-call on handshake-era connections; on 2026-07-28 ones, where a tool cannot ask
mid-call, as an input-required round whose retry continues the same run), else the human at
the TUI; when neither can answer, the call returns at once with what to answer through
``claude_respond``.

No ``from __future__ import annotations``: see ``tools.sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

import asyncio
import uuid
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import InputRequiredResult
from pydantic import BaseModel, ConfigDict, Field

from cctui.core import Router, SessionManager
from cctui.core.launch import check_allowed_root
from cctui.core.runs import Run
from cctui.errors import ValidationFailed
from cctui.mcp_server.asking.decisions import can_elicit, client_label
from cctui.mcp_server.asking.rounds import Rounds
from cctui.mcp_server.runs.query import QueryRun
from cctui.mcp_server.schemas.common import ACT
from cctui.mcp_server.schemas.query import QueryOut

QUERY_DEFAULT_MAX_MS = 600_000


class QueryOptions(BaseModel):
    """Seed 003's ``options`` object; each field is also a top-level argument of claude_query."""

    model_config = ConfigDict(extra="forbid")

    cwd: str | None = None
    """The working directory (``workingDirectory``)."""
    maxTurns: int | None = Field(default=None, ge=1)  # noqa: N815 -- the seed's name
    model: str | None = None
    appendSystemPrompt: str | None = None  # noqa: N815
    allowedTools: list[str] | None = None  # noqa: N815
    maxMessages: int | None = Field(default=None, ge=1)  # noqa: N815
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


def register(server: MCPServer, manager: SessionManager, router: Router) -> None:
    """Add claude_query to ``server``."""
    rounds: Rounds[QueryRun] = Rounds(
        "a claude_query run",
        "claude_list_sessions lists recent sessions; claude_get_status shows a session's "
        "state and pending decisions.",
    )

    def forget_later(run: QueryRun) -> None:
        rounds.forget_later(run.round_id)

    async def start(ctx: Context, prompt: str, given: QueryOptions, max_ms: int) -> QueryRun:
        config = manager.default_config(
            given.cwd,
            model=given.model,
            max_turns=given.maxTurns,
            append_system_prompt=given.appendSystemPrompt,
            allowed_tools=given.allowedTools,
        )
        check_allowed_root(manager.settings, config.cwd)
        run = QueryRun(
            run=Run(manager, max_ms / 1000),
            router=router,
            label=client_label(ctx),
            round_id="query_" + uuid.uuid4().hex[:10],
            max_messages=given.maxMessages or 100,
            with_system=given.includeSystemMessages is not False,
        )
        info = await run.run.start(prompt, config)
        # The caller owns the run's decisions (asked again on a later round, first answer
        # wins with the human), if it can be asked at all.
        router.note_created(info.session_id, run.label, can_elicit(ctx))
        manager.keep(asyncio.create_task(run.supervise(forget_later)))
        return run

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
                description="Return at most this many of the last messages (default 100)",
            ),
        ] = None,
        maxTimeMs: Annotated[
            int, Field(ge=1000, description="Interrupt the run after this long (no maximum)")
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
    ) -> QueryOut | InputRequiredResult:
        """Run one Claude Code task to completion, streaming each message as a notification.

        Returns the last messages, the result, usage, cost and timing. Decisions are asked
        by elicitation when your client supports it; if nobody can answer one, returns at
        once with the pendingInputs to answer with claude_respond (the run goes on).
        Cancelling the call interrupts the run. Seed 003's {prompt, options: {...}} works
        as is; cwd is workingDirectory.
        """
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
        run = await rounds.call(ctx, lambda: start(ctx, prompt, given, maxTimeMs))
        return run if isinstance(run, InputRequiredResult) else run.out()
