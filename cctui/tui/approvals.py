"""Routes pending inputs to modals: one at a time, queued, closed when answered elsewhere.

Only inputs routed to the human pop a modal by themselves; every open input is in the inbox.
A modal never pops over a form or help page the user is busy with: it waits for them to
return to the main screen. ``esc`` ("later") keeps it in the inbox without popping it again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from cctui.core import Decision, PendingInput
from cctui.errors import CctuiError, InputAlreadyAnswered
from cctui.tui.messages import InputResolved
from cctui.tui.screens.approval import ApprovalScreen
from cctui.tui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

log = logging.getLogger(__name__)

_WHAT = {
    "permission": "permission request",
    "plan_review": "plan review",
    "user_question": "question",
    "confirmation": "confirmation",
}


class Approvals:
    """The app's approval queue."""

    def __init__(self, app: CctuiApp) -> None:
        self._app = app
        self._queue: list[str] = []
        self._alerted: set[str] = set()
        self._later: set[str] = set()
        self.current: ApprovalScreen | ConfirmScreen | None = None

    @property
    def queued(self) -> int:
        """Modals waiting behind the current one."""
        return len(self._queue)

    def _open_inputs(self) -> dict[str, PendingInput]:
        return {p.id: p for p in self._app.manager.pending()}

    def requested(self, pending: PendingInput) -> None:
        """A new input (or one a client handed back to the human)."""
        if pending.route != "human":
            return
        if pending.id not in self._alerted:
            self._alerted.add(pending.id)
            self._app.alert_waiting(pending)
        showing = self.current is not None and self.current.pending.id == pending.id
        if not showing and pending.id not in self._queue and pending.id not in self._later:
            self._queue.append(pending.id)
        self.pump()
        self._update_counter()

    def resolved(self, message: InputResolved) -> None:
        """An input was answered; close its modal if someone else got there first."""
        self._queue = [i for i in self._queue if i != message.input_id]
        self._later.discard(message.input_id)
        current = self.current
        if (
            current is not None
            and current.pending.id == message.input_id
            and message.decided_by != "tui"
        ):
            what = _WHAT.get(current.pending.kind, "request")
            verb = {"allow": "allowed", "deny": "denied"}.get(message.decision, message.decision)
            self._app.notify(
                f"{current.pending.tool_name} {what} was {verb} by {message.decided_by}.",
                title="Answered elsewhere",
            )
            current.withdraw(message.decided_by)
        self._update_counter()

    def enqueue_existing(self) -> None:
        """Pick up inputs that opened before the app subscribed."""
        for pending in self._app.manager.pending():
            self.requested(pending)

    def pump(self) -> None:
        """Show the next queued modal if nothing else is in the way."""
        if self.current is not None or not self._app.main_screen_on_top():
            return
        open_inputs = self._open_inputs()
        while self._queue:
            pending = open_inputs.get(self._queue.pop(0))
            if pending is not None:
                self.open(pending)
                return

    def open(self, pending: PendingInput) -> None:
        """Show ``pending``'s modal now (from the queue or the inbox)."""
        if self.current is not None:
            return
        self._queue = [i for i in self._queue if i != pending.id]
        modal = ConfirmScreen if pending.kind == "confirmation" else ApprovalScreen
        screen = modal(
            pending, context=self._app.describe_session(pending.session_id), queued=len(self._queue)
        )
        self.current = screen

        def done(decision: Decision | None) -> None:
            self._closed(screen, decision)

        self._app.push_screen(screen, callback=done)

    def _closed(self, screen: ApprovalScreen | ConfirmScreen, decision: Decision | None) -> None:
        if self.current is screen:
            self.current = None
        if screen.withdrawn_by is None:
            if decision is None:
                self._later.add(screen.pending.id)
            else:
                self.answer(screen.pending.id, decision)
        # Let the screen stack settle before deciding whether the next modal may pop.
        self._app.call_later(self.pump)
        self._app.call_later(self._app.refresh_inbox)

    def answer(self, input_id: str, decision: Decision) -> None:
        """Send the human's decision to the core; a lost race becomes a notice, not a crash."""
        try:
            self._app.manager.respond(input_id, decision, decided_by="tui")
        except InputAlreadyAnswered as exc:
            self._app.notify(exc.message, title="Too late", severity="warning")
        except CctuiError as exc:
            self._app.notify(exc.message, title="Could not answer", severity="error")
        except Exception:  # the core failing must not take the UI down with it
            log.exception("respond(%s) failed", input_id)
            self._app.notify("Could not send the answer (see the log).", severity="error")

    def _update_counter(self) -> None:
        if self.current is not None and self.current.is_mounted:
            self.current.set_queued(len(self._queue))
