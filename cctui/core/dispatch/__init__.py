"""Who starts when: a queue past the session limits, sessions that run ``after`` others,
schedules, and the plan's usage limit (``docs/dispatch.md``)."""

from cctui.core.dispatch.dispatcher import Dispatcher, DispatchHost
from cctui.core.dispatch.models import (
    DispatchRequest,
    MissedRule,
    ParentResults,
    QueueEntry,
    Schedule,
    ScheduleRun,
    UsageHold,
)

__all__ = [
    "DispatchHost",
    "DispatchRequest",
    "Dispatcher",
    "MissedRule",
    "ParentResults",
    "QueueEntry",
    "Schedule",
    "ScheduleRun",
    "UsageHold",
]
