"""The queue and schedules page's view of the dispatcher, read at once, and its edits.

The page (``t``) asks ``CoreApi.dispatch_board`` for this snapshot and changes things with
the ``queue_*`` / ``schedule_*`` calls, never the ``Dispatcher`` object: a window attached
to the owner has no dispatcher of its own, and gets the same snapshot from the owner's.
Everything the page shows of a queued session or a schedule's last run is here, so the page
needs no session lookup of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from cctui.core.dispatch.dispatcher import Dispatcher
from cctui.core.dispatch.models import MissedRule, Schedule, UsageHold
from cctui.core.session.models import SessionInfo


class QueuedRow(BaseModel):
    """One queued session, in the order it starts."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    """The queued session."""
    prompt: str | None
    """Its first prompt."""
    note: str
    """What it waits for (``queued 2nd``, ``waits for 1 session``, the usage limit)."""
    project: str
    """Its project (or its directory's name)."""


class DispatchBoard(BaseModel):
    """The queue and the schedules as the dispatcher has them now."""

    model_config = ConfigDict(defer_build=True)

    now: datetime
    """The dispatcher's clock (next runs are shown relative to it)."""
    working: int
    """Sessions holding a slot."""
    max_sessions: int
    """The limit past which sessions are queued."""
    owner: bool
    """False when this core does not dispatch (another cctui owns the sessions)."""
    hold: UsageHold | None
    """The usage limit's hold, while it lasts."""
    queued: list[QueuedRow]
    """The queue, in the order it starts."""
    schedules: list[Schedule]
    """Every schedule, the next to fire first."""
    last_status: dict[str, str]
    """The status of each schedule's last run (by session id; gone ones left out)."""


class ScheduleChanges(BaseModel):
    """What an edit changes of a schedule: None leaves a field as it is."""

    model_config = ConfigDict(defer_build=True)

    name: str | None = None
    """A new name."""
    when: str | None = None
    """A new time rule (``every weekday 09:00``)."""
    prompt: str | None = None
    """A new prompt."""
    missed: MissedRule | None = None
    """A new rule for missed runs."""
    worktree: bool | str | None = None
    """Each run in a worktree (True or a name); False turns it off."""
    priority: int | None = None
    """A new queue priority."""
    paused: bool | None = None
    """Pause (True) or resume (False)."""


def read_board(
    dispatch: Dispatcher, max_sessions: int, info: Callable[[str], SessionInfo | None]
) -> DispatchBoard:
    """The board now; ``info`` finds a session (None when gone)."""
    queued: list[QueuedRow] = []
    for entry in dispatch.queued():
        found = info(entry.session_id)
        if found is None:
            continue
        queued.append(
            QueuedRow(
                session_id=entry.session_id,
                prompt=entry.prompt,
                note=found.dispatch.note if found.dispatch else "queued",
                project=found.config.project or found.config.cwd.name,
            )
        )
    schedules = dispatch.list_schedules()
    last: dict[str, str] = {}
    for schedule in schedules:
        if schedule.runs:
            run = info(schedule.runs[-1].session_id)
            if run is not None:
                last[run.session_id] = run.status.value
    return DispatchBoard(
        now=dispatch.clock.now(),
        working=dispatch.working(),
        max_sessions=max_sessions,
        owner=dispatch.owner,
        hold=dispatch.hold,
        queued=queued,
        schedules=schedules,
        last_status=last,
    )


def edit_schedule(dispatch: Dispatcher, ref: str, changes: ScheduleChanges) -> Schedule:
    """``Dispatcher.edit_schedule`` with only the fields given."""
    given: dict[str, Any] = changes.model_dump(exclude_none=True)
    return dispatch.edit_schedule(ref, **given)
