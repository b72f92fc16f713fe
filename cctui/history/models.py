"""Pydantic models of what the history room reads from Claude Code's directory.

Those the TUI's first frame does not use are ``defer_build``: their validators are built at
their first use, not at import (the first frame waits for its imports).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class HistoryPrompt(BaseModel):
    """One line of ``history.jsonl``: a prompt typed into the interactive CLI."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    display: str
    """The prompt as the user typed it (slash commands included)."""
    timestamp: datetime
    """When it was submitted (UTC)."""
    project: str | None = None
    """The CLI's working directory."""
    session_id: str | None = None
    """Absent in lines written by older CLIs; see ``HistoryIndex`` for how those are attributed."""


class RunningProcess(BaseModel):
    """A live ``claude`` process, from ``sessions/<pid>.json`` (its pid checked to be alive)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    pid: int
    session_id: str
    cwd: str | None = None
    status: str | None = None
    """The CLI's own word for what it is doing (``idle``, ``busy``, ...)."""
    kind: str | None = None
    """``interactive`` or another launch kind, as the CLI reports it."""
    name: str | None = None
    started_at: datetime | None = None
    updated_at: datetime | None = None


class Problems(BaseModel):
    """What the index could not read; shown to the user, never raised."""

    model_config = ConfigDict(frozen=True)

    skipped_lines: int = 0
    """Corrupt or truncated JSONL lines skipped in history.jsonl and process files."""
    unreadable_files: tuple[str, ...] = ()
    """Paths that exist but could not be opened or parsed (permissions, a directory, ...)."""
    orphan_prompts: int = 0
    """history.jsonl lines without a session id that matched no known session."""
    config_dir_missing: bool = False
    """Claude Code's directory does not exist (yet): the list is simply empty."""
    transcript_lines_skipped: int = 0
    """Transcript lines that are not JSON (corrupt), across the index."""
    oversized_lines: int = 0
    """Transcript lines too long to parse in bounded memory (over 8 MiB), not indexed."""
    invalid_utf8_lines: int = 0
    """Transcript lines with bytes that are not UTF-8 (indexed with U+FFFD in their place)."""
    deferred_lines: int = 0
    """Transcripts whose last line is still incomplete (read once its newline arrives)."""
    index_note: str = ""
    """Why the index file was rebuilt when it was opened (corrupt, other version), if it was."""

    @property
    def any(self) -> bool:
        """True when there is something worth telling the user."""
        return bool(
            self.skipped_lines
            or self.unreadable_files
            or self.orphan_prompts
            or self.transcript_lines_skipped
            or self.oversized_lines
            or self.index_note
        )

    def describe(self) -> str:
        """One line for a status bar or ``cctui sessions``; empty when nothing was skipped."""
        parts: list[str] = []
        if self.skipped_lines:
            parts.append(f"{self.skipped_lines} corrupt line(s) skipped")
        if self.unreadable_files:
            names = ", ".join(Path(p).name for p in self.unreadable_files[:3])
            more = len(self.unreadable_files) - 3
            parts.append(f"unreadable: {names}" + (f" (+{more} more)" if more > 0 else ""))
        if self.orphan_prompts:
            parts.append(f"{self.orphan_prompts} prompt(s) without a session")
        if self.transcript_lines_skipped:
            parts.append(f"{self.transcript_lines_skipped} corrupt transcript line(s) skipped")
        if self.oversized_lines:
            parts.append(f"{self.oversized_lines} transcript line(s) over 8 MiB not indexed")
        if self.index_note:
            parts.append(self.index_note)
        return "; ".join(parts)


class IndexProgress(BaseModel):
    """A running index build, for the status bar."""

    model_config = ConfigDict(frozen=True)

    active: bool = False
    files_total: int = 0
    files_done: int = 0
    bytes_total: int = 0
    bytes_done: int = 0

    def describe(self) -> str:
        """``indexing 1,234 of 2,000 · 420 MB`` while building; empty when idle."""
        if not self.active:
            return ""
        return (
            f"indexing {self.files_done:,} of {self.files_total:,} · "
            f"{self.bytes_done / 1e6:,.0f} MB"
        )


SourceName = Literal["transcript", "history", "process"]


class SessionSummary(BaseModel):
    """One Claude Code session as the files on disk describe it (cheap to build: no full parse)."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    cwd: str | None = None
    """The session's working directory (the project path), when any source names it."""
    title: str | None = None
    """Custom title, else the CLI's summary / last prompt, else the first prompt."""
    first_prompt: str | None = None
    last_activity: datetime
    """Newest of: transcript mtime, last history.jsonl prompt, process ``updatedAt`` (UTC)."""
    created_at: datetime | None = None
    git_branch: str | None = None
    is_running: bool = False
    """A live ``claude`` process has this session open."""
    pid: int | None = None
    process_status: str | None = None
    """The running CLI's status word (``idle``, ``busy``, ...), when running."""
    sources: frozenset[SourceName] = frozenset()
    """Which files mention this session."""
    total_cost_usd: float | None = None
    """From a ``cost-state`` entry near the transcript's end; ``None`` when not cheaply found."""
    transcript_path: Path | None = None
    file_size: int | None = None
    """Transcript size in bytes."""
    prompt_count: int = 0
    """Prompts seen in history.jsonl (interactive sessions only)."""

    @property
    def project_name(self) -> str | None:
        """The last component of the working directory (what a list shows as 'project')."""
        if not self.cwd:
            return None
        return Path(self.cwd).name or self.cwd


class IndexChange(BaseModel):
    """What one refresh changed."""

    model_config = ConfigDict(frozen=True)

    changed: frozenset[str] = frozenset()
    """Session ids that appeared or whose summary changed."""
    removed: frozenset[str] = frozenset()
    """Session ids no longer present in any source."""

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed)


# ---------------------------------------------------------------------------------------------
# Transcript pages


class ToolCall(BaseModel):
    """A ``tool_use`` block, reduced to what a list line shows."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tool_use_id: str
    name: str
    input_preview: str
    """A short rendering of the input: the command, the file path, or compact JSON."""


class ToolResult(BaseModel):
    """A ``tool_result`` block, reduced to a preview."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tool_use_id: str
    is_error: bool = False
    preview: str
    """The result's text, cut to a few hundred characters."""


class TranscriptMessage(BaseModel):
    """One user or assistant message of a past session, simplified for rendering."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int
    """Position in the conversation (0-based), stable across pages."""
    uuid: str
    role: Literal["user", "assistant"]
    text: str = ""
    """Text blocks joined; markdown for assistant messages."""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    thinking: bool = False
    """The message held a thinking block (its text is not shown)."""
    timestamp: datetime | None = None
    model: str | None = None


class TranscriptPage(BaseModel):
    """A page of a session's conversation."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    offset: int = Field(ge=0)
    limit: int = Field(ge=1)
    total: int = Field(ge=0)
    """Messages in the whole conversation."""
    messages: tuple[TranscriptMessage, ...] = ()
    has_more: bool = False
    skipped_lines: int = 0
    """Corrupt or truncated lines skipped while reading the transcript."""
    transcript_path: Path | None = None


# ---------------------------------------------------------------------------------------------
# Search and usage (from the persisted index)


class SearchHit(BaseModel):
    """One session matching a search: its best message."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    cwd: str | None = None
    title: str | None = None
    timestamp: datetime | None = None
    """When the matching message was written (UTC)."""
    role: Literal["user", "assistant", "tool"]
    """``tool`` is a tool's input or result."""
    message_uuid: str | None = None
    """The transcript entry holding the match (opens the session at that message)."""
    snippet: str
    """Text around the match, on one line."""
    highlights: list[tuple[int, int]] = Field(default_factory=list)
    """``(start, end)`` character spans of ``snippet`` that matched."""
    score: float
    """Higher is better: recency, a short message, and how many of the session's messages match."""
    matches: int = 1
    """Matching messages in this session (among the candidates ranked)."""
    matched_words: int | None = None
    """Set on hits of the looser any-word pass: how many of the query's words the message has."""
    clipped: bool = False
    """Always false now: every piece is indexed whole (kept for the fields' compatibility)."""
    sidechain: bool = False
    """The match is in a subagent's transcript of this session."""

    @property
    def project_name(self) -> str | None:
        """The last component of the working directory."""
        return (Path(self.cwd).name or self.cwd) if self.cwd else None


class SearchResult(BaseModel):
    """A page of search hits, grouped by session, best first."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    query: str
    hits: list[SearchHit] = Field(default_factory=list)
    total: int = 0
    """Sessions matched (among the ranked candidates)."""
    exact: int = 0
    """Of ``total``, the sessions with a message holding every word (they come first)."""
    next_cursor: str | None = None
    """Pass back as ``cursor`` for the next page; ``None`` on the last page."""
    loose: bool = False
    """Fewer than ``search.LOOSE_BELOW`` sessions held every word, so sessions holding only
    some of them follow (their hits have ``matched_words``)."""
    capped: bool = False
    """The search stopped before the oldest messages (``search.ENOUGH_SESSIONS`` sessions or
    ``search.CANDIDATES`` messages found, newest first): narrow it to see older ones."""
    elapsed_ms: float = 0.0


TOTAL_KINDS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")
"""The token kinds a total counts, as ccusage's ``totalTokens`` does (every kind; replies
are not tokens)."""


class TokenCounts(BaseModel):
    """Tokens of a set of API replies, each reply counted once."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    input: int = 0
    """Uncached input tokens."""
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    replies: int = 0
    """API replies (unique message id + request id)."""

    @property
    def total(self) -> int:
        """All tokens, as ccusage's ``totalTokens`` counts them (``TOTAL_KINDS``)."""
        return sum(getattr(self, kind) for kind in TOTAL_KINDS)


class UsageRow(BaseModel):
    """One line of a usage report."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    """The group: a day ``2026-11-25``, a week's Monday, a month ``2026-11``, a session id, a
    project directory, a model, or a block's start time."""
    group: str | None = None
    """With ``group_by``: the session id, project directory or model this line is for."""
    label: str | None = None
    """A readable name when ``key`` (or ``group``) is a session id: its title."""
    start: datetime | None = None
    end: datetime | None = None
    """A 5-hour block's span (``blocks`` only)."""
    active: bool = False
    """A 5-hour block still running now."""
    tokens: TokenCounts = Field(default_factory=TokenCounts)
    cost_usd: float | None = None
    """Cost of the priced replies; ``None`` when none of the group's models has a price."""
    unpriced_replies: int = 0
    """Replies of models with no known price: their tokens count, their cost is unknown."""
    models: list[str] = Field(default_factory=list)
    project: str | None = None
    sessions: int = 0


class UsageReport(BaseModel):
    """Token usage and cost grouped by a period, session, project or model."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    period: str
    rows: list[UsageRow] = Field(default_factory=list)
    total: UsageRow
    since: datetime | None = None
    until: datetime | None = None
    project: str | None = None
    group_by: str | None = None
    pricing: str = ""
    """Where prices come from (the genai-prices version and override fingerprint)."""
    elapsed_ms: float = 0.0


class IndexStats(BaseModel):
    """``cctui index --stats``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    path: Path
    files: int
    subagent_files: int
    sessions: int
    messages: int
    stale_messages: int = 0
    """Rows of transcripts read again, left as tombstones (rebuilt away when they dominate)."""
    replies: int
    transcript_bytes: int
    index_bytes: int
    last_update: datetime | None = None
    skipped_lines: int = 0
    oversized_lines: int = 0
    invalid_utf8_lines: int = 0
    deferred_files: int = 0
    schema_version: int
    not_indexed: str = ""
    """What the index deliberately leaves out of search."""
    note: str = ""
