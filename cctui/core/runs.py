"""A run: one session supervised from its start to its end, for whoever started it.

A ``claude_query`` call, an ``invoke_claude_code`` task and a review each need the same
things of a session they start: its events from the first one on, a clock with a deadline,
a way to stop it that remembers why (interrupt, a grace for the turn to stop, then the
process ended), its outcome, an event that wakes whoever follows it, and the process ended
in every case. ``Run`` is that, over ``SessionManager``; what an outcome *means* (a task's
status, a review's answer, a reply to an MCP caller) is its owner's business.

Decisions are not the run's: a session waiting for input waits for whoever it was routed to
(the supervisor only looks again now and then), until the deadline stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import anyio

from cctui.core.dispatch import DispatchRequest
from cctui.core.manager import Listener, SessionManager
from cctui.core.session.events import AssistantTextEvent, ResultEvent, SessionEvent, StatusChanged
from cctui.core.session.models import SessionConfig, SessionInfo
from cctui.errors import SessionNotFound

log = logging.getLogger(__name__)

INTERRUPT_GRACE_S = 5.0
"""After the interrupt that stops a run, how long the turn gets to stop before the process
is ended."""
RECHECK_S = 1.0
"""A session waiting for a decision is looked at again at least this often (the decision
may have been answered without an event this run sees first)."""
SETTLE_S = 0.05
"""After the turn ended, how long the last events get to arrive before the process ends."""


def is_message(ev: SessionEvent) -> bool:
    """An event worth keeping in a run's log: not partial text, not status churn."""
    if isinstance(ev, AssistantTextEvent):
        return ev.complete
    return not isinstance(ev, StatusChanged)


@dataclass(frozen=True)
class Outcome:
    """How a run ended."""

    reason: Literal["turn_ended", "session_ended"]
    """The turn ended (the process may still be alive), or the process did."""
    stopped: str | None
    """Why ``stop`` was called (``timeout`` at the deadline, or the owner's reason), or
    None when the run ended by itself."""
    session: SessionInfo | None
    """The session as the run ended (None if it never started)."""
    result: ResultEvent | None
    """The last turn's result, if one arrived."""


_REFUSE_WHEN_FULL = DispatchRequest(queue_when_full=False)
"""How a blocking run is dispatched (see ``Run.start``)."""


class Run:
    """One session, its clock, its events so far and its end.

    Made on the event loop; the clock starts then (``max_s`` seconds to the deadline).
    """

    def __init__(self, manager: SessionManager, max_s: float) -> None:
        self.manager = manager
        self.max_s = max_s
        self.started = time.monotonic()
        self.deadline = asyncio.get_running_loop().time() + max_s
        """Loop time at which the run is stopped (``timeout``)."""
        self.grace_s = INTERRUPT_GRACE_S
        self.sid = ""
        """The session, once ``start`` assigned it."""
        self.log: list[SessionEvent] = []
        """The session's messages since the run subscribed (``is_message``)."""
        self.last_result: ResultEvent | None = None
        self.stopping: str | None = None
        """Why ``stop`` was called; set before stopping, so that whoever sees the turn end
        meanwhile knows it was stopped."""
        self.outcome: Outcome | None = None
        """Set once, when the run is over."""
        self._changed = asyncio.Event()
        self._listeners: list[Listener] = []
        self._unsubscribe: Callable[[], None] | None = None

    # -- following it -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """The run ended (``outcome`` is set)."""
        return self.outcome is not None

    @property
    def changed(self) -> asyncio.Event:
        """Set at the run's next event or change (a new one is made each time)."""
        return self._changed

    @property
    def elapsed_s(self) -> float:
        """Seconds since the run was made."""
        return time.monotonic() - self.started

    def wake(self) -> None:
        """Wake whoever waits on ``changed`` (an owner's state changed too)."""
        self._changed.set()
        self._changed = asyncio.Event()

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Be called with each of the run's session events (after the log has it)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _on_event(self, ev: SessionEvent) -> None:
        if ev.session_id != self.sid:
            return
        if isinstance(ev, ResultEvent):
            self.last_result = ev
        if is_message(ev):
            self.log.append(ev)
        for listener in list(self._listeners):
            try:
                listener(ev)
            except Exception:
                log.exception("run listener %r failed", listener)
        self.wake()

    # -- the start ----------------------------------------------------------------------

    async def start(
        self, prompt: str, config: SessionConfig, *, session_id: str | None = None
    ) -> SessionInfo:
        """Create the session and follow it, subscribed first so no event is missed.

        A create cancelled half-way is ended by the manager. Raises what
        ``SessionManager.create`` raises; the run is then over, with nothing to end. At the
        session limit a run is refused (``session_limit``), not queued: its caller blocks
        on it under a deadline, and says so at once rather than waiting in the queue.
        """
        self.sid = session_id or str(uuid.uuid4())
        self._unsubscribe = self.manager.subscribe(self._on_event)
        try:
            return await self.manager.create(
                prompt, config, session_id=self.sid, dispatch=_REFUSE_WHEN_FULL
            )
        except BaseException:
            self._unsubscribe()
            raise

    # -- the end ------------------------------------------------------------------------

    async def supervise(self, *, end: bool = True) -> Outcome:
        """Wait for the turn to end, or stop the run at the deadline; returns the outcome.

        With ``end`` the process is ended afterwards, even when this is cancelled (a run
        that was one turn would hold a MAX_SESSIONS slot otherwise); without, it stays for
        the session's next message. Cancelled (cctui shutting down), the run is over as
        ``cancelled`` and the cancellation goes on.
        """
        reason: Literal["turn_ended", "session_ended"] = "session_ended"
        try:
            reason = await self._turn_or_deadline()
            if end:
                await anyio.sleep(SETTLE_S)
        except asyncio.CancelledError:
            self.stopping = self.stopping or "cancelled"
            raise
        finally:
            if end:
                await self._end_process(kill=False)
            self._over(reason)
        assert self.outcome is not None
        return self.outcome

    async def _turn_or_deadline(self) -> Literal["turn_ended", "session_ended"]:
        loop = asyncio.get_running_loop()
        while True:
            changed = self._changed
            remaining = self.deadline - loop.time()
            if remaining <= 0:
                await self.stop("timeout")
                return "session_ended"
            outcome = await self.manager.wait(self.sid, remaining)
            if outcome.reason in ("turn_ended", "session_ended"):
                return "turn_ended" if outcome.reason == "turn_ended" else "session_ended"
            if outcome.reason == "input_needed":
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), min(RECHECK_S, remaining))

    async def stop(self, reason: str, *, grace_s: float | None = None) -> None:
        """Interrupt the turn, give it ``grace_s`` (``grace_s`` of the run) to stop, then
        end the process (killed: the session ends ``interrupted``); it stays resumable.

        ``reason`` is kept first (``stopping``): the turn ending here wakes the supervisor,
        which must not take a stopped run for one that finished.
        """
        if self.over:
            return
        if self.stopping is None:
            self.stopping = reason
        grace = self.grace_s if grace_s is None else grace_s
        with contextlib.suppress(Exception):
            await self.manager.interrupt(self.sid, wait_s=grace)
        # Then end the process, so nothing keeps working after the run was stopped.
        with contextlib.suppress(Exception):
            await self.manager.kill(self.sid)

    async def close(self, *, kill: bool = False) -> None:
        """End the process in every case, even for a cancelled caller (``kill``: at once,
        as ``interrupted``; else as a finished run ends), and stop following."""
        await self._end_process(kill=kill)
        self._over("session_ended")

    async def _end_process(self, *, kill: bool) -> None:
        with anyio.CancelScope(shield=True):
            try:
                if kill:
                    await self.manager.kill(self.sid)
                else:
                    await self.manager.end(self.sid)
            except SessionNotFound:
                pass  # it never started
            except Exception:
                log.exception("run of session %s: ending the process failed", self.sid)

    def _over(self, reason: Literal["turn_ended", "session_ended"]) -> None:
        """Stop following and record the outcome (once), then wake the followers."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self.outcome is None:
            try:
                info: SessionInfo | None = self.manager.get(self.sid)
            except SessionNotFound:
                info = None
            self.outcome = Outcome(reason, self.stopping, info, self.last_result)
        self.wake()
