"""History tools: the merged session list, transcript pages, full-text search over every
transcript and usage reports, for any session on this machine (all from the history index).

No ``from __future__ import annotations``: see ``tools.sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.history_view import HistoryView
from cctui.mcp_server.schemas.common import READ, HostName, SessionId
from cctui.mcp_server.schemas.history import (
    SearchTranscriptsOut,
    SessionListOut,
    TranscriptOut,
    UsageOut,
)


def register(
    server: MCPServer, manager: SessionManager, settings: Settings, history: HistoryView
) -> None:
    """Add claude_list_sessions, claude_get_transcript, claude_search_transcripts and
    claude_usage to ``server``, over the server's one ``history`` view (and so one index)."""

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
        limit: Annotated[
            int, Field(ge=1, description="Sessions per page, most recent first (no maximum)")
        ] = 50,
        offset: Annotated[
            int, Field(ge=0, description="Skip this many (the previous page's nextOffset)")
        ] = 0,
        host: HostName = None,  # sent there by CctuiMCPServer before this runs
    ) -> SessionListOut:
        """List Claude Code sessions (cctui's and any on this machine), newest first.

        Any listed session can be continued with claude_send_message. Seed 004 list_sessions
        names work too: status_filter (all, active, inactive, error), team_filter, limit;
        include_metadata is accepted and ignored (every row carries all its fields).
        """
        return await history.list(projectDirectory, status, team, text, limit, offset)

    @server.tool(annotations=READ)
    async def claude_get_transcript(
        sessionId: SessionId,
        offset: Annotated[int, Field(ge=0, description="First message index")] = 0,
        limit: Annotated[int, Field(ge=1, le=200, description="Messages per page")] = 50,
    ) -> TranscriptOut:
        """Read a Claude Code session's conversation (any session on this machine), paged."""
        return await history.transcript(sessionId, offset, limit)

    @server.tool(annotations=READ)
    async def claude_search_transcripts(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description='Words (all must appear), "a phrase", prefix*, -excluded, or an '
                "identifier as written (Session._pump, src/api/auth.ts, error-401). A sentence "
                "works too: when no message has every word, messages with the most of them "
                "are returned (loose). Filters may be typed in the query: project: since: "
                "until: role: session:",
            ),
        ],
        project: Annotated[
            str | None,
            Field(
                description="Only sessions whose working directory is this path or ends "
                "with this name"
            ),
        ] = None,
        since: Annotated[
            str | None,
            Field(description="2026-11-01, 2026-11-01T14:00, 7d, 12h, 2w, today, yesterday"),
        ] = None,
        until: Annotated[str | None, Field(description="Same forms as since")] = None,
        role: Annotated[
            Literal["user", "assistant", "tool"] | None,
            Field(description="user prompts, assistant text, or tool inputs and results"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Sessions per page")] = 10,
        cursor: Annotated[str | None, Field(description="nextCursor of the previous page")] = None,
    ) -> SearchTranscriptsOut:
        """Search every Claude Code transcript on this machine (prompts, replies, tool calls
        and their results) and get one hit per session, best first, with the matching
        message's uuid and a snippet. Open a hit with claude_get_transcript."""
        return await history.search(
            query, project=project, since=since, until=until, role=role, limit=limit,
            cursor=cursor,
        )  # fmt: skip

    @server.tool(annotations=READ)
    async def claude_usage(
        period: Annotated[
            Literal["daily", "weekly", "monthly", "session", "project", "model", "blocks"],
            Field(
                description="Lines per day, week (Monday), month, session, project, model, "
                "or 5-hour usage block (ccusage's rule)"
            ),
        ] = "daily",
        since: Annotated[
            str | None, Field(description="2026-11-01, 7d, today, ... (local time)")
        ] = None,
        until: Annotated[str | None, Field(description="Same forms as since")] = None,
        project: Annotated[
            str | None, Field(description="Only sessions under this directory or of this name")
        ] = None,
        groupBy: Annotated[
            Literal["session", "project", "model"] | None,
            Field(description="Split each day, week or month by session, project or model"),
        ] = None,
    ) -> UsageOut:
        """Tokens and cost of every Claude Code session on this machine, cctui's or not.

        Each API reply is counted once (Claude Code repeats its usage on every content block's
        line). Cost comes from genai-prices (offline) or the config's [prices] table; a model
        with no known price shows its tokens and costUsd null ("no price"), never $0.
        """
        return await history.usage(
            period, since=since, until=until, project=project, group_by=groupBy
        )
