"""What the tools return: pydantic models whose wire names are camelCase, like the seeds'.

Python code uses snake_case; ``alias_generator`` gives ``sessionId``, ``nextSeq`` and so on
on the wire and in each tool's ``outputSchema``. Every field a seed documents for a tool is
at the top level under the seed's name (seed 002's camelCase; seed 004's snake_case names,
spelled out with ``alias=``, on the tools its names map to); extra fields are cctui's own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from cctui.core import PendingInput, SessionInfo, SessionStatus, call_detail
from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.worktrees import WorktreeOut
from cctui.timestamps import iso_z

SeedStatus = Literal["running", "waiting_for_input", "completed", "error", "interrupted"]
"""Seed 002's session states."""


_SEED_WORDS: dict[SessionStatus, SeedStatus] = {
    SessionStatus.STARTING: "running",
    SessionStatus.IDLE: "completed",
    # The dispatcher's states, for a client that knows only the seed's: a queued session
    # reads as one starting, a paused one as still at work (it is continued at the reset),
    # a cancelled one (it will never start) as failed; ``state`` has the exact word.
    SessionStatus.QUEUED: "running",
    SessionStatus.PAUSED: "running",
    SessionStatus.CANCELLED: "error",
}


def seed_status(status: SessionStatus) -> SeedStatus:
    """cctui's state in seed 002's words: ``starting`` is running, ``idle`` (turn done,
    process alive) is completed. The exact state is in ``state``."""
    word = _SEED_WORDS.get(status)
    return word if word is not None else status.value  # type: ignore[return-value]


_DESCRIPTIONS = {
    "plan_review": (
        "Claude has completed a plan and is requesting approval to proceed with implementation"
    ),
    "user_question": "Claude is asking a question",
}


def describe_input(item: PendingInput) -> str:
    """Seed 002's human-readable summary: the CLI's own, else one built from the input."""
    if item.description:
        return item.description
    if item.kind in _DESCRIPTIONS:
        return _DESCRIPTIONS[item.kind]
    detail = call_detail(item.tool_name, item.tool_input)
    return f"Claude wants to use {item.tool_name}" + (f": {detail}" if detail else "")


class ProjectRuleOut(Out):
    """What ``claude_respond`` with ``allowForProject: true`` (the TUI's ``P``) would write."""

    rules: list[str]
    """The rules, as the settings file will hold them (e.g. ``Bash(npm test *)``)."""
    file: str
    """The repository root's ``.claude/settings.local.json`` (a worktree's main checkout's)."""
    description: str
    """In words. Asked for by an MCP client, the rule is written only once the human at
    cctui confirms it, unless cctui's ``mcp_may_persist_rules`` is on; meanwhile (and
    otherwise) the answer applies to this session."""


class PendingInputOut(Out):
    """A decision a session waits for; answer it with ``claude_respond``."""

    input_id: str
    type: Literal["permission", "plan_review", "user_question"]
    tool_name: str
    tool_input: dict[str, Any]
    description: str
    """Human-readable summary (the CLI's description, or one built from the input)."""
    plan: str | None = None
    questions: list[dict[str, Any]] = Field(default_factory=list)
    asked: Literal["human", "client", "nobody"] = "human"
    """Who is being asked first: the human at cctui, or an MCP client by elicitation;
    ``nobody`` when neither can be (no elicitation, no human at cctui): it waits for
    ``claude_respond``."""
    allow_for_session: str | None = None
    """What ``claude_respond`` with ``allowForSession: true`` (the TUI's ``A``) would allow,
    in words: the CLI's narrow rule or this exact call, until the process ends."""
    allow_for_project: ProjectRuleOut | None = None
    """What ``claude_respond`` with ``allowForProject: true`` would write and where; null
    when Claude Code suggested no rule that may be kept (a whole tool, a mode, a directory)."""
    how_to_answer: str = ""
    escalated: str | None = None
    """Why cctui's authority ladder sent it to the human (a client's answer beyond its
    authority, the breaker open); null when it was not escalated."""

    @classmethod
    def of(cls, item: PendingInput) -> PendingInputOut:
        """Build from the core's record."""
        project = None
        if item.allow_for_project and item.project_file:
            project = ProjectRuleOut(
                rules=list(item.project_rules),
                file=item.project_file,
                description=item.allow_for_project,
            )
        return cls(
            input_id=item.id,
            type=item.kind,
            tool_name=item.tool_name,
            tool_input=item.tool_input,
            description=describe_input(item),
            plan=item.plan,
            escalated=item.escalation,
            questions=[q.model_dump(by_alias=True) for q in item.questions],
            asked=item.route,
            allow_for_session=item.allow_for_session,
            allow_for_project=project,
            how_to_answer=(
                f'claude_respond with sessionId="{item.session_id}", inputId="{item.id}", '
                'decision "allow" or "deny"'
                + (" and answers" if item.kind == "user_question" else "")
            ),
        )


class SessionFields(Out):
    """A session snapshot's fields; ``status`` is the subclass's (its seed's words)."""

    session_id: str
    state: SessionStatus
    """cctui's exact state (``idle``: the turn is done and the process takes the next
    message at once; ``starting``)."""
    is_active: bool
    working_directory: str
    title: str | None = None
    result: str | None = None
    error: str | None = None
    cost_usd: float = 0.0
    turn_count: int = 0
    permission_mode: str | None = None
    last_seq: int = 0
    pending_input_ids: list[str] = Field(default_factory=list)
    pid: int | None = None
    """The live CLI's process id."""
    model: str | None = None
    """The model the session was started with (None: the CLI's default)."""
    created_at: str = ""
    worktree: WorktreeOut | None = None
    """The session's own git worktree (null: it runs in its directory as it is)."""
    base_commit: str | None = None
    """The commit its diff is against (claude_get_diff)."""
    dispatch_note: str | None = None
    """What the dispatcher says of it, in a few words (``queued 3rd``, ``waits for 2
    sessions``, ``paused until 14:05 (usage limit)``, ``run of schedule nightly``)."""
    queue_position: int | None = None
    """1 = starts next; set while ``state`` is ``queued``."""
    waits_for: list[str] = Field(default_factory=list)
    """Sessions it runs ``after`` that have not ended yet."""
    resumes_at: str | None = None
    """``state`` ``paused_usage_limit``: when the usage limit resets and it is continued."""
    schedule: str | None = None
    """The schedule this session is a run of."""
    session_id_004: str = Field(default="", alias="session_id")
    """Seed 004's ``session_id`` (filled from the same keyword as ``sessionId``)."""
    started_at: str = Field(default="", alias="started_at")
    """Seed 004's start_session timestamp (the session's creation)."""

    @staticmethod
    def fields(info: SessionInfo) -> dict[str, Any]:
        """The shared fields from the core's snapshot."""
        created = iso_z(info.created_at)
        return {
            "session_id": info.session_id,
            "state": info.status,
            "pid": info.pid,
            "model": info.config.model,
            "created_at": created,
            "started_at": created,
            "is_active": info.is_active,
            "working_directory": str(info.config.cwd),
            "title": info.title,
            "result": info.last_result,
            "error": info.error,
            "cost_usd": info.total_cost_usd,
            "turn_count": info.num_turns,
            "permission_mode": info.permission_mode,
            "last_seq": info.last_seq,
            "pending_input_ids": list(info.pending_input_ids),
            "worktree": (
                WorktreeOut.of(info.worktree, gone=info.worktree_gone) if info.worktree else None
            ),
            "base_commit": info.base_commit,
            **_dispatch_fields(info),
        }


def _dispatch_fields(info: SessionInfo) -> dict[str, Any]:
    view = info.dispatch
    if view is None:
        return {}
    return {
        "dispatch_note": view.note,
        "queue_position": view.queue_position,
        "waits_for": list(view.waits_for),
        "resumes_at": iso_z(view.resumes_at) if view.resumes_at else None,
        "schedule": view.schedule_name,
    }


class SessionOut(SessionFields):
    """A session snapshot."""

    status: SeedStatus
    """Seed 002's word for ``state``."""

    @classmethod
    def of(cls, info: SessionInfo) -> SessionOut:
        """Build from the core's snapshot."""
        return cls(status=seed_status(info.status), **SessionFields.fields(info))


class CreatedOut(SessionFields):
    """``claude_create_session``: the new session (started, or queued)."""

    status: SeedStatus | Literal["queued"]
    """Seed 002's word for ``state``; ``queued`` for a queued session when the call named a
    dispatch field (``after``, ``queue: true``, ``priority``); else a queued session
    reads as the seed's starting (``running``)."""

    @classmethod
    def of_created(cls, info: SessionInfo, *, queued_word: bool) -> CreatedOut:
        """Build from the core's snapshot."""
        queued = queued_word and info.status == SessionStatus.QUEUED
        status = "queued" if queued else seed_status(info.status)
        return cls(status=status, **SessionFields.fields(info))


class InterruptOut(SessionFields):
    """``claude_interrupt``: the session once its turn has stopped (seed 002)."""

    status: Literal["interrupted"] = "interrupted"
    """Seed 002's answer: the turn is not running any more; cctui's exact state (``idle``:
    the process waits for the next message) is in ``state``."""
    was_running: bool
    """A turn was running and was stopped; false: the session was already idle or ended."""
    note: str | None = None

    @classmethod
    def of_stopped(cls, info: SessionInfo, *, was_running: bool) -> InterruptOut:
        """The session ``info`` after an interrupt that found a running turn or not."""
        note = None if was_running else f"No turn was running (it was {info.status.value})."
        return cls(was_running=was_running, note=note, **SessionFields.fields(info))


class KillOut(SessionFields):
    """``claude_kill_session``: the session after its process ended, with seed 004's
    kill_session fields (seed 002 documents no kill)."""

    status: Literal["killed", "already_dead", "error"]
    """Seed 004's words: ``killed`` (a process was ended), ``already_dead`` (none ran),
    ``error`` (the session is in error); cctui's exact state is in ``state``."""
    killed_at: str = Field(alias="killed_at")
    exit_code: int | None = Field(default=None, alias="exit_code")
    """The ended process's exit code (negative: the signal that ended it); null when no
    process was ended or the code is unknown."""
    state_saved: bool = Field(default=True, alias="state_saved")
    """The transcript and cctui's record are kept: a later message resumes the session."""

    @classmethod
    def of_killed(cls, info: SessionInfo, *, was_active: bool, at: datetime) -> KillOut:
        """The session ``info`` after a kill that found a process (``was_active``) or not."""
        if info.status == SessionStatus.ERROR:
            status: Literal["killed", "already_dead", "error"] = "error"
        else:
            status = "killed" if was_active else "already_dead"
        return cls(
            status=status,
            killed_at=iso_z(at),
            exit_code=info.exit_code if was_active else None,
            **SessionFields.fields(info),
        )


class ToolUseOut(Out):
    """One tool call of the session."""

    tool_use_id: str
    tool_name: str
    status: Literal["running", "completed", "denied"]
    """Seed 002's three states; a call that ran and failed is ``completed``, see ``failed``."""
    failed: bool = False
    """It ran and returned an error."""
    input: dict[str, Any]


class EventOut(Out):
    """One buffered event, for ``sinceSeq`` readers."""

    seq: int
    kind: str
    text: str
    """A one-line rendering; ``data`` has the full event."""
    data: dict[str, Any]


class StatusOut(Out):
    """``claude_get_status``: where a session stands and what happened since ``sinceSeq``.

    Seed 002's fields are at the top level; ``session`` repeats them with cctui's extras.
    """

    session_id: str
    status: SeedStatus
    state: SessionStatus
    """cctui's exact state (see ``SessionOut.state``)."""
    result: str | None = None
    """The last turn's result text."""
    error: str | None = None
    cost_usd: float = 0.0
    turn_count: int = 0
    is_active: bool = False
    dispatch_note: str | None = None
    """What the dispatcher says of it (``queued 3rd``, ``waits for 2 sessions``, ``paused
    until 14:05 (usage limit)``)."""
    queue_position: int | None = None
    """``state`` ``queued``: 1 = starts next."""
    resumes_at: str | None = None
    """``state`` ``paused_usage_limit``: when the usage limit resets and it is continued."""
    session: SessionOut
    recent_output: list[str]
    events: list[EventOut]
    next_seq: int
    """Pass this as ``sinceSeq`` next time."""
    missed: bool
    """True when events after ``sinceSeq`` already fell out of the buffer, or when
    ``sinceSeq`` is past the last event (a seq from another cctui run, see ``epoch``)."""
    epoch: str = ""
    """Identifies this run of the session's event numbering: seqs restart at 1 when cctui
    restarts, and the epoch changes with them. Keep it with ``nextSeq``."""
    has_more: bool
    """True when more events are buffered after ``nextSeq`` (call again)."""
    pending_inputs: list[PendingInputOut]
    tool_use_events: list[ToolUseOut]


class AnsweredOut(Out):
    """A decision this call made on the session's behalf (by elicitation)."""

    input_id: str
    decision: Literal["allow", "deny"]
    decided_by: str


WaitReason = Literal["input_needed", "turn_ended", "timeout", "session_ended", "sent", "resumed"]
"""Why a waiting call returned; ``sent``/``resumed``: it did not wait."""


class PreviousState(BaseModel):
    """Seed 004 resume_session's ``previous_state``: the session before this call."""

    created_at: str
    last_active: str | None = None


class SentRecord(BaseModel):
    """How ``claude_send_message`` delivered (or, with no message, resumed)."""

    at: datetime
    """When the message was written (or the resumed session was live)."""
    resumed: bool
    """A process was started for this call (the session had ended)."""
    previous: PreviousState | None = None
    """The session before the call (None for a session cctui had not seen)."""


class WaitOut(Out):
    """Why a waiting call returned, and the session right after.

    Seed 002's ``{sessionId, status}`` at the top level; seed 004's send_message /
    resume_session / wait_for_completion fields under their snake_case names.
    """

    session_id: str
    status: SeedStatus
    state: SessionStatus
    reason: WaitReason
    session: SessionOut
    session_id_004: str = Field(alias="session_id")
    """Seed 004's ``session_id``; filled from the ``session_id`` keyword, like ``sessionId``
    (pydantic matches the keyword to this alias and to that field's name)."""
    message_sent: bool | None = Field(default=None, alias="message_sent")
    """Seed 004 send_message: the message was delivered (null for claude_wait)."""
    response: str | None = Field(default=None, alias="response")
    """Seed 004: Claude's reply when the turn ended within the wait."""
    completed: bool = Field(default=False, alias="completed")
    """Seed 004 wait_for_completion: the turn (or the session) ended."""
    timed_out: bool = Field(default=False, alias="timed_out")
    waited_ms: int = Field(default=0, alias="waited_ms")
    final_state: Literal["idle", "active", "error", "dead"] = Field(
        default="active", alias="final_state"
    )
    completed_at: str | None = Field(default=None, alias="completed_at")
    """Seed 004 wait_for_completion: when the turn (or the session) ended."""
    error: str | None = None
    """Seed 004 send_message: the session's error, when it is in error."""
    sent_at: str | None = Field(default=None, alias="sent_at")
    """Seed 004 send_message: when the message was written to the session (claude_send_message
    always sets it; null for claude_wait)."""
    responded_at: str | None = Field(default=None, alias="responded_at")
    """Seed 004 send_message: when the reply (the turn's end) came, within the wait."""
    resumed_at: str | None = Field(default=None, alias="resumed_at")
    """Seed 004 resume_session: when the session was live to take the message (a process
    started for it, or already running; see ``resumed``). Null for claude_wait."""
    resumed: bool | None = None
    """A process was started for this call (the session had ended); null for claude_wait."""
    previous_state: PreviousState | None = Field(default=None, alias="previous_state")
    """Seed 004 resume_session: the session before this call."""
    reply: str | None = None
    """The assistant's last reply (the turn's result) when the turn ended."""
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)
    answered: list[AnsweredOut] = Field(default_factory=list)
    note: str | None = None
    """What to do next, when there is something to do."""

    @classmethod
    def build(
        cls,
        info: SessionInfo,
        reason: WaitReason,
        pending: list[PendingInputOut],
        *,
        answered: list[AnsweredOut] | None = None,
        note: str | None = None,
        message_sent: bool | None = None,
        waited_ms: int = 0,
        sent: SentRecord | None = None,
    ) -> WaitOut:
        """The answer for ``info`` after a wait that ended for ``reason`` (``sent``: how
        claude_send_message delivered, for seed 004's send/resume fields)."""
        ended = reason in ("turn_ended", "session_ended")
        reply = info.last_result if ended else None
        # The turn's end is the session's last activity when the wait saw it end.
        ended_at = iso_z(info.last_activity) if ended else None
        if info.status == SessionStatus.ERROR:
            final: Literal["idle", "active", "error", "dead"] = "error"
        elif not info.is_active:
            final = "dead"
        elif info.status == SessionStatus.IDLE:
            final = "idle"
        else:
            final = "active"
        return cls(
            session_id=info.session_id,
            status=seed_status(info.status),
            state=info.status,
            reason=reason,
            session=SessionOut.of(info),
            reply=reply,
            message_sent=message_sent,
            response=reply,
            completed=ended,
            timed_out=reason == "timeout",
            waited_ms=waited_ms,
            final_state=final,
            completed_at=ended_at,
            error=info.error if info.status == SessionStatus.ERROR else None,
            sent_at=iso_z(sent.at) if sent is not None and message_sent else None,
            responded_at=ended_at if sent is not None and reply is not None else None,
            resumed_at=iso_z(sent.at) if sent is not None else None,
            resumed=sent.resumed if sent is not None else None,
            previous_state=sent.previous if sent is not None else None,
            pending_inputs=pending,
            answered=answered or [],
            note=note,
        )


class ProjectGrantOut(Out):
    """What became of ``allowForProject``."""

    status: Literal["sent", "awaiting_confirmation", "session_only", "not_offered"]
    """``sent``: claude writes the rule (``mcp_may_persist_rules``); ``awaiting_confirmation``:
    allowed for the session, the human at cctui is asked whether to write it;
    ``session_only``: nobody could confirm it; ``not_offered``: no rule may be kept."""
    rules: list[str] = Field(default_factory=list)
    file: str | None = None
    note: str


class RespondOut(Out):
    """``claude_respond``: the decision recorded, and the session after it."""

    session_id: str
    input_id: str
    decision: Literal["allow", "deny"]
    decided_by: str
    status: SeedStatus
    state: SessionStatus
    project: ProjectGrantOut | None = None
    """With ``allowForProject``: what was (or will be) written where, or why not."""
