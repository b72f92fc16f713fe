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
    QUEUED = "queued"
    """Created, not started: it waits for a free slot, for the sessions it runs ``after``,
    or for the usage limit to reset (``core.dispatch``). No process."""
    PAUSED = "paused_usage_limit"
    """Its turn was refused at the plan's usage limit; it is continued at the reset
    (``core.dispatch.usage``). Holds no slot."""
    CANCELLED = "cancelled"
    """A queued session that will not start: cancelled, or a session it waited for did not
    end well (``error`` says which and why). A message starts it afresh."""


S = SessionStatus

TRANSITIONS: dict[SessionStatus, frozenset[SessionStatus]] = {
    S.STARTING: frozenset({S.RUNNING, S.IDLE, S.ERROR, S.COMPLETED, S.INTERRUPTED}),
    S.RUNNING: frozenset(
        {S.WAITING_FOR_INPUT, S.IDLE, S.COMPLETED, S.INTERRUPTED, S.ERROR, S.PAUSED}
    ),
    S.WAITING_FOR_INPUT: frozenset({S.RUNNING, S.IDLE, S.INTERRUPTED, S.ERROR, S.COMPLETED}),
    S.IDLE: frozenset({S.RUNNING, S.COMPLETED, S.INTERRUPTED, S.ERROR, S.PAUSED}),
    # Terminal states go back to work when a message resumes the session.
    S.COMPLETED: frozenset({S.STARTING, S.RUNNING, S.PAUSED}),
    S.INTERRUPTED: frozenset({S.STARTING, S.RUNNING, S.COMPLETED, S.ERROR, S.IDLE}),
    S.ERROR: frozenset({S.STARTING, S.RUNNING, S.PAUSED}),
    S.QUEUED: frozenset({S.STARTING, S.CANCELLED}),
    # A paused session is continued (running) or ended meanwhile.
    S.PAUSED: frozenset({S.RUNNING, S.STARTING, S.COMPLETED, S.INTERRUPTED, S.ERROR, S.IDLE}),
    S.CANCELLED: frozenset({S.STARTING, S.QUEUED}),
}

LIVE = frozenset({S.STARTING, S.RUNNING, S.WAITING_FOR_INPUT, S.IDLE})
"""States in which a process is (or is about to be) alive."""

BUSY = frozenset({S.STARTING, S.RUNNING, S.WAITING_FOR_INPUT})
"""States with a turn in flight: ending the process now loses work (an idle session's next
message resumes it with nothing lost). Leaving cctui asks what to do with these."""

WORKING = frozenset({S.STARTING, S.RUNNING})
"""States that hold a dispatch slot: a session waiting on a human, idle or paused does not
(a slot held by a blocked session starves the queue: anthropics/claude-code#91387)."""


def can_transition(old: SessionStatus, new: SessionStatus) -> bool:
    """True when ``old -> new`` is allowed (staying put always is)."""
    return old == new or new in TRANSITIONS[old]
