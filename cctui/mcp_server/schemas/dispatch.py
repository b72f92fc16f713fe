"""What the dispatch tools return: the queue, and schedules (``claude_queue``,
``claude_schedule``, ``claude_list_schedules``, ``claude_cancel_schedule``)."""

from __future__ import annotations

from pydantic import Field

from cctui.core import SessionManager
from cctui.core.dispatch import QueueEntry, Schedule
from cctui.mcp_server.schemas.common import Out
from cctui.timestamps import iso_z, iso_z_or_none


class QueuedOut(Out):
    """One queued session."""

    session_id: str
    position: int
    """1 = starts next."""
    note: str
    """``queued 2nd``, ``waits for 1 session``, ``queued until 14:05 (usage limit)``."""
    prompt: str | None = None
    working_directory: str
    priority: int = 0
    after: list[str] = Field(default_factory=list)
    waits_for: list[str] = Field(default_factory=list)
    schedule: str | None = None
    queued_at: str

    @classmethod
    def of(cls, entry: QueueEntry, position: int, manager: SessionManager) -> QueuedOut:
        info = manager.get(entry.session_id)
        view = info.dispatch
        return cls(
            session_id=entry.session_id,
            position=position,
            note=view.note if view else "queued",
            prompt=entry.prompt,
            working_directory=str(info.config.cwd),
            priority=entry.priority,
            after=list(entry.after),
            waits_for=list(view.waits_for) if view else [],
            schedule=view.schedule_name if view else None,
            queued_at=iso_z(entry.queued_at),
        )


class QueueOut(Out):
    """``claude_queue``: the queue after the action, in the order it starts."""

    action: str
    session_id: str | None = None
    queued: list[QueuedOut]
    working: int
    """Sessions holding a slot now (starting or running a turn)."""
    max_sessions: int
    usage_limit_until: str | None = None
    """Nothing new starts before this (the plan's usage limit)."""

    @classmethod
    def of(cls, manager: SessionManager, action: str, session_id: str | None) -> QueueOut:
        d = manager.dispatch
        hold = d.hold
        return cls(
            action=action,
            session_id=session_id,
            queued=[QueuedOut.of(e, i, manager) for i, e in enumerate(d.queued(), start=1)],
            working=d.working(),
            max_sessions=manager.settings.max_sessions,
            usage_limit_until=iso_z(hold.until) if hold else None,
        )


class ScheduleRunOut(Out):
    """One run of a schedule."""

    due: str
    session_id: str
    state: str | None = None
    """The run's session's state now (null: not known any more)."""


class ScheduleOut(Out):
    """A schedule."""

    schedule_id: str
    name: str
    when: str
    cron: str | None = None
    timezone: str | None = None
    prompt: str
    working_directory: str
    model: str | None = None
    permission_mode: str | None = None
    worktree: bool | str | None = None
    priority: int = 0
    """Each run's place when queued: higher starts first."""
    missed: str
    """Runs missed while cctui was not running: ``once`` (one run), ``skip``, ``all``."""
    paused: bool
    next_run: str | None = None
    owed: int = 0
    """Missed runs still to start, one after another (rule ``all``)."""
    last_runs: list[ScheduleRunOut] = Field(default_factory=list)
    """The latest runs, newest last."""
    note: str = (
        "A schedule fires only while a cctui owns the sessions (the TUI, or cctui serve); "
        "a run missed meanwhile follows 'missed'. Unattended runs draw on your plan or API "
        "credit like any session."
    )

    @classmethod
    def of(cls, schedule: Schedule, manager: SessionManager) -> ScheduleOut:
        runs = []
        for run in schedule.runs[-5:]:
            try:
                state: str | None = manager.get(run.session_id).status.value
            except Exception:
                state = None
            runs.append(ScheduleRunOut(due=iso_z(run.due), session_id=run.session_id, state=state))
        config = schedule.config
        return cls(
            schedule_id=schedule.id,
            name=schedule.name,
            when=schedule.when,
            cron=schedule.cron,
            timezone=schedule.timezone,
            prompt=schedule.prompt,
            working_directory=str(config.cwd),
            model=config.model,
            permission_mode=config.permission_mode,
            worktree=schedule.worktree,
            priority=schedule.priority,
            missed=schedule.missed,
            paused=schedule.paused,
            next_run=iso_z_or_none(schedule.next_due),
            owed=schedule.owed,
            last_runs=runs,
        )


class SchedulesOut(Out):
    """``claude_list_schedules``."""

    schedules: list[ScheduleOut]
