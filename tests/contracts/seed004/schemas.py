"""Seed 004's response schemas (ARCHITECTURE.md, "Tool Schemas" and "Error Handling"),
rewritten from Zod as pydantic models that judge a response as Zod would.

Zod rules kept:
- ``z.string()``, ``z.number()``, ``z.boolean()`` take only that JSON type (no coercion:
  strict types; a number is an int or a float, never a bool).
- ``.optional()`` means absent or of the type; ``null`` is refused (none of the seed's
  fields is ``.nullable()``), so any ``null`` value fails.
- ``z.string().datetime()`` (Zod 3 defaults: no offset, any precision) accepts only
  ``YYYY-MM-DDTHH:MM:SS[.fraction]Z``.
- ``z.object`` strips unknown keys (``extra="ignore"``): cctui's extra fields are allowed.

``validate(name, body)`` parses a tool's structured result with that tool's schema and
returns the model (raising ``ValidationError`` as ``.parse`` would throw).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    model_validator,
)

ZOD_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def _datetime(value: str) -> str:
    if not ZOD_DATETIME.match(value):
        raise ValueError(f"Invalid datetime (Zod's z.string().datetime()): {value!r}")
    return value


Datetime = Annotated[StrictStr, AfterValidator(_datetime)]
Number = StrictInt | StrictFloat


class ZodObject(BaseModel):
    """``z.object({...})``: unknown keys stripped, ``null`` never allowed."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _no_null(cls, data: Any) -> Any:
        if isinstance(data, dict):
            nulls = sorted(k for k, v in data.items() if v is None and k in cls.model_fields)
            if nulls:
                raise ValueError(f"Expected a value, received null: {', '.join(nulls)}")
        return data


class StartSessionResponse(ZodObject):
    session_id: StrictStr
    status: Literal["starting", "ready", "error"]
    pid: Number | None = None
    tmux_pane: StrictStr | None = None
    started_at: Datetime


class PreviousState(ZodObject):
    created_at: Datetime
    last_active: Datetime | None = None


class ResumeSessionResponse(ZodObject):
    session_id: StrictStr
    status: Literal["resuming", "ready", "not_found", "error"]
    resumed_at: Datetime
    previous_state: PreviousState | None = None


class KillSessionResponse(ZodObject):
    session_id: StrictStr
    status: Literal["killed", "not_found", "already_dead", "error"]
    killed_at: Datetime
    exit_code: Number | None = None
    state_saved: StrictBool


class SessionRow(ZodObject):
    session_id: StrictStr
    status: Literal["active", "inactive", "error", "zombie"]
    pid: Number | None = None
    cwd: StrictStr | None = None
    created_at: Datetime
    last_active: Datetime | None = None
    team_name: StrictStr | None = None
    teammate_name: StrictStr | None = None
    model: StrictStr | None = None


class ListSessionsResponse(ZodObject):
    sessions: list[SessionRow]
    total_count: Number
    filtered_count: Number


class SendMessageResponse(ZodObject):
    session_id: StrictStr
    message_sent: StrictBool
    response: StrictStr | None = None
    error: StrictStr | None = None
    sent_at: Datetime
    responded_at: Datetime | None = None


class SyncContextResponse(ZodObject):
    session_id: StrictStr
    synced_at: Datetime
    context_type: StrictStr
    files_synced: Number | None = None
    env_vars_synced: Number | None = None
    git_status_synced: StrictBool | None = None
    warnings: list[StrictStr] | None = None


class WaitForCompletionResponse(ZodObject):
    session_id: StrictStr
    completed: StrictBool
    timed_out: StrictBool
    waited_ms: Number
    final_state: Literal["idle", "active", "error", "dead"]
    completed_at: Datetime | None = None


class StreamOutputResponse(ZodObject):
    """The seed gives stream_output no response schema ("a continuous stream of text
    chunks"); what a client can rely on is the session id and the text."""

    session_id: StrictStr
    lines: list[StrictStr]
    output: StrictStr


ErrorCategory = Literal[
    "SESSION_NOT_FOUND",
    "SESSION_NOT_READY",
    "DOPPLER_ERROR",
    "PROCESS_ERROR",
    "VALIDATION_ERROR",
    "TIMEOUT_ERROR",
    "PERMISSION_ERROR",
]


class ErrorBody(ZodObject):
    code: ErrorCategory
    message: StrictStr
    details: Any = None
    retryable: StrictBool
    suggestion: StrictStr | None = None


class ErrorResponse(ZodObject):
    """``interface ErrorResponse { error: {code, message, details?, retryable, suggestion?} }``."""

    error: ErrorBody


RESPONSES: dict[str, type[ZodObject]] = {
    "start_session": StartSessionResponse,
    "resume_session": ResumeSessionResponse,
    "kill_session": KillSessionResponse,
    "list_sessions": ListSessionsResponse,
    "send_message": SendMessageResponse,
    "sync_context": SyncContextResponse,
    "wait_for_completion": WaitForCompletionResponse,
    "stream_output": StreamOutputResponse,
}
"""Each tool's response schema."""

MANIFEST = tuple(RESPONSES)
"""Appendix C: the server's eight tools."""


def validate(tool: str, body: dict[str, Any]) -> Any:
    """``<Tool>ResponseSchema.parse(body)``."""
    return RESPONSES[tool].model_validate(body)
