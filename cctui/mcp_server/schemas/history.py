"""What the history tools return: the merged session list and transcript pages."""

from __future__ import annotations

from typing import Any, Literal

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
    started_by_cctui: bool = False
    """This cctui started (or resumed) it, so it keeps its config (a window attached to this
    cctui lists these as its own)."""
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
    model_in_use: str | None = None
    """cctui's sessions: the model in use (the CLI's name for it once a turn ran, else
    ``model``)."""
    permission_mode: str | None = None
    """cctui's sessions: the CLI's permission mode (the last one once its process ended)."""
    dispatch_note: str | None = None
    """What the dispatcher says of it (``queued 3rd``, ``waits for 2 sessions``, ``paused
    until 14:05 (usage limit)``, ``run of schedule nightly``)."""
    team_name: str | None = Field(default=None, alias="team_name")
    teammate: str | None = None
    """The session's name within its team."""
    teammate_name: str | None = Field(default=None, alias="teammate_name")
    has_past: bool = False
    """cctui's sessions: its transcript holds a conversation from before the events its
    server buffers (resumed, forked or found on disk): read that part from the transcript."""


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
    data: dict[str, Any] | None = None
    """The message as cctui reads it (text, tool calls and results apart): what another
    cctui draws it from."""


class TranscriptOut(Out):
    """``claude_get_transcript``: a page of a session's messages."""

    session_id: str
    messages: list[TranscriptMessage]
    offset: int
    total: int
    next_offset: int | None
    """Pass as ``offset`` for the next page; null at the end."""


class TranscriptHit(Out):
    """One session matching ``claude_search_transcripts``: its best message."""

    session_id: str
    project: str | None = None
    """The working directory's last component."""
    cwd: str | None = None
    title: str | None = None
    timestamp: str | None = None
    """When the matching message was written (ISO 8601, UTC)."""
    role: Literal["user", "assistant", "tool"]
    """``tool``: a tool's input or result."""
    message_uuid: str | None = None
    """The transcript entry of the match."""
    snippet: str
    """Text around the match; matched words are between « and »."""
    score: float
    """Higher is better: recency, a short message, and how many of the session's messages match."""
    matches: int = 1
    """Matching messages in this session."""
    matched_words: int | None = None
    """Set when no message held every word: how many of the query's words this one holds."""
    clipped: bool = False
    """The match is in a long tool input or result, of which only the first 4 KiB is indexed."""
    sidechain: bool = False
    """The match is in one of the session's subagent transcripts."""


class SearchTranscriptsOut(Out):
    """``claude_search_transcripts``: sessions ranked by their best matching message."""

    hits: list[TranscriptHit]
    total: int
    """Sessions matched (among the newest 5,000 matching messages)."""
    exact: int = 0
    """Of ``total``, the sessions with a message holding every word (listed first)."""
    next_cursor: str | None = None
    """Pass as ``cursor`` for the next page; null on the last page."""
    loose: bool = False
    """Few sessions held every word, so sessions holding some of them follow (their hits
    have ``matchedWords``)."""
    capped: bool = False
    """The search stopped before the oldest messages (enough sessions found, newest first):
    narrow it (since/until/project) to reach older sessions."""
    indexing: str | None = None
    """A first index build is still running (``indexing 1,234 of 2,000 · 420 MB``): results
    may miss older sessions until it ends."""


class UsageTokens(Out):
    """Tokens of a set of API replies, each reply counted once."""

    input: int
    output: int
    cache_write_5m: int
    cache_write_1h: int
    cache_read: int
    total: int
    replies: int


class UsageLine(Out):
    """One line of ``claude_usage``."""

    key: str
    """The day (``2026-11-25``), week's Monday, month (``2026-11``), session id, project
    directory, model, or a 5-hour block's start."""
    group: str | None = None
    """With ``groupBy``: the session, project or model within ``key``'s period."""
    label: str | None = None
    """A session's title."""
    start: str | None = None
    end: str | None = None
    active: bool = False
    """A 5-hour block still running."""
    tokens: UsageTokens
    cost_usd: float | None = None
    """Null means "no price": none of these replies' models has a known price (never $0)."""
    unpriced_replies: int = 0
    """Replies of models with no known price, counted in tokens but not in ``costUsd``."""
    models: list[str] = Field(default_factory=list)
    sessions: int = 0


class UsageOut(Out):
    """``claude_usage``: tokens and cost from every transcript on this machine."""

    period: str
    group_by: str | None = None
    lines: list[UsageLine]
    total: UsageLine
    pricing: str
    """Where prices come from: genai-prices' version and the config overrides' fingerprint."""
    indexing: str | None = None
    """A first index build is still running: older replies may be missing until it ends."""
