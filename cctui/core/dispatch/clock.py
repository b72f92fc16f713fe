"""The dispatcher's clock: wall-clock time and sleeping, replaceable in tests.

Schedules fire by the wall clock, not by a monotonic timer: a machine that slept through a
run's time must see it as missed when it wakes. So the dispatcher never sleeps long; it
wakes at least every ``MAX_NAP_S`` and compares the wall clock again.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Protocol

MAX_NAP_S = 30.0
"""The longest the dispatcher sleeps before it looks at the wall clock again."""


class Clock(Protocol):
    """Now, and a way to wait."""

    def now(self) -> datetime:
        """The current time, aware, in UTC."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (or less: a caller checks the time again anyway)."""


class WallClock:
    """The real one."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, min(seconds, MAX_NAP_S)))
