"""What a session's helpers share: its status, counters and event buffer, and how to publish.

``Session`` composes the helpers (``process.py``, ``translate.py``, its desk)
around one ``SessionState``; they change it and publish through it, never through the
session itself, so none of them needs the session (or the manager) to work.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Literal

from cctui.core.session.buffer import EventBuffer
from cctui.core.session.events import SessionEvent, SettingChangedEvent, StatusChanged
from cctui.core.session.prompts import PromptLog
from cctui.core.session.states import SessionStatus, can_transition
from cctui.core.session.turns import TurnLedger

log = logging.getLogger(__name__)

S = SessionStatus


class SessionState:
    """One session's changing state, and the two ways it leaves the session."""

    def __init__(
        self,
        session_id: str,
        *,
        status: SessionStatus,
        turns: TurnLedger,
        buffer: EventBuffer[SessionEvent],
        permission_mode: str,
        prompts: PromptLog,
        model: str | None = None,
        last_activity: datetime,
        fan_out: Callable[[SessionEvent], None],
        save: Callable[[], None],
    ) -> None:
        """``fan_out`` hands a stored event to every subscriber; ``save`` persists the
        session's record (soon)."""
        self.id = session_id
        self.status = status
        self.error: str | None = None
        self.turns = turns
        """Outstanding turns, agentic turns and cost: the one place that counts them."""
        self.buffer = buffer
        self.permission_mode = permission_mode
        """The CLI's current mode: a plan-mode session leaves ``plan`` once its plan is
        approved; ``change_mode`` changes it."""
        self.model = model
        """The model in use: the CLI's own name for it once a turn started (``Init``), else
        the one asked for (None: the CLI's default)."""
        self.prompts = prompts
        """The prompts sent, numbered from 0, with the ids their file checkpoints carry."""
        self.last_result: str | None = None
        self.last_activity = last_activity
        self.interrupting = False
        """An interrupt was sent: the turn's error result is expected, not a failure."""
        self._fan_out = fan_out
        self._save = save
        self._mode_waiters: list[tuple[str, asyncio.Future[None]]] = []

    def publish(self, event: SessionEvent, merge_key: str | None = None) -> SessionEvent:
        """Store ``event`` in the buffer and fan it out."""
        stored = self.buffer.append(event, merge_key=merge_key)
        self.last_activity = stored.at
        self._fan_out(stored)
        return stored

    def save(self) -> None:
        """Persist the session's record (soon)."""
        self._save()

    def expect_mode(self, mode: str) -> asyncio.Future[None]:
        """A future that completes when the CLI next reports ``mode`` (``change_mode``)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._mode_waiters.append((mode, future))
        return future

    def change_mode(self, mode: str, *, applies: Literal["now", "next_start"] = "now") -> None:
        """The permission mode is now ``mode`` (the CLI said so, or it is kept for the next
        start): an event and a registry save when it differs."""
        waiting, self._mode_waiters = self._mode_waiters, []
        for wanted, future in waiting:
            if future.done():
                continue
            if wanted == mode:
                future.set_result(None)
            else:
                self._mode_waiters.append((wanted, future))
        previous = self.permission_mode
        if mode == previous:
            return
        self.permission_mode = mode
        self.publish(
            SettingChangedEvent(
                session_id=self.id,
                setting="permission_mode",
                value=mode,
                previous=previous,
                applies=applies,
            )
        )
        self._save()

    def set_status(
        self,
        new: SessionStatus,
        error: str | None = None,
        *,
        force: bool = False,
        ended: bool = False,
    ) -> None:
        """Move to ``new`` (no event when nothing changes, unless ``force``); ``ended``:
        the process ended with this change."""
        old = self.status
        if old == new and error is None and not force:
            return
        if not can_transition(old, new):
            log.warning("session %s: unexpected transition %s -> %s", self.id, old, new)
        self.status = new
        if new in (S.ERROR, S.CANCELLED):
            self.error = error
        elif new in (S.RUNNING, S.STARTING):
            self.error = None
        self.publish(
            StatusChanged(
                session_id=self.id,
                status=new,
                previous=None if old == new else old,
                error=error,
                ended=ended,
            )
        )
        if new not in (S.RUNNING, S.WAITING_FOR_INPUT):
            self._save()
