"""What the history tools return: the merged session list and transcript pages."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.sessions import SeedStatus


class SessionListEntry(Out):
    """One row of ``claude_list_sessions`` (seed 002's camelCase fields, seed 004's
    snake_case ones)."""

    session_id: str
    project_directory: str | None = None
    display_text: str | None = None
    timestamp: str | None = None
    is_active: bool = False
    active_status: SeedStatus | None = None
    """Seed 002: the status while this server has a process for it."""
    status: Literal["active", "inactive", "error", "zombie"]
    """Seed 004's words: ``active`` (a live state), ``inactive`` (ended: completed or
    interrupted), ``error``; cctui never reports ``zombie``. The exact state is ``state``."""
    state: str
    """cctui's exact state (running, idle, completed...), which the ``status`` filter takes."""
    team: str | None = None
    cost_usd: float | None = None
    session_id_004: str = Field(alias="session_id")
    """Seed 004's ``session_id`` (filled from the same keyword as ``sessionId``)."""
    cwd: str | None = Field(default=None, alias="cwd")
    created_at: str = Field(alias="created_at")
    """When the session began (its first record; the last activity when that is unknown)."""
    last_active: str | None = Field(default=None, alias="last_active")
    pid: int | None = None
    """The live ``claude`` process, if any."""
    model: str | None = None
    """The model cctui started it with (null: the CLI's default, or not started by cctui)."""
    team_name: str | None = Field(default=None, alias="team_name")
    teammate: str | None = None
    """The session's name within its team."""
    teammate_name: str | None = Field(default=None, alias="teammate_name")


class SessionListOut(Out):
    """``claude_list_sessions`` (seed 002's ``sessions``; seed 004's counts)."""

    sessions: list[SessionListEntry]
    total: int
    truncated: bool
    next_offset: int | None = None
    """More match: pass this as ``offset`` for the next page."""
    total_count: int = Field(alias="total_count")
    filtered_count: int = Field(alias="filtered_count")


class TranscriptMessage(Out):
    """One transcript message, text-rendered."""

    index: int
    role: str
    text: str
    timestamp: str | None = None


class TranscriptOut(Out):
    """``claude_get_transcript``: a page of a session's messages."""

    session_id: str
    messages: list[TranscriptMessage]
    offset: int
    total: int
    next_offset: int | None
    """Pass as ``offset`` for the next page; null at the end."""
