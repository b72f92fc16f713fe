"""Seed 004's own answers: what ``start_session`` ... ``stream_output`` return, in its words.

Seed 004 (``@ebowwa/claude-code-mcp``) writes its responses as Zod schemas: snake_case
fields, its own status enums, timestamps that must end in ``Z`` and optional fields that
are *absent* rather than ``null`` (``z.number().optional()`` refuses ``null``). So these
models drop every ``None`` when serialised. A few fields the seed does not have ride along
(``state``, ``note``, ``pending_inputs``...); Zod objects ignore unknown keys.

Errors are the seed's envelope (``errors.seed004_error``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, model_serializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler

from cctui.core import SessionStatus
from cctui.mcp_server.schemas.sessions import PendingInputOut

TOOLS = (
    "start_session",
    "resume_session",
    "kill_session",
    "list_sessions",
    "send_message",
    "sync_context",
    "wait_for_completion",
    "stream_output",
)
"""Seed 004's eight tool names (its Appendix C manifest)."""


class SeedOut(BaseModel):
    """Base: snake_case as written, ``None`` fields left out of the JSON."""

    @model_serializer(mode="wrap")
    def _drop_none(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None}
        return data


StartStatus = Literal["starting", "ready", "error"]
ResumeStatus = Literal["resuming", "ready", "not_found", "error"]
KillStatus = Literal["killed", "not_found", "already_dead", "error"]
RowStatus = Literal["active", "inactive", "error", "zombie"]
FinalState = Literal["idle", "active", "error", "dead"]


def start_status(status: SessionStatus) -> StartStatus:
    """A new session in seed 004's words: spawning, taking messages, or failed."""
    if status in (SessionStatus.STARTING, SessionStatus.QUEUED):
        return "starting"  # a queued session is one that has not started yet
    return "error" if status in (SessionStatus.ERROR, SessionStatus.CANCELLED) else "ready"


def resume_status(status: SessionStatus) -> ResumeStatus:
    """A resumed session in seed 004's words."""
    if status == SessionStatus.STARTING:
        return "resuming"
    return "error" if status == SessionStatus.ERROR else "ready"


class StartSessionOut(SeedOut):
    """``start_session``: the new session."""

    session_id: str
    status: StartStatus
    """``ready``: the process is up and takes messages (a first prompt is already running)."""
    pid: int | None = None
    started_at: str
    state: SessionStatus
    """cctui's exact state (``running`` while the first prompt's turn runs)."""
    cwd: str
    team_name: str | None = None
    teammate_name: str | None = None
    """Generated (``session-<first 8 of the id>``) when a team is given without one."""
    model: str | None = None
    log_file: str | None = None
    """Where the session's output is appended, resolved."""
    error: str | None = None


class PreviousStateOut(SeedOut):
    """The session before this call."""

    created_at: str
    last_active: str | None = None


class ResumeSessionOut(SeedOut):
    """``resume_session``: the session, live again (or why not)."""

    session_id: str
    status: ResumeStatus
    resumed_at: str
    previous_state: PreviousStateOut | None = None
    state: SessionStatus | None = None
    """cctui's exact state; absent when ``not_found``."""
    cwd: str | None = None
    pid: int | None = None
    message_sent: bool | None = None
    """``message`` was given and sent."""
    error: str | None = None
    note: str | None = None


class KillSessionOut(SeedOut):
    """``kill_session``."""

    session_id: str
    status: KillStatus
    killed_at: str
    exit_code: int | None = None
    """The ended process's exit code (negative: the signal); absent when none was ended."""
    state_saved: bool
    """The conversation is kept by Claude Code either way: a later message resumes it."""
    state: SessionStatus | None = None


class SessionRowOut(SeedOut):
    """One ``list_sessions`` row."""

    session_id: str
    status: RowStatus
    """``active``: a process runs (or is starting); ``error``; else ``inactive``. cctui never
    reports ``zombie``: no child outlives it."""
    pid: int | None = None
    cwd: str | None = None
    created_at: str
    last_active: str | None = None
    team_name: str | None = None
    teammate_name: str | None = None
    model: str | None = None
    title: str | None = None
    """With ``include_metadata``: the session's title, cctui's state, cost, who started it."""
    state: str | None = None
    cost_usd: float | None = None
    started_by_cctui: bool | None = None


class ListSessionsOut(SeedOut):
    """``list_sessions``."""

    sessions: list[SessionRowOut]
    total_count: int
    """Every session (cctui's and any on this machine), before the filters."""
    filtered_count: int
    """The sessions that match the filters (before ``limit``)."""


class SendMessageOut(SeedOut):
    """``send_message``."""

    session_id: str
    message_sent: bool
    response: str | None = None
    """Claude's reply when the turn ended within ``timeout_ms``."""
    error: str | None = None
    sent_at: str
    responded_at: str | None = None
    timed_out: bool | None = None
    """Waited the whole ``timeout_ms`` without the turn ending: call wait_for_completion."""
    state: SessionStatus | None = None
    pending_inputs: list[PendingInputOut] | None = None
    """Decisions the session waits for (answer with claude_respond), when any."""
    note: str | None = None


class SyncContextOut(SeedOut):
    """``sync_context``."""

    session_id: str
    synced_at: str
    context_type: str
    files_synced: int | None = None
    env_vars_synced: int | None = None
    git_status_synced: bool | None = None
    warnings: list[str] | None = None
    message_chars: int | None = None
    """Length of the message sent to the session."""


class WaitForCompletionOut(SeedOut):
    """``wait_for_completion``."""

    session_id: str
    completed: bool
    timed_out: bool
    waited_ms: int
    final_state: FinalState
    completed_at: str | None = None
    response: str | None = None
    """The turn's reply, when it ended."""
    state: SessionStatus | None = None
    pending_inputs: list[PendingInputOut] | None = None
    """When the session stopped to wait for a decision (``completed`` and ``timed_out``
    both false): answer with claude_respond, then wait again."""
    note: str | None = None


class StreamOutputOut(SeedOut):
    """``stream_output``: the session's output lines (the seed streams them as SSE; here
    they stream as progress notifications while ``follow`` runs, and come back whole)."""

    session_id: str
    lines: list[str]
    """The last ``lines`` lines of assistant output, oldest first (all buffered if absent)."""
    output: str
    """``lines`` joined with newlines."""
    next_seq: int
    """Pass it to claude_get_status as ``sinceSeq`` to read on from here."""
    followed: bool
    """``follow`` streamed new output until the turn ended."""
    state: SessionStatus
    pending_inputs: list[PendingInputOut] | None = None
