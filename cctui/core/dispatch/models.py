"""What the dispatcher keeps: queued sessions, schedules, and the usage-limit hold.

All of it is written to one versioned JSON file in the state directory (``store.py``), so a
queue, a schedule and a pause survive a restart of cctui.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.core.session.models import SessionConfig

ParentResults = Literal["none", "reply", "diff"]
"""What a session that runs ``after`` others is told of them: nothing, each parent's final
reply, or the files each parent changed."""

MissedRule = Literal["once", "skip", "all"]
"""A schedule's runs missed while cctui was not running (or the machine slept): run once
when back (default), skip them, or run each one (one after another, never a burst)."""


class DispatchRequest(BaseModel):
    """How a new session is dispatched (``SessionManager.create``'s ``dispatch``)."""

    model_config = ConfigDict(frozen=True)

    after: tuple[str, ...] = ()
    """Session ids that must all have ended well before this one starts (AND)."""
    priority: int = 0
    """Higher starts first; FIFO within a priority."""
    parent_results: ParentResults = "none"
    """Put each ``after`` parent's final reply (or its changed files) into the prompt."""
    start_now: bool = False
    """Start even over the limits (the human or the client said so)."""
    schedule_id: str | None = None
    """The schedule this run belongs to."""
    queue_when_full: bool = True
    """False: at the limit refuse (``session_limit``) instead of queueing."""


class QueueEntry(BaseModel):
    """A session created but not started."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    prompt: str | None = None
    worktree: bool | str | None = None
    """As ``create``'s ``worktree``: True, a name, or nothing."""
    priority: int = 0
    seq: int = 0
    """Order of arrival (FIFO within a priority); reordering changes it."""
    after: tuple[str, ...] = ()
    parent_results: ParentResults = "none"
    schedule_id: str | None = None
    queued_at: datetime


class ScheduleRun(BaseModel):
    """One firing of a schedule: when it was due, and the session it became."""

    model_config = ConfigDict(defer_build=True)

    due: datetime
    session_id: str
    fired_at: datetime


class Schedule(BaseModel):
    """A session started by the clock, once or again and again."""

    model_config = ConfigDict(defer_build=True)

    id: str
    name: str
    when: str
    """As given: ``cron`` syntax, a simple form (``every weekday 09:00``) or ``at <time>``."""
    cron: str | None = None
    """The five-field cron expression ``when`` stands for (None: a one-off)."""
    once_at: datetime | None = None
    """A one-off's time (UTC)."""
    timezone: str | None = None
    """The zone cron times are read in (None: the machine's local zone)."""
    prompt: str
    config: SessionConfig
    """How each run starts (directory, model, permission mode...)."""
    worktree: bool | str | None = None
    """Each run in a new git worktree: True (named from the prompt), a name, or None."""
    priority: int = 0
    """Each run's place in the queue when the limit is reached (higher starts first)."""
    missed: MissedRule = "once"
    paused: bool = False
    next_due: datetime | None = None
    """The next run's time (UTC); None when a one-off has fired."""
    owed: int = 0
    """Missed runs still to start one after another (rule ``all``)."""
    runs: list[ScheduleRun] = Field(default_factory=list)
    """The latest runs, newest last (a few are kept)."""
    created_at: datetime


class UsageHold(BaseModel):
    """The plan's usage limit was hit: nothing new starts before ``until``."""

    model_config = ConfigDict(defer_build=True)

    until: datetime
    """When the limit resets (UTC), as the CLI said."""
    message: str
    """The CLI's words."""
    seen_at: datetime
    paused: list[str] = Field(default_factory=list)
    """Sessions paused by it, continued at the reset."""


class DispatchState(BaseModel):
    """The dispatcher's file (``dispatch.json``)."""

    version: Literal[1] = 1
    queue: list[QueueEntry] = Field(default_factory=list)
    schedules: list[Schedule] = Field(default_factory=list)
    hold: UsageHold | None = None
    next_seq: int = 1
