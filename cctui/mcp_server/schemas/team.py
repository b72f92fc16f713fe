"""What the team and context tools return."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from cctui.mcp_server.schemas.common import Out


class DeliveryOut(Out):
    """One team member's copy of a broadcast."""

    session_id: str
    teammate: str | None = None
    delivered: bool
    """Written to a live process (an ended session was resumed first)."""
    status: str | None = None
    """The session's status right after."""
    error: str | None = None
    """Why not delivered."""
    error_code: str | None = None


class ShutdownOut(Out):
    """How a shutdown request ended."""

    session_id: str
    teammate: str | None = None
    outcome: str
    """``approved`` (its process was ended; it stays resumable), ``rejected``,
    ``already_ended`` (nothing was sent), or ``no_answer`` (it keeps running)."""
    reason: str | None = None
    """The teammate's reason for rejecting, or why there was no answer."""
    status: str | None = None
    """The session's status afterwards."""


class BroadcastOut(Out):
    """Per-session delivery of a broadcast."""

    team: str
    delivered: int
    """How many sessions got the message."""
    failed: int
    results: list[DeliveryOut]


class SyncContextOut(BaseModel):
    """What was sent (seed 004's field names, plus ``sessionId`` and ``status``)."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    session_id: str
    same_session_id: str = Field(alias="sessionId")
    """``session_id`` again, under the name cctui's other tools use."""
    synced_at: datetime
    context_type: str
    files_synced: int
    env_vars_synced: int
    git_status_synced: bool
    warnings: list[str]
    message_chars: int
    """Length of the message sent to the session."""
    status: str
    """The session's status after the message was sent."""
