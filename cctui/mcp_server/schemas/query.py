"""What the listing, transcript, query and health tools return (see ``schemas``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.sessions import PendingInputOut, SeedStatus


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


class QueryMessage(Out):
    """One message of a ``claude_query`` run (also sent as a notification)."""

    seq: int
    type: str
    text: str
    timestamp: str
    """When it happened (ISO 8601, UTC)."""


class QueryResult(Out):
    """Seed 003's ``result`` object."""

    success: bool
    summary: str
    """The run's final text."""
    error: str | None = None


class QueryOut(Out):
    """``claude_query``: the run's messages (the last ``maxMessages``) and its result.

    Seed 003's ``{sessionId, messages, executionTime, usage, result: {success, summary,
    error}}``; ``success``/``error``/``text`` repeat the result flat.
    """

    session_id: str
    messages: list[QueryMessage]
    total_messages: int
    truncated: bool
    execution_time: int
    """Milliseconds (seed 003's name); ``executionTimeMs`` is the same."""
    execution_time_ms: int
    result: QueryResult
    success: bool
    text: str | None = None
    """The run's final text (``result.summary``)."""
    error: str | None = None
    cost_usd: float | None = None
    turn_count: int = 0
    usage: dict[str, Any] | None = None
    """Seed 003: the CLI's token usage for the run (input/output/cache tokens); null when
    the run ended without a result."""
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)


class HealthOut(Out):
    """``claude_health``: can cctui run Claude Code here? (seed 001: available, version, error)"""

    available: bool
    ok: bool
    """Same as ``available``."""
    path: str | None = None
    """The claude binary (``cliPath`` is the same)."""
    cli_path: str | None = None
    version: str | None = None
    error: str | None = None
    """Why it is not available (``problem`` is the same)."""
    source: str
    """Where the path came from: setting, CLAUDE_CODE_PATH, bundled or PATH."""
    problem: str | None = None
    suggestion: str | None = None
    active_sessions: int = 0
    server_version: str
    problems: list[str] = Field(default_factory=list)
    """cctui's own troubles (a damaged registry set aside, audit lines that failed)."""

    @classmethod
    def down(cls, *, problem: str, cli_path: str | None = None, **fields: Any) -> HealthOut:
        """Not available, and why."""
        return cls(
            available=False,
            ok=False,
            path=cli_path,
            cli_path=cli_path,
            error=problem,
            problem=problem,
            **fields,
        )
