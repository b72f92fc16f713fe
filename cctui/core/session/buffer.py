"""A bounded ring of events with strictly increasing sequence numbers."""

from __future__ import annotations

import uuid
from collections import deque
from dataclasses import dataclass
from itertools import takewhile
from typing import Generic, TypeVar

from pydantic import BaseModel

E = TypeVar("E", bound=BaseModel)


@dataclass(frozen=True)
class Page(Generic[E]):
    """What a reader gets for "since seq N"."""

    events: list[E]
    next_seq: int
    """Pass this as ``since`` next time: the last seq returned (or ``since`` if none)."""
    missed: bool
    """True when events after ``since`` were already dropped from the ring, or when
    ``since`` is past the newest seq (it came from an earlier run: seqs restart)."""
    oldest_seq: int
    """The oldest seq still held (0 when empty)."""
    epoch: str = ""
    """Which numbering the seqs belong to; a new buffer (a cctui restart) has a new one."""


class EventBuffer(Generic[E]):
    """Keeps the last ``size`` events. Seq numbers start at 1 and never repeat.

    ``append(..., merge_key=k)`` replaces the newest event when it carries the same key
    (streaming text merged per message): the merged event gets a new seq, so a reader
    that already saw the shorter text sees the longer one again and replaces it.
    """

    def __init__(self, size: int) -> None:
        self.epoch = uuid.uuid4().hex[:12]
        """Names this numbering: seqs restart at 1 in a new buffer, with a new epoch."""
        self._events: deque[E] = deque(maxlen=size)
        self._last_key: str | None = None
        self._seq = 0
        self._dropped_upto = 0  # highest seq that fell off the ring

    @property
    def last_seq(self) -> int:
        """The newest seq handed out (0 before any event)."""
        return self._seq

    def append(self, event: E, merge_key: str | None = None) -> E:
        """Store ``event`` with the next seq and return the stored copy."""
        self._seq += 1
        stored = event.model_copy(update={"seq": self._seq})
        if merge_key is not None and merge_key == self._last_key and self._events:
            self._events.pop()
        elif len(self._events) == self._events.maxlen and self._events:
            self._dropped_upto = self._events[0].seq  # type: ignore[attr-defined]
        self._events.append(stored)
        self._last_key = merge_key
        return stored

    def since(self, seq: int = 0, limit: int | None = None) -> Page[E]:
        """Events with seq > ``seq``, oldest first, at most ``limit`` of them."""
        # Seqs increase along the ring, so the newer events are a run at its end: walking
        # back costs what is new, not the whole ring (a pane pulls 4 times a second).
        newer = takewhile(lambda e: e.seq > seq, reversed(self._events))  # type: ignore[attr-defined]
        events = list(newer)
        events.reverse()
        if limit is not None:
            events = events[:limit]
        oldest = self._events[0].seq if self._events else 0  # type: ignore[attr-defined]
        ahead = seq > self._seq
        newest = self._seq if ahead else max(seq, 0)
        next_seq = events[-1].seq if events else newest  # type: ignore[attr-defined]
        return Page(
            events=events,
            next_seq=next_seq,
            missed=ahead or seq < self._dropped_upto,
            oldest_seq=oldest,
            epoch=self.epoch,
        )
