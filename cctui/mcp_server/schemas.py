"""What the tools return: pydantic models whose wire names are camelCase, like the seeds'.

Python code uses snake_case; ``alias_generator`` gives ``sessionId``, ``nextSeq`` and so on
on the wire and in each tool's ``outputSchema``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from cctui.core import PendingInput, SessionInfo, SessionStatus


class Out(BaseModel):
    """Base of every output model: camelCase on the wire."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class PendingInputOut(Out):
    """A decision a session waits for; answer it with ``claude_respond``."""

    input_id: str
    type: Literal["permission", "plan_review", "user_question"]
    tool_name: str
    tool_input: dict[str, Any]
    description: str | None = None
    plan: str | None = None
    questions: list[dict[str, Any]] = Field(default_factory=list)
    asked: Literal["human", "client"] = "human"
    """Who is being asked first: the human at cctui, or an MCP client by elicitation."""
    allow_for_session: str | None = None
    """What ``claude_respond`` with ``allowForSession: true`` (the TUI's ``A``) would allow,
    in words: the CLI's narrow rule or this exact call, until the process ends."""
    how_to_answer: str = ""

    @classmethod
    def of(cls, item: PendingInput) -> PendingInputOut:
        """Build from the core's record."""
        return cls(
            input_id=item.id,
            type=item.kind,
            tool_name=item.tool_name,
            tool_input=item.tool_input,
            description=item.description,
            plan=item.plan,
            questions=[q.model_dump(by_alias=True) for q in item.questions],
            asked=item.route,
            allow_for_session=item.allow_for_session,
            how_to_answer=(
                f'claude_respond with sessionId="{item.session_id}", inputId="{item.id}", '
                'decision "allow" or "deny"'
                + (" and answers" if item.kind == "user_question" else "")
            ),
        )


class SessionOut(Out):
    """A session snapshot."""

    session_id: str
    status: SessionStatus
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

    @classmethod
    def of(cls, info: SessionInfo) -> SessionOut:
        """Build from the core's snapshot."""
        return cls(
            session_id=info.session_id,
            status=info.status,
            is_active=info.is_active,
            working_directory=str(info.config.cwd),
            title=info.title,
            result=info.last_result,
            error=info.error,
            cost_usd=info.total_cost_usd,
            turn_count=info.num_turns,
            permission_mode=info.permission_mode,
            last_seq=info.last_seq,
            pending_input_ids=list(info.pending_input_ids),
        )


class ToolUseOut(Out):
    """One tool call of the session."""

    tool_use_id: str
    tool_name: str
    status: Literal["running", "completed", "denied", "failed"]
    input: dict[str, Any]


class EventOut(Out):
    """One buffered event, for ``sinceSeq`` readers."""

    seq: int
    kind: str
    text: str
    """A one-line rendering; ``data`` has the full event."""
    data: dict[str, Any]


class StatusOut(Out):
    """``claude_get_status``: where a session stands and what happened since ``sinceSeq``."""

    session: SessionOut
    recent_output: list[str]
    events: list[EventOut]
    next_seq: int
    """Pass this as ``sinceSeq`` next time."""
    missed: bool
    """True when events after ``sinceSeq`` already fell out of the buffer."""
    has_more: bool
    """True when more events are buffered after ``nextSeq`` (call again)."""
    pending_inputs: list[PendingInputOut]
    tool_use_events: list[ToolUseOut]


class AnsweredOut(Out):
    """A decision this call made on the session's behalf (by elicitation)."""

    input_id: str
    decision: Literal["allow", "deny"]
    decided_by: str


class WaitOut(Out):
    """Why a waiting call returned, and the session right after."""

    reason: Literal["input_needed", "turn_ended", "timeout", "session_ended", "sent"]
    session: SessionOut
    reply: str | None = None
    """The assistant's last reply (the turn's result) when the turn ended."""
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)
    answered: list[AnsweredOut] = Field(default_factory=list)
    note: str | None = None
    """What to do next, when there is something to do."""


class RespondOut(Out):
    """``claude_respond``: the decision recorded, and the session after it."""

    session_id: str
    input_id: str
    decision: Literal["allow", "deny"]
    decided_by: str
    status: SessionStatus


class SessionListEntry(Out):
    """One row of ``claude_list_sessions``."""

    session_id: str
    project_directory: str | None = None
    display_text: str | None = None
    timestamp: str | None = None
    is_active: bool = False
    status: str | None = None
    team: str | None = None
    cost_usd: float | None = None


class SessionListOut(Out):
    """``claude_list_sessions``."""

    sessions: list[SessionListEntry]
    total: int
    truncated: bool


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


class QueryOut(Out):
    """``claude_query``: the run's messages (the last ``maxMessages``) and its result."""

    session_id: str
    messages: list[QueryMessage]
    total_messages: int
    truncated: bool
    execution_time_ms: int
    success: bool
    result: str | None = None
    error: str | None = None
    cost_usd: float | None = None
    turn_count: int = 0
    usage: dict[str, Any] | None = None
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)


class HealthOut(Out):
    """``claude_health``: can cctui run Claude Code here?"""

    ok: bool
    cli_path: str | None = None
    version: str | None = None
    source: str
    """Where the path came from: setting, CLAUDE_CODE_PATH, bundled or PATH."""
    problem: str | None = None
    suggestion: str | None = None
    active_sessions: int = 0
    server_version: str
