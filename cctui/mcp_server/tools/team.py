"""Team and context tools (claude_broadcast, claude_send_to_teammate, claude_request_shutdown,
claude_sync_context).

No ``from __future__ import annotations``: see ``tools.sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (as in the seeds)

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from cctui.core import Router, SessionManager, teams
from cctui.mcp_server.asking.decisions import can_elicit, client_label
from cctui.mcp_server.schemas.common import ACT, SessionId
from cctui.mcp_server.schemas.team import BroadcastOut, DeliveryOut, ShutdownOut, SyncContextOut
from cctui.projects import context


def register(server: MCPServer, manager: SessionManager, router: Router) -> None:
    """Add the team tools and claude_sync_context to ``server``."""

    @server.tool(annotations=ACT)
    async def claude_broadcast(
        team: Annotated[str, Field(min_length=1, description="The team's name")],
        message: Annotated[str, Field(min_length=1, description="The message every member gets")],
        ctx: Context,
    ) -> BroadcastOut:
        """Send one message to every Claude Code session of a team (ended ones are resumed).

        Reports delivery per session; one member failing does not stop the others.
        """
        label, elicits = client_label(ctx), can_elicit(ctx)
        for member in teams.members(manager, team):
            router.note_owner(member.session_id, label, elicits)
        results = await teams.broadcast(manager, team, message)
        out = [DeliveryOut.model_validate(r.model_dump()) for r in results]
        ok = sum(1 for r in out if r.delivered)
        return BroadcastOut(team=team, delivered=ok, failed=len(out) - ok, results=out)

    @server.tool(annotations=ACT)
    async def claude_send_to_teammate(
        team: Annotated[str, Field(min_length=1, description="The team's name")],
        teammate: Annotated[str, Field(min_length=1, description="The teammate's name")],
        message: Annotated[str, Field(min_length=1, description="The message")],
        ctx: Context,
    ) -> DeliveryOut:
        """Send a message to one session of a team, addressed by its teammate name (seed
        004's sendToTeammate); an ended session is resumed first."""
        member = teams.teammate(manager, team, teammate)
        router.note_owner(member.session_id, client_label(ctx), can_elicit(ctx))
        result = await teams.send_to_teammate(manager, team, teammate, message)
        return DeliveryOut.model_validate(result.model_dump())

    @server.tool(annotations=ACT)
    async def claude_request_shutdown(
        team: Annotated[str, Field(min_length=1, description="The team's name")],
        teammate: Annotated[str, Field(min_length=1, description="The teammate's name")],
        ctx: Context,
        reason: Annotated[
            str | None, Field(max_length=2000, description="Why it should stop (it is told)")
        ] = None,
        timeoutMs: Annotated[
            int, Field(ge=1000, le=600_000, description="How long to wait for its answer")
        ] = 120_000,
    ) -> ShutdownOut:
        """Ask a teammate to shut down, and wait for its answer (seed 004's requestShutdown).

        The teammate is told why and answers in its reply (`SHUTDOWN: approve` or
        `SHUTDOWN: reject <why>`), so it can finish or save its work first. Approved: its
        process is ended (the session stays resumable). Rejected, or no answer in time: it
        keeps running, and the result says why.
        """
        member = teams.teammate(manager, team, teammate)
        label = client_label(ctx)
        router.note_owner(member.session_id, label, can_elicit(ctx))
        answer = await teams.request_shutdown(
            manager,
            team,
            teammate,
            reason=reason,
            requested_by=f"The MCP client {label!r}",
            timeout_s=timeoutMs / 1000,
        )
        return ShutdownOut.model_validate(answer.model_dump())

    @server.tool(annotations=ACT)
    async def claude_sync_context(
        sessionId: SessionId,
        ctx: Context,
        context_type: Annotated[
            Literal["files", "env", "git", "all"],
            Field(description="git status, files, environment variable names, or all"),
        ] = "all",
        paths: Annotated[
            list[str] | None,
            Field(
                description="Files or directories (inside the session's project) to include; "
                "omit to list the project's files"
            ),
        ] = None,
        force: Annotated[
            bool, Field(description="Accepted for seed 004 clients; the context is always sent")
        ] = False,
    ) -> SyncContextOut:
        """Send a Claude Code session its project's current context as a message.

        git status, the listed files' contents, and the names (never the values) of its
        environment variables. Paths outside the session's working directory are refused.
        """
        del force  # always synced: building the message is cheap and the caller asked
        router.note_owner(sessionId, client_label(ctx), can_elicit(ctx))
        built, after = await context.sync(manager, sessionId, context_type, paths or ())
        return SyncContextOut(
            session_id=sessionId,
            same_session_id=sessionId,
            synced_at=built.synced_at,
            context_type=context_type,
            files_synced=built.files_synced,
            env_vars_synced=built.env_vars_synced,
            git_status_synced=built.git_status_synced,
            warnings=built.warnings,
            message_chars=len(built.text),
            status=after.status,
        )
