"""Dispatch tools: the queue past the session limit, and schedules (``core.dispatch``)."""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui.core import SessionManager
from cctui.errors import ValidationFailed
from cctui.mcp_server.asking.decisions import client_label
from cctui.mcp_server.schemas.common import ACT, READ
from cctui.mcp_server.schemas.dispatch import QueueOut, ScheduleOut, SchedulesOut

CANCEL = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)
"""Removes a schedule or a queued session for good."""


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add the dispatch tools to ``server``."""
    dispatch = manager.dispatch

    @server.tool(annotations=ACT)
    async def claude_queue(
        ctx: Context,
        action: Annotated[
            Literal["list", "move", "start_now", "cancel"],
            Field(
                description="list: the queue; move: put sessionId at position; start_now: "
                "start sessionId now, over the session limit; cancel: take it off the queue "
                "(sessions waiting for it are cancelled too, saying why)"
            ),
        ] = "list",
        sessionId: Annotated[
            str | None, Field(max_length=200, description="A queued session (not for list)")
        ] = None,
        position: Annotated[
            int | None, Field(ge=1, description="move: the new place, 1 = starts next")
        ] = None,
    ) -> QueueOut:
        """The sessions queued past the session limit (only working sessions hold a slot),
        waiting for the sessions they run after, or for the usage limit's reset; reorder,
        start now or cancel one."""
        if action != "list":
            if sessionId is None:
                raise ValidationFailed(f"{action} needs sessionId.")
            if action == "move":
                if position is None:
                    raise ValidationFailed("move needs position (1 = starts next).")
                dispatch.move(sessionId, position)
            elif action == "start_now":
                dispatch.start_now(sessionId)
            else:
                dispatch.cancel(sessionId, f"mcp:{client_label(ctx)}")
        return QueueOut.of(manager, action, sessionId)

    @server.tool(annotations=ACT)
    async def claude_schedule(
        name: Annotated[str, Field(min_length=1, max_length=100, description="Unique name")],
        when: Annotated[
            str,
            Field(
                max_length=200,
                description="Cron ('0 9 * * 1-5'), 'every weekday 09:00', 'daily 07:30', "
                "'every mon,thu 18:00', 'every 15 minutes', 'at 2026-12-01 09:00' or "
                "'in 10 minutes' (times in timezone, default the machine's)",
            ),
        ],
        prompt: Annotated[str, Field(min_length=1, description="What each run is asked")],
        workingDirectory: Annotated[
            str | None, Field(description="The project directory (default: cctui's)")
        ] = None,
        model: Annotated[str | None, Field(description="Model for each run")] = None,
        permissionMode: Annotated[
            Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
            | None,
            Field(description="Permission mode for each run"),
        ] = None,
        allowedTools: Annotated[
            list[str] | None, Field(description="Tools each run may use without asking")
        ] = None,
        worktree: Annotated[
            bool | str | None, Field(description="Each run in a new git worktree of its own")
        ] = None,
        missed: Annotated[
            Literal["once", "skip", "all"],
            Field(
                description="Runs missed while cctui was not running or the machine slept: "
                "once (one run when back), skip, or all (one after another, never at once)"
            ),
        ] = "once",
        timezone: Annotated[
            str | None, Field(max_length=64, description="IANA zone, e.g. Europe/Paris")
        ] = None,
        priority: Annotated[
            int,
            Field(ge=-100, le=100, description="Each run's place when queued: higher first"),
        ] = 0,
    ) -> ScheduleOut:
        """Schedule a session: once at a time, or again and again. Each run is a normal
        session (queued if the limit is reached) naming its schedule. Schedules are kept in
        cctui's state and fire only while a cctui owns the sessions."""
        config = manager.default_config(
            workingDirectory,
            model=model,
            permission_mode=permissionMode,
            allowed_tools=allowedTools,
        )
        schedule = dispatch.add_schedule(
            name,
            when,
            prompt,
            config,
            worktree=worktree,
            missed=missed,
            timezone=timezone,
            priority=priority,
        )
        return ScheduleOut.of(schedule, manager)

    @server.tool(annotations=READ)
    async def claude_list_schedules() -> SchedulesOut:
        """Every schedule: next run, last runs and their sessions' states, paused or not."""
        return SchedulesOut(
            schedules=[ScheduleOut.of(s, manager) for s in dispatch.list_schedules()]
        )

    @server.tool(annotations=CANCEL)
    async def claude_cancel_schedule(
        schedule: Annotated[str, Field(min_length=1, description="The schedule's id or name")],
    ) -> ScheduleOut:
        """Delete a schedule; its past runs stay listed as sessions."""
        return ScheduleOut.of(dispatch.cancel_schedule(schedule), manager)
