"""The plan's usage limit, as the CLI reports it (docs/dispatch.md has the exact lines).

Signed in with a claude.ai plan, a turn refused at the limit makes the CLI emit a
``rate_limit_event`` (``rate_limit_info.status`` ``rejected``, ``resetsAt`` in epoch
seconds), then a synthetic assistant message and an error ``result`` ("You've hit your
5-hour limit · resets 7:26pm (UTC)", ``api_error`` ``usage_limit_reached``). The
translator carries the reset time onto the ``ResultEvent``; this module reads it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cctui.core.session.events import ResultEvent

_LEAST = timedelta(seconds=60)
"""A reset time in the past still holds work back this long: clock skew, or a turn refused
again at a reset the CLI had already reported (it says nothing new then), which must not
become a continue message every few seconds."""


def limit_hit(event: ResultEvent, now: datetime) -> tuple[datetime, str] | None:
    """``(reset time, the CLI's words)`` when ``event`` is a turn refused at the usage
    limit; None otherwise."""
    until = event.usage_limit_resets_at
    if until is None:
        return None
    return max(until, now + _LEAST), event.result or "usage limit reached"
