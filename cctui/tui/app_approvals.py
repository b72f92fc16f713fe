"""The app's side of approvals: the queue (``approvals.ApprovalQueue``) decides, this acts.

Pushes the modal, rings the bell, sends the answer to the core, closes a modal someone else
answered. A base class of ``CctuiApp`` so the app module stays about wiring.
"""

from __future__ import annotations

import logging

from textual.app import App

from cctui.core import Decision, PendingInput, SessionManager
from cctui.errors import CctuiError, InputAlreadyAnswered
from cctui.tui.approvals import WHAT, ApprovalQueue
from cctui.tui.messages import InputResolved
from cctui.tui.screens.approval import ApprovalScreen
from cctui.tui.screens.confirm import ConfirmScreen

log = logging.getLogger(__name__)


class ApprovalEffects(App[None]):
    """Everything the approval queue asks the app to do."""

    manager: SessionManager
    approvals: ApprovalQueue
    _modal: ApprovalScreen | ConfirmScreen | None

    def describe_session(self, session_id: str) -> str:
        raise NotImplementedError

    def alert_waiting(self, pending: PendingInput) -> None:
        raise NotImplementedError

    def main_screen_on_top(self) -> bool:
        raise NotImplementedError

    def refresh_inbox(self) -> None:
        raise NotImplementedError

    def input_resolved(self, message: InputResolved) -> None:
        """An input was answered; close its modal if someone else got there first."""
        modal = self._modal
        if (
            self.approvals.resolved(message.input_id)
            and modal is not None
            and message.decided_by != "tui"
        ):
            what = WHAT.get(modal.pending.kind, "request")
            verb = {"allow": "allowed", "deny": "denied"}.get(message.decision, message.decision)
            self.notify(
                f"{modal.pending.tool_name} {what} was {verb} by {message.decided_by}.",
                title="Answered elsewhere",
            )
            modal.withdraw(message.decided_by)
        self._update_modal_counter()

    def input_requested(self, pending: PendingInput) -> None:
        if self.approvals.requested(pending):
            self.alert_waiting(pending)
        self.pump_approvals()
        self._update_modal_counter()

    def enqueue_existing(self) -> None:
        """Pick up inputs that opened before the app subscribed."""
        for pending in self.manager.pending():
            self.input_requested(pending)

    def pump_approvals(self) -> None:
        """Show the next queued modal if nothing else is in the way."""
        if self.main_screen_on_top():
            pending = self.approvals.next({p.id: p for p in self.manager.pending()})
            if pending is not None:
                self.open_approval(pending)

    def open_approval(self, pending: PendingInput) -> None:
        """Show ``pending``'s modal now (from the queue or the inbox)."""
        if not self.approvals.showing(pending.id):
            return
        modal = ConfirmScreen if pending.kind == "confirmation" else ApprovalScreen
        screen = modal(
            pending,
            context=self.describe_session(pending.session_id),
            queued=self.approvals.queued,
        )
        self._modal = screen

        def closed(decision: Decision | None) -> None:
            withdrawn = screen.withdrawn_by is not None
            self.approvals.closed(pending.id, later=decision is None and not withdrawn)
            if self._modal is screen:
                self._modal = None
            if decision is not None and not withdrawn:
                self.answer(pending.id, decision)
            # Let the screen stack settle before deciding whether the next modal may pop.
            self.call_later(self.pump_approvals)
            self.call_later(self.refresh_inbox)

        self.push_screen(screen, callback=closed)

    def answer(self, input_id: str, decision: Decision) -> None:
        """Send the human's decision to the core; a lost race becomes a notice, not a crash."""
        try:
            self.manager.respond(input_id, decision, decided_by="tui")
        except InputAlreadyAnswered as exc:
            self.notify(exc.message, title="Too late", severity="warning")
        except CctuiError as exc:
            self.notify(exc.message, title="Could not answer", severity="error")
        except Exception:  # the core failing must not take the UI down with it
            log.exception("respond(%s) failed", input_id)
            self.notify("Could not send the answer (see the log).", severity="error")

    def _update_modal_counter(self) -> None:
        if self._modal is not None and self._modal.is_mounted:
            self._modal.set_queued(self.approvals.queued)
