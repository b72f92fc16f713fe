"""Watching sessions: the fan-out of every event to subscribers, and ``wait`` built on it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from cctui.core.decisions.pending import PendingInputs
from cctui.core.session.events import SessionEvent
from cctui.core.session.inputs import PendingInput
from cctui.core.session.models import SessionInfo
from cctui.core.session.states import SessionStatus

if TYPE_CHECKING:
    from cctui.core.session.session import Session

log = logging.getLogger(__name__)

Listener = Callable[[SessionEvent], None]
"""Called synchronously on the loop for every event of every session. Must not block."""

_Found = Literal["input_needed", "turn_ended", "session_ended"]

_NOT_YET = frozenset({SessionStatus.QUEUED, SessionStatus.PAUSED})
"""A session the dispatcher will start (queued) or continue (paused at the usage limit):
its work has not ended, so a wait goes on."""


class WaitOutcome(BaseModel):
    """Why ``wait`` returned."""

    model_config = ConfigDict(defer_build=True)

    reason: Literal["input_needed", "turn_ended", "timeout", "session_ended"]
    session: SessionInfo
    pending: list[PendingInput]


class Fanout:
    """The subscribers to every session's events."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def publish(self, event: SessionEvent) -> None:
        """Call every listener (a failing listener is logged, not fatal)."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("event listener %r failed", listener)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event; returns the unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe


async def wait_for(
    session: Session, fanout: Fanout, pending: PendingInputs, timeout_s: float
) -> WaitOutcome:
    """Return when ``session`` needs input (one of ``pending``), its turn ends, it ends, or
    the timeout passes."""

    def check() -> _Found | None:
        if pending.list(session.id):
            return "input_needed"
        if session.status in _NOT_YET:
            return None
        if not session.process.alive and session.status != SessionStatus.STARTING:
            return "session_ended"
        if session.process.alive and not session.turns.busy:
            return "turn_ended"
        return None

    reason = check()
    if reason is None:
        done: asyncio.Future[_Found] = asyncio.get_running_loop().create_future()

        def listener(event: SessionEvent) -> None:
            if event.session_id == session.id and not done.done():
                found = check()
                if found is not None:
                    done.set_result(found)

        unsubscribe = fanout.subscribe(listener)
        try:
            reason = await asyncio.wait_for(done, timeout_s)
        except TimeoutError:
            reason = check() or "timeout"  # type: ignore[assignment]
        finally:
            unsubscribe()
    return WaitOutcome(reason=reason, session=session.info(), pending=pending.list(session.id))
