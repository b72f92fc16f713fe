"""The queue's order: highest priority first, first come first served within a priority."""

from __future__ import annotations

from cctui.core.dispatch.models import DispatchState, QueueEntry
from cctui.errors import SessionNotFound, ValidationFailed


def ordered(state: DispatchState) -> list[QueueEntry]:
    """The queue in the order it starts."""
    return sorted(state.queue, key=lambda e: (-e.priority, e.seq))


def find(state: DispatchState, session_id: str) -> QueueEntry:
    """The entry of a queued session. Raises SessionNotFound."""
    for entry in state.queue:
        if entry.session_id == session_id:
            return entry
    raise SessionNotFound(
        f"Session {session_id!r} is not queued.",
        suggestion="Only a session that has not started yet can be moved or cancelled.",
    )


def take(state: DispatchState, session_id: str) -> QueueEntry | None:
    """Remove a session's entry; the entry, or None when it had none."""
    for i, entry in enumerate(state.queue):
        if entry.session_id == session_id:
            return state.queue.pop(i)
    return None


def position(state: DispatchState, session_id: str) -> int | None:
    """1 for the session that starts next; None when it is not queued."""
    for i, entry in enumerate(ordered(state), start=1):
        if entry.session_id == session_id:
            return i
    return None


def move(state: DispatchState, session_id: str, to: int) -> int:
    """Put a queued session at position ``to`` (1 = next; past the end = last); it takes
    the priority of the session it now stands before (or after, when last), so the order
    holds. Returns its new position. Raises SessionNotFound, ValidationFailed."""
    if to < 1:
        raise ValidationFailed("position: 1 is the front of the queue.")
    entry = find(state, session_id)
    rest = [e for e in ordered(state) if e is not entry]
    index = min(to - 1, len(rest))
    neighbour = rest[index] if index < len(rest) else (rest[-1] if rest else None)
    rest.insert(index, entry)
    if neighbour is not None:
        entry.priority = neighbour.priority
    for seq, e in enumerate(rest, start=state.next_seq):
        e.seq = seq
    state.next_seq += len(rest)
    return index + 1


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st..."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"
