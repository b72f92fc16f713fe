"""A clock the test moves by hand, for the dispatcher (``cctui.core.dispatch.clock.Clock``)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta


class FakeClock:
    """Wall-clock time that only moves when ``advance`` says; ``sleep`` waits for that."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
        self._moved = asyncio.Event()

    def now(self) -> datetime:
        return self._now

    async def sleep(self, seconds: float) -> None:
        self._moved.clear()
        await self._moved.wait()

    def advance(self, **delta: float) -> datetime:
        """Move the time on (``minutes=3``); a sleeping dispatcher wakes and looks."""
        self._now += timedelta(**delta)
        self._moved.set()
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when
        self._moved.set()
