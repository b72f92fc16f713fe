"""What needs the person: "done, not seen yet", and the next session to go to (plain logic).

A session is *unseen* when its turn ended (idle, completed, stopped or failed) while it was
not on screen; showing it in the pane, peeking at it or opening it clears the bit, and so
does a new turn. The bit is the person's at this TUI, so it lives here, in the view model,
not in the core: an MCP client reading a session has not shown it to anyone (its
``claude_wait`` already returns the result to the client that asked), and clearing it there
would hide a finished session from the person who never saw it.

``next_needing`` orders what needs the person: sessions waiting for an answer first (the
longest waiting first), then the unseen ones (the earliest finished first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime

from cctui.tui import clock
from cctui.tui.rows import SessionRow

BUSY = frozenset({"starting", "running", "waiting_for_input"})
"""A turn is under way."""
DONE = frozenset({"idle", "completed", "interrupted", "error"})
"""The turn is over: what a person comes back to read."""


class Attention:
    """The unseen bit of every session, from the rows it sees go by."""

    def __init__(self) -> None:
        self._status: dict[str, str] = {}
        self._unseen: dict[str, datetime] = {}
        """Session id -> when its turn ended unseen."""

    @property
    def unseen(self) -> Mapping[str, datetime]:
        """Session id -> when it finished, for every session not looked at since."""
        return self._unseen

    def observe(self, row: SessionRow, *, on_screen: bool) -> SessionRow:
        """Note ``row``'s status; the row as the list should draw it (its unseen bit set).

        A row first seen is never unseen: the sessions found at start-up finished before
        anyone could look.
        """
        sid = row.session_id
        before = self._status.get(sid)
        self._status[sid] = row.status
        if row.status in BUSY:
            self._unseen.pop(sid, None)
        elif before in BUSY and row.status in DONE and not on_screen:
            self._unseen.setdefault(sid, clock.now())
        unseen = sid in self._unseen
        return row if row.unseen == unseen else replace(row, unseen=unseen)

    def seen(self, session_id: str) -> bool:
        """The person looked at it; True when that cleared its bit."""
        return self._unseen.pop(session_id, None) is not None

    def forget(self, session_id: str) -> None:
        """The session left the list for good."""
        self._status.pop(session_id, None)
        self._unseen.pop(session_id, None)


def needing(rows: Iterable[SessionRow]) -> list[SessionRow]:
    """Rows that need the person, in the order to visit them: waiting for an answer (the
    longest waiting first), then done and not seen (the earliest finished first)."""
    waiting: list[tuple[float, str, SessionRow]] = []
    unseen: list[tuple[float, str, SessionRow]] = []
    for row in rows:
        if row.status == "waiting_for_input" or row.waiting_since is not None:
            at = row.waiting_since or row.last_activity
            waiting.append((at.timestamp() if at else 0.0, row.session_id, row))
        elif row.unseen:
            at = row.last_activity
            unseen.append((at.timestamp() if at else 0.0, row.session_id, row))
    return [r for *_, r in sorted(waiting, key=_key)] + [r for *_, r in sorted(unseen, key=_key)]


def _key(item: tuple[float, str, SessionRow]) -> tuple[float, str]:
    return item[0], item[1]


def next_needing(
    rows: Iterable[SessionRow], current: str | None, *, group: str | None = None
) -> str | None:
    """The session to go to from ``current``: the first that needs the person (within
    ``group`` when given), or, when ``current`` is one of them, the one after it (so the key
    pressed again goes round them all). None when nothing needs the person."""
    order = [r.session_id for r in needing(rows) if group is None or r.group == group]
    if not order:
        return None
    if current in order:
        return order[(order.index(current) + 1) % len(order)]
    return order[0]
