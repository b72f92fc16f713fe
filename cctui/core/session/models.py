"""Pydantic models the core hands to its front ends.

Each is ``defer_build``: its validator is built at its first use, not at import (the TUI's
first frame, which waits for its imports, makes none with no session running).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.claude.modes import PermissionModeName
from cctui.core.session.states import SessionStatus


class SessionConfig(BaseModel):
    """How to start a session; kept in the registry so a resume uses the same settings."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    cwd: Path
    """Working directory (the project)."""
    model: str | None = None
    permission_mode: PermissionModeName | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    max_turns: int | None = Field(default=None, ge=1)
    max_budget_usd: float | None = Field(default=None, gt=0)
    append_system_prompt: str | None = None
    skip_permissions: bool = False
    """Run with ``bypassPermissions``; only when a caller asks for it explicitly."""
    exact_tools: bool = False
    """Pre-approve only ``allowed_tools``, not the settings' too (locked-down review sessions)."""
    launch_prefix: tuple[str, ...] = ()
    """Words run before ``claude``, e.g. ``("doppler", "run", "--")``."""
    project: str | None = None
    """A project label (defaults to the cwd's name in listings)."""
    team: str | None = None
    """Sessions sharing a team get ``claude_broadcast`` messages together."""
    teammate: str | None = None
    """This session's name within its team."""
    template: str | None = None
    """The config template it was started from, if any."""
    tags: tuple[str, ...] = ()
    title: str | None = None
    """A human title; the first prompt is used when absent."""
    log_file: Path | None = None
    """The session's output is also appended here (seed 004's ``log_file``; checked by
    ``session_log.check_log_file``)."""
    file_checkpointing: bool = False
    """Claude Code keeps the files its edit tools change as they were before each prompt, so
    they can be rewound. New sessions take the ``file_checkpointing`` setting (on by
    default); a record from before cctui kept checkpoints reads false, as it was started."""


class PromptMark(BaseModel):
    """One prompt cctui sent a session: where its file checkpoint is."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int = Field(ge=0)
    """Its place among the session's prompts, from 0 (``promptIndex``)."""
    id: str
    """The uuid it was sent with: Claude Code's user message id, and its checkpoint's name."""
    text: str
    """The start of the prompt (one line, shortened)."""
    sent_at: datetime
    accepted: bool = False
    """The CLI echoed it back (it took it in; sessions with checkpointing only)."""


class WorktreeInfo(BaseModel):
    """A session's own git worktree: made by Claude Code (``--worktree``), recorded by cctui."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    """The worktree's name (``claude --worktree <name>``)."""
    path: Path
    """Its directory: ``<repo>/.claude/worktrees/<name>``."""
    branch: str
    """The session's branch (``worktree-<name>``)."""
    base_branch: str | None
    """The branch checked out where the session was started: the one a merge goes into
    (None: a detached HEAD, which cannot be merged into)."""
    base_commit: str
    """The commit the worktree branched from."""
    repo: Path
    """The repository's main work tree."""
    finished: Literal["merged", "kept", "discarded"] | None = None
    """How it was finished, once it was."""
    finished_at: datetime | None = None


class ToolUseSummary(BaseModel):
    """One tool call of a session, as status readers see it."""

    model_config = ConfigDict(defer_build=True)

    tool_use_id: str
    name: str
    state: Literal["running", "completed", "denied", "failed"]
    input_preview: str
    """A short rendering of the input (command, file path, ...)."""


class DispatchView(BaseModel):
    """What the dispatcher says of one session (``core.dispatch``)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    note: str
    """In a few words, for lists: ``queued 3rd``, ``waits for 2 sessions``,
    ``paused until 14:05 (usage limit)``, ``run of schedule nightly``."""
    queue_position: int | None = None
    """1 = starts next (queued sessions only)."""
    after: tuple[str, ...] = ()
    """The sessions it runs after."""
    waits_for: tuple[str, ...] = ()
    """Those of ``after`` that have not ended yet."""
    priority: int = 0
    schedule_id: str | None = None
    schedule_name: str | None = None
    resumes_at: datetime | None = None
    """A paused session's continue time (the usage limit's reset)."""


class SessionInfo(BaseModel):
    """A snapshot of one session cctui drives (live or registered)."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    status: SessionStatus
    config: SessionConfig
    created_at: datetime
    last_activity: datetime
    title: str | None = None
    """The first prompt (or the configured title)."""
    total_cost_usd: float = 0.0
    """Summed over every process this session has had."""
    num_turns: int = 0
    permission_mode: str | None = None
    """The CLI's current permission mode (``plan`` until a plan is approved, then ``default``)."""
    model: str | None = None
    """The model in use: the CLI's name for it once a turn ran, else the one asked for
    (``config.model``; None: the CLI's default)."""
    last_result: str | None = None
    error: str | None = None
    pid: int | None = None
    last_seq: int = 0
    pending_input_ids: tuple[str, ...] = ()
    is_active: bool = False
    """A process is alive right now."""
    exit_code: int | None = None
    """The last process's exit code once it ended (None while one runs, or if unknown)."""
    tokens_used: int | None = None
    """Input, output and cache tokens over every turn (None: the CLI reported none)."""
    worktree: WorktreeInfo | None = None
    """The session's own worktree, when it runs in one."""
    worktree_gone: bool = False
    """Its worktree's directory was removed (by hand) before it was finished."""
    base_commit: str | None = None
    """The commit HEAD pointed at when cctui started the session or first saw it live:
    the diff's base (for a worktree, the merge-base with ``worktree.base_branch``)."""
    has_past: bool = False
    """Its transcript holds a conversation from before its first buffered event (it was
    resumed, forked, or found on disk): a reader of ``events`` alone misses that part."""
    dispatch: DispatchView | None = None
    """Where the dispatcher has it (queued, waiting for others, paused at the usage limit,
    a schedule's run); None when it has nothing to say."""


class SessionRecord(BaseModel):
    """What the registry keeps per session cctui started; enough to list and resume it."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    config: SessionConfig
    created_at: datetime
    last_activity: datetime
    title: str | None = None
    status: SessionStatus = SessionStatus.COMPLETED
    total_cost_usd: float = 0.0
    num_turns: int = 0
    tokens_used: int | None = None
    """Input, output and cache tokens over every turn (None: the CLI reported none)."""
    forked_from: str | None = None
    worktree: WorktreeInfo | None = None
    """The session's own worktree, when it runs in one."""
    base_commit: str | None = None
    """The commit HEAD pointed at when cctui started the session or first saw it live."""
    base_tree: str | None = None
    """The work tree then, as a git tree (untracked files included): the diff's base."""
    prompts: tuple[PromptMark, ...] = ()
    """Prompts a registry written before the prompt log had a file of its own carried; read
    once, moved to that file (``prompts.PromptLog``), and no longer written here."""

    @classmethod
    def fresh(
        cls,
        session_id: str,
        config: SessionConfig,
        *,
        title: str | None,
        status: SessionStatus,
        forked_from: str | None = None,
        last_activity: datetime | None = None,
        created_at: datetime | None = None,
    ) -> SessionRecord:
        """A record for a session cctui takes on now (created, forked or adopted; an
        adopted one keeps its transcript's ``created_at`` and ``last_activity``)."""
        now = datetime.now(UTC)
        return cls(
            session_id=session_id,
            config=config,
            created_at=created_at or now,
            last_activity=last_activity or now,
            title=title,
            status=status,
            forked_from=forked_from,
        )
