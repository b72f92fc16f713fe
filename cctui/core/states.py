"""Session states and the transitions between them."""

from __future__ import annotations

from enum import StrEnum


class SessionStatus(StrEnum):
    """Where a session is in its life."""

    STARTING = "starting"
    """The process is being spawned."""
    RUNNING = "running"
    """A turn is in progress."""
    WAITING_FOR_INPUT = "waiting_for_input"
    """A permission, plan review or question waits for an answer."""
    IDLE = "idle"
    """The turn finished; the process is alive and takes the next message at once."""
    COMPLETED = "completed"
    """The process ended normally; a new message resumes it."""
    INTERRUPTED = "interrupted"
    """The last turn was interrupted (process alive) or the session was killed."""
    ERROR = "error"
    """The process or the turn failed; a new message resumes it."""


S = SessionStatus

TRANSITIONS: dict[SessionStatus, frozenset[SessionStatus]] = {
    S.STARTING: frozenset({S.RUNNING, S.IDLE, S.ERROR, S.COMPLETED, S.INTERRUPTED}),
    S.RUNNING: frozenset({S.WAITING_FOR_INPUT, S.IDLE, S.COMPLETED, S.INTERRUPTED, S.ERROR}),
    S.WAITING_FOR_INPUT: frozenset({S.RUNNING, S.IDLE, S.INTERRUPTED, S.ERROR, S.COMPLETED}),
    S.IDLE: frozenset({S.RUNNING, S.COMPLETED, S.INTERRUPTED, S.ERROR}),
    # Terminal states go back to work when a message resumes the session.
    S.COMPLETED: frozenset({S.STARTING, S.RUNNING}),
    S.INTERRUPTED: frozenset({S.STARTING, S.RUNNING, S.COMPLETED, S.ERROR, S.IDLE}),
    S.ERROR: frozenset({S.STARTING, S.RUNNING}),
}

LIVE = frozenset({S.STARTING, S.RUNNING, S.WAITING_FOR_INPUT, S.IDLE})
"""States in which a process is (or is about to be) alive."""

BUSY = frozenset({S.STARTING, S.RUNNING, S.WAITING_FOR_INPUT})
"""States with a turn in flight: ending the process now loses work (an idle session's next
message resumes it with nothing lost). Leaving cctui asks what to do with these."""


def can_transition(old: SessionStatus, new: SessionStatus) -> bool:
    """True when ``old -> new`` is allowed (staying put always is)."""
    return old == new or new in TRANSITIONS[old]
