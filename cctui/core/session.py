"""One session: its state, its event buffer, and the helpers that drive it.

``process.py`` owns the current claude process (its owner task), ``translate.py`` turns
that process's frames into events, and ``desk.py`` holds the pending inputs; all three
change the state kept here and publish through ``Session.publish``.

Status rules (see ``states.py``): ``starting`` while the process spawns; ``running``
while a turn is outstanding (every sent message yields its own result, so outstanding
turns are counted); ``waiting_for_input`` while a pending input is open; ``idle`` after
the last outstanding result; ``interrupted`` after an interrupt's result, or when the
process was killed; ``error`` when a turn fails (API error, text kept) or the process dies
on its own; ``completed`` when the process ended cleanly (including cctui's own shutdown
of an idle session).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cctui.core import session_log
from cctui.core.buffer import EventBuffer
from cctui.core.desk import InputDesk
from cctui.core.events import SessionEvent, StatusChanged
from cctui.core.models import SessionConfig, SessionInfo, SessionRecord
from cctui.core.process import Process
from cctui.core.states import SessionStatus, can_transition
from cctui.core.translate import FrameTranslator
from cctui.core.turns import TurnLedger

if TYPE_CHECKING:
    from cctui.core.host import SessionHost

log = logging.getLogger(__name__)

S = SessionStatus


class Session:
    """State and process of one session id."""

    def __init__(
        self,
        host: SessionHost,
        session_id: str,
        config: SessionConfig,
        *,
        record: SessionRecord | None = None,
    ) -> None:
        self.host = host
        self.id = session_id
        self.config = config
        now = datetime.now(UTC)
        self.created_at = record.created_at if record else now
        self.last_activity = record.last_activity if record else now
        self.title = (record.title if record else None) or config.title
        self.status = record.status if record else S.STARTING
        self.forked_from = record.forked_from if record else None
        self.turns = TurnLedger(record)
        """Outstanding turns, agentic turns and cost: the one place that counts them."""
        self.last_result: str | None = None
        self.permission_mode: str = config.permission_mode
        """The CLI's current mode: a plan-mode session leaves ``plan`` once its plan is approved."""
        self.error: str | None = None
        self.buffer: EventBuffer[SessionEvent] = EventBuffer(host.settings.event_buffer_size)
        self.desk = InputDesk(self)
        """This session's pending inputs: asks in, answers out."""
        self.process = Process(self)
        """The current claude process; a resume starts a new one here."""
        self.translator = FrameTranslator(self)
        """Frames of every process in, state changes and events out."""

    # ------------------------------------------------------------------ snapshots

    @property
    def active(self) -> bool:
        """A process is alive, or being spawned."""
        process = self.process
        return process.alive or (process.busy and self.status == S.STARTING)

    def info(self) -> SessionInfo:
        """A snapshot for front ends."""
        return SessionInfo(
            session_id=self.id,
            status=self.status,
            config=self.config,
            created_at=self.created_at,
            last_activity=self.last_activity,
            title=self.title,
            total_cost_usd=self.turns.total_cost,
            num_turns=self.turns.num_turns,
            permission_mode=self.permission_mode,
            last_result=self.last_result,
            error=self.error,
            pid=self.process.pid,
            last_seq=self.buffer.last_seq,
            pending_input_ids=tuple(i.id for i in self.host.pending_inputs.list(self.id)),
            is_active=self.active,
            exit_code=self.process.exit_code,
            tokens_used=self.turns.tokens_used,
        )

    def record(self) -> SessionRecord:
        """What the registry keeps."""
        return SessionRecord(
            session_id=self.id,
            config=self.config,
            created_at=self.created_at,
            last_activity=self.last_activity,
            title=self.title,
            status=self.status,
            total_cost_usd=self.turns.total_cost,
            num_turns=self.turns.num_turns,
            tokens_used=self.turns.tokens_used,
            forked_from=self.forked_from,
        )

    # ------------------------------------------------------------------ events

    def publish(self, event: SessionEvent, merge_key: str | None = None) -> SessionEvent:
        """Store ``event`` in the buffer and fan it out."""
        stored = self.buffer.append(event, merge_key=merge_key)
        self.last_activity = stored.at
        if self.config.log_file is not None:
            session_log.append(self.config.log_file, stored)
        self.host.publish(stored)
        return stored

    def set_status(
        self, new: SessionStatus, error: str | None = None, *, force: bool = False
    ) -> None:
        """Move to ``new`` (no event when nothing changes, unless ``force``)."""
        old = self.status
        if old == new and error is None and not force:
            return
        if not can_transition(old, new):
            log.warning("session %s: unexpected transition %s -> %s", self.id, old, new)
        self.status = new
        if new == S.ERROR:
            self.error = error
        elif new in (S.RUNNING, S.STARTING):
            self.error = None
        self.publish(
            StatusChanged(
                session_id=self.id, status=new, previous=None if old == new else old, error=error
            )
        )
        if new not in (S.RUNNING, S.WAITING_FOR_INPUT):
            self.host.save(self)
