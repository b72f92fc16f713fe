"""Pydantic models of what the history room reads from Claude Code's directory."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class HistoryPrompt(BaseModel):
    """One line of ``history.jsonl``: a prompt typed into the interactive CLI."""

    model_config = ConfigDict(frozen=True)

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

    model_config = ConfigDict(frozen=True)

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

    @property
    def any(self) -> bool:
        """True when there is something worth telling the user."""
        return bool(self.skipped_lines or self.unreadable_files or self.orphan_prompts)

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
        return "; ".join(parts)


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

    model_config = ConfigDict(frozen=True)

    tool_use_id: str
    name: str
    input_preview: str
    """A short rendering of the input: the command, the file path, or compact JSON."""


class ToolResult(BaseModel):
    """A ``tool_result`` block, reduced to a preview."""

    model_config = ConfigDict(frozen=True)

    tool_use_id: str
    is_error: bool = False
    preview: str
    """The result's text, cut to a few hundred characters."""


class TranscriptMessage(BaseModel):
    """One user or assistant message of a past session, simplified for rendering."""

    model_config = ConfigDict(frozen=True)

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

    model_config = ConfigDict(frozen=True)

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
