"""``cctui_follow``'s wire models: what changed in the sessions a follower watches."""

from __future__ import annotations

from pydantic import Field

from cctui.core import SessionStatus
from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.history import SessionListEntry
from cctui.mcp_server.schemas.sessions import EventOut, PendingInputOut


class FollowCursor(Out):
    """Where a follower stands in one session's events (``epoch`` and ``nextSeq`` of the
    last answer about it)."""

    session_id: str = Field(min_length=1, max_length=200)
    epoch: str = Field(default="", max_length=64)
    since_seq: int = Field(default=0, ge=0)


class FollowedSession(Out):
    """One session that changed: its new events, its open inputs and its list row."""

    session_id: str
    state: SessionStatus | None = None
    """Its state now (None: ``gone``)."""
    gone: bool = False
    """This cctui no longer knows it (its registry forgot it)."""
    events: list[EventOut] = Field(default_factory=list)
    next_seq: int = 0
    missed: bool = False
    """Events after the cursor fell out of the buffer, or the cursor's epoch is not this
    run's: ``events`` start again from the oldest still held (read afresh)."""
    epoch: str = ""
    has_more: bool = False
    """More events are buffered after ``nextSeq``: the next call returns them at once."""
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)
    row: SessionListEntry | None = None
    """Its ``claude_list_sessions`` row as it is now (title, cost, activity)."""


class FollowOut(Out):
    """``cctui_follow``: every watched or live session that changed; empty on a timeout."""

    sessions: list[FollowedSession]
    timed_out: bool = False
