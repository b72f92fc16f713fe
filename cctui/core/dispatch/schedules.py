"""Schedules: when they fire, and what a run missed while cctui was away becomes.

``when`` is cron syntax (five fields, read by croniter in the schedule's zone, the
machine's by default), a simple form (``every weekday 09:00``, ``every 15 minutes``,
``daily 07:30``, ``every mon,thu 18:00``) or a one-off (``at 2026-12-01 09:00``,
``in 10 minutes``). Firing goes by the wall clock: a run more than ``GRACE`` late was
*missed* (cctui was not running, or the machine slept) and follows the schedule's rule —
``once`` (default) starts one run for however many were missed, ``skip`` starts none,
``all`` starts them one after another — never a burst (anthropics/claude-code#44128).
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from cctui.core.dispatch.models import MissedRule, Schedule, ScheduleRun
from cctui.core.session.models import SessionConfig
from cctui.errors import ValidationFailed

GRACE = timedelta(minutes=2)
"""A run this late still counts as on time (the loop naps up to 30 s; a restart takes a
few): later than this it was missed."""
KEEP_RUNS = 20
"""Runs remembered per schedule."""
MAX_OWED = 50
"""Missed runs rule ``all`` will make up at most."""

_DAYS = {
    "mon": 1, "monday": 1, "tue": 2, "tuesday": 2, "wed": 3, "wednesday": 3,
    "thu": 4, "thursday": 4, "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    "sun": 0, "sunday": 0,
}  # fmt: skip
_TIME = r"(?P<h>\d{1,2})(?::(?P<m>\d{2}))?"
_UNITS = {"minute": 60, "hour": 3600, "day": 86400}


def zone(name: str | None) -> tzinfo:
    """The zone cron times are read in: ``name`` (an IANA name), else the machine's."""
    from dateutil import tz  # here: ~6 ms of import the first frame need not pay

    if name is None:
        local: tzinfo = tz.tzlocal()
        return local
    found: tzinfo | None = tz.gettz(name)
    if found is None:
        raise ValidationFailed(f"timezone: {name!r} is not a known zone (e.g. Europe/Paris).")
    return found


def parse(
    when: str, now: datetime, zone_name: str | None = None
) -> tuple[str | None, datetime | None]:
    """``when`` as ``(cron, None)`` or ``(None, once_at_utc)``. Raises ValidationFailed."""
    text = " ".join(when.strip().lower().split())
    if not text:
        raise ValidationFailed("when: empty.", suggestion=_EXAMPLES)
    local = zone(zone_name)
    if m := re.fullmatch(r"in (\d+) (minute|hour|day)s?", text):
        return None, now + timedelta(seconds=int(m[1]) * _UNITS[m[2]])
    if m := re.fullmatch(r"(?:at |once )?(\d{4}-\d{2}-\d{2}[t ]\d{1,2}:\d{2}(?::\d{2})?.*)", text):
        try:
            at = datetime.fromisoformat(m[1].upper().replace("Z", "+00:00"))
        except ValueError:
            raise ValidationFailed(f"when: {when!r} is not a date and time.") from None
        at = at if at.tzinfo is not None else at.replace(tzinfo=local)
        return None, at.astimezone(UTC)
    cron = _simple(text)
    if cron is None:
        cron = text
    from croniter import croniter  # here: ~20 ms of import the TUI's first frame need not pay

    if not croniter.is_valid(cron) or len(cron.split()) != 5:
        raise ValidationFailed(
            f"when: {when!r} is not a schedule cctui reads.", suggestion=_EXAMPLES
        )
    return cron, None


_EXAMPLES = (
    "Cron's five fields ('0 9 * * 1-5'), 'every weekday 09:00', 'daily 07:30', "
    "'every mon,thu 18:00', 'every 15 minutes', 'every hour', 'at 2026-12-01 09:00', "
    "'in 10 minutes'."
)


def _simple(text: str) -> str | None:
    """A simple form as cron, or None."""
    if m := re.fullmatch(r"every (\d+) minutes?", text):
        return f"*/{int(m[1])} * * * *"
    if m := re.fullmatch(r"every (\d+) hours?", text):
        return f"0 */{int(m[1])} * * *"
    if text in ("every hour", "hourly"):
        return "0 * * * *"
    if text in ("every minute",):
        return "* * * * *"
    if m := re.fullmatch(rf"(?:every day|daily)(?: at)?(?: {_TIME})?", text):
        return _at(m, "*")
    if m := re.fullmatch(rf"every weekday(?: at)?(?: {_TIME})?", text):
        return _at(m, "1-5")
    if m := re.fullmatch(rf"every weekend(?: at)?(?: {_TIME})?", text):
        return _at(m, "0,6")
    if m := re.fullmatch(rf"(?:every |weekly on )(?P<days>[a-z, ]+?)(?: at)?(?: {_TIME})?", text):
        days = [d for d in re.split(r"[ ,]+", m["days"]) if d and d != "and"]
        if days and all(d in _DAYS for d in days):
            return _at(m, ",".join(str(_DAYS[d]) for d in days))
    return None


def _at(m: re.Match[str], dow: str) -> str | None:
    hour = int(m["h"]) if m["h"] is not None else 0
    minute = int(m["m"]) if m["m"] is not None else 0
    if hour > 23 or minute > 59:
        return None
    return f"{minute} {hour} * * {dow}"


def next_after(schedule: Schedule, after: datetime) -> datetime | None:
    """The schedule's first time strictly after ``after`` (UTC); None for a fired one-off."""
    if schedule.cron is None:
        return schedule.once_at if schedule.once_at and schedule.once_at > after else None
    from croniter import croniter  # here: see parse

    local = after.astimezone(zone(schedule.timezone))
    nxt: datetime = croniter(schedule.cron, local).get_next(datetime)
    return nxt.astimezone(UTC)


def make(
    name: str,
    when: str,
    prompt: str,
    config: SessionConfig,
    now: datetime,
    worktree: bool | str | None,
    missed: MissedRule,
    timezone: str | None,
    priority: int = 0,
) -> Schedule:
    """A new schedule, its first time computed. Raises ValidationFailed."""
    if not name.strip():
        raise ValidationFailed("name: empty.")
    if not prompt.strip():
        raise ValidationFailed("prompt: a schedule needs a prompt to send.")
    cron, once_at = parse(when, now, timezone)
    if once_at is not None and once_at < now - GRACE:
        raise ValidationFailed(f"when: {when!r} is in the past.")
    schedule = Schedule(
        id=uuid.uuid4().hex[:12],
        name=name.strip(),
        when=when.strip(),
        cron=cron,
        once_at=once_at,
        timezone=timezone,
        prompt=prompt,
        config=config,
        worktree=worktree,
        priority=priority,
        missed=missed,
        created_at=now,
    )
    first = once_at if once_at is not None else next_after(schedule, now)
    return schedule.model_copy(update={"next_due": first})


def find(schedules: list[Schedule], ref: str) -> Schedule:
    """By id or name. Raises ValidationFailed."""
    for schedule in schedules:
        if ref in (schedule.id, schedule.name):
            return schedule
    raise ValidationFailed(
        f"No schedule has id or name {ref!r}.", suggestion="claude_list_schedules lists them."
    )


def edit(schedule: Schedule, now: datetime, **changes: Any) -> Schedule:
    """``schedule`` with ``changes`` (``when``, ``prompt``, ``missed``, ``paused``,
    ``name``, ``worktree``, ``priority``); a new ``when``, or resuming a paused one, counts
    from now (no catch-up for the paused time). ``worktree=False`` turns it off."""
    allowed = {"when", "prompt", "missed", "paused", "name", "timezone", "worktree", "priority"}
    unknown = set(changes) - allowed
    if unknown:
        raise ValidationFailed(f"A schedule's {', '.join(sorted(unknown))} cannot be edited.")
    update = {k: v for k, v in changes.items() if v is not None}
    if update.get("worktree") is False:
        update["worktree"] = None
    when = update.get("when", schedule.when)
    timezone = update.get("timezone", schedule.timezone)
    resumed = schedule.paused and update.get("paused") is False
    if "when" in update or "timezone" in update or resumed:
        cron, once_at = parse(when, now, timezone)
        update |= {"when": when.strip(), "cron": cron, "once_at": once_at, "owed": 0}
    edited = schedule.model_copy(update=update)
    if "cron" in update:
        first = edited.once_at if edited.cron is None else next_after(edited, now)
        edited = edited.model_copy(update={"next_due": first})
    return edited


def due(schedule: Schedule, now: datetime) -> tuple[list[datetime], Schedule]:
    """The runs to start at ``now`` (at most one: the rest are owed, or skipped), and the
    schedule with its next time moved past ``now`` (the same object when nothing is due)."""
    first = schedule.next_due
    if first is None or now < first:
        return [], schedule
    times = [first]
    nxt = next_after(schedule, first)
    while nxt is not None and nxt <= now and len(times) <= MAX_OWED:
        times.append(nxt)
        nxt = next_after(schedule, nxt)
    if nxt is not None and nxt <= now:  # more than MAX_OWED missed: jump past now
        nxt = next_after(schedule, now)
    newest = times[-1]
    on_time = now - newest <= GRACE
    owed = schedule.owed
    runs: list[datetime]
    if len(times) == 1 and on_time:
        runs = [newest]
    elif schedule.missed == "skip":
        runs = [newest] if on_time else []
    elif schedule.missed == "all":
        runs = [times[0]]
        owed = min(MAX_OWED, owed + len(times) - 1)
    else:
        runs = [newest]
    return runs, schedule.model_copy(update={"next_due": nxt, "owed": owed})


def record_run(schedule: Schedule, due_at: datetime, now: datetime) -> ScheduleRun:
    """Note a run (with the session id it will have) on ``schedule``, in place."""
    run = ScheduleRun(due=due_at, session_id=str(uuid.uuid4()), fired_at=now)
    schedule.runs.append(run)
    del schedule.runs[:-KEEP_RUNS]
    return run
