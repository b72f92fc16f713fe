"""History tools: the merged session list and transcript pages of any session on this machine.

No ``from __future__ import annotations``: see ``tools.sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.history import HistoryIndex
from cctui.mcp_server.history_view import HistoryView
from cctui.mcp_server.schemas.common import READ, SessionId
from cctui.mcp_server.schemas.history import SessionListOut, TranscriptOut


def register(
    server: MCPServer,
    manager: SessionManager,
    settings: Settings,
    index: HistoryIndex | None = None,
) -> None:
    """Add claude_list_sessions and claude_get_transcript to ``server`` (``index``: a history
    index kept live by someone else, the TUI)."""
    history = HistoryView(settings, manager, index)

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
