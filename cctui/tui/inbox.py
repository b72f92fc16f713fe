"""Pending inputs in the TUI: which one gets a modal and when, and showing it.

Only inputs routed to the human pop a modal by themselves; every open input is in the inbox.
One modal at a time; the others queue. ``esc`` ("later") keeps that input, and every other one
queued behind it, in the inbox without popping them again: with a hundred sessions, forty
waiting are forty modals, and one ``esc`` is "not now" for all of them. Only a request that
comes after it pops (and the status bar says "N waiting for you · a" meanwhile).
``ModalQueue`` decides (plain logic, no Textual); ``Inbox``, composed into the app, acts on
it: pushes the modal, tells the core the answer, closes a modal someone else answered, keeps
the inbox in step.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from cctui.core import Decision, PendingInput
from cctui.core.api import CoreApi
from cctui.errors import CctuiError, InputAlreadyAnswered
from cctui.remote.models import NotDelivered
from cctui.tui.messages import InputResolved
from cctui.tui.remote import RemoteView

if TYPE_CHECKING:  # the screens are imported when first shown (~25 ms of a first frame)
    from cctui.tui.app import CctuiApp
    from cctui.tui.screens.decision import DecisionModal
    from cctui.tui.screens.inbox import InboxScreen

log = logging.getLogger(__name__)

WHAT = {
    "permission": "permission request",
    "plan_review": "plan review",
    "user_question": "question",
    "confirmation": "confirmation",
}
"""How a notice names each kind of input."""


class ModalQueue:
    """The order modals pop in, and which input is on screen."""

    def __init__(self) -> None:
        self._queue: list[str] = []
        self._alerted: set[str] = set()
        self._later: set[str] = set()
        self.current: str | None = None
        """The input whose modal is on screen."""

    @property
    def queued(self) -> int:
        """Modals waiting behind the current one."""
        return len(self._queue)

    def requested(self, pending: PendingInput) -> bool:
        """A new input (or one a client handed back); True when the human should be alerted
        (the first time it is theirs to answer)."""
        if pending.route != "human":
            return False
        first = pending.id not in self._alerted
        self._alerted.add(pending.id)
        if (
            pending.id != self.current
            and pending.id not in self._queue
            and pending.id not in self._later
        ):
            self._queue.append(pending.id)
        return first

    def resolved(self, input_id: str) -> bool:
        """Someone answered ``input_id``; True when its modal is the one on screen."""
        self._queue = [i for i in self._queue if i != input_id]
        self._later.discard(input_id)
        return self.current == input_id

    def next(self, open_inputs: Mapping[str, PendingInput]) -> PendingInput | None:
        """The input to show now (None while one is shown or none waits); answered ones are
        skipped."""
        if self.current is not None:
            return None
        while self._queue:
            pending = open_inputs.get(self._queue.pop(0))
            if pending is not None:
                return pending
        return None

    def showing(self, input_id: str) -> bool:
        """Its modal is about to open (from the queue or the inbox); False if one is open."""
        if self.current is not None:
            return False
        self.current = input_id
        self._queue = [i for i in self._queue if i != input_id]
        return True

    def closed(self, input_id: str, *, later: bool) -> None:
        """Its modal closed; ``later``: unanswered, it and every input queued behind it stay
        in the inbox without popping (a request that comes after pops)."""
        if self.current == input_id:
            self.current = None
        if later:
            self._later.add(input_id)
            self._later.update(self._queue)
            self._queue.clear()


class Inbox:
    """The app's side of pending inputs: asks the queue what to show, shows it, sends the answer.

    The app passes every ``InputRequested`` and ``InputResolved`` here; the modal pops only
    while nothing covers the main screen (``app.main_screen_on_top``).
    """

    def __init__(self, app: CctuiApp, manager: CoreApi, remote: RemoteView | None = None) -> None:
        self._app = app
        self._manager = manager
        self._remote = remote if remote is not None else RemoteView(None)
        """Hosts' inputs: in the same queue and inbox; answered on their host, by id."""
        self.queue = ModalQueue()
        self.modal: DecisionModal | None = None
        """The modal on screen, if any."""

    @property
    def queued(self) -> int:
        """Modals waiting behind the one on screen."""
        return self.queue.queued

    def requested(self, pending: PendingInput) -> None:
        """A new input (or one handed back): queue its modal (``Alerts`` notifies)."""
        from cctui.tui.screens.pending_input import PendingInputScreen

        modal = self.modal
        if (
            isinstance(modal, PendingInputScreen)
            and modal.pending.id == pending.id
            and pending.escalation
        ):
            modal.escalated(pending.escalation)  # handed to the human while on screen
        self.queue.requested(pending)
        self.pump()
        self._update_counter()
        self.refresh_inbox()

    def resolved(self, message: InputResolved) -> None:
        """An input was answered; close its modal if someone else got there first."""
        modal = self.modal
        if (
            self.queue.resolved(message.input_id)
            and modal is not None
            and message.decided_by != "tui"
        ):
            what = WHAT.get(modal.pending.kind, "request")
            verb = {"allow": "allowed", "deny": "denied"}.get(message.decision, message.decision)
            self._app.notify(
                f"{modal.pending.tool_name} {what} was {verb} by {message.decided_by}.",
                title="Answered elsewhere",
            )
            modal.withdraw(message.decided_by)
        self._update_counter()
        self.refresh_inbox()

    def pending(self, session_id: str | None = None) -> list[PendingInput]:
        """Every open input (``session_id``'s only): this machine's, then each host's (as
        last seen)."""
        remote = [p for p in self._remote.pending() if session_id in (None, p.session_id)]
        return [*self._manager.pending(session_id), *remote]

    def enqueue_existing(self) -> None:
        """Pick up inputs that opened before the app subscribed."""
        for pending in self._manager.pending():
            self.requested(pending)

    def pump(self) -> None:
        """Show the next queued modal if nothing else is in the way."""
        if self._app.main_screen_on_top():
            pending = self.queue.next({p.id: p for p in self.pending()})
            if pending is not None:
                self.open(pending)

    def open(self, pending: PendingInput) -> None:
        """Show ``pending``'s modal now (from the queue or the inbox)."""
        if not self.queue.showing(pending.id):
            return
        from cctui.tui.screens.confirm import ConfirmScreen
        from cctui.tui.screens.pending_input import PendingInputScreen

        modal = ConfirmScreen if pending.kind == "confirmation" else PendingInputScreen
        screen = modal(
            pending,
            context=self._app.describe_session(pending.session_id),
            queued=self.queue.queued,
        )
        self.modal = screen

        def closed(decision: Decision | None) -> None:
            withdrawn = screen.withdrawn_by is not None
            self.queue.closed(pending.id, later=decision is None and not withdrawn)
            if self.modal is screen:
                self.modal = None
            if decision is not None and not withdrawn:
                self.answer(pending.id, decision)
            # The next modal pops when the main screen is uncovered (CctuiApp pumps then).
            self._app.call_later(self.refresh_inbox)

        self._app.push_screen(screen, callback=closed)

    def answer(self, input_id: str, decision: Decision) -> None:
        """Send the human's decision to the core; a lost race becomes a notice, not a crash."""
        if self._remote.owns_input(input_id):
            self._app.run_worker(
                self._answer_remote(input_id, decision), group="answers", exit_on_error=False
            )
            return
        try:
            self._manager.respond(input_id, decision, decided_by="tui")
        except InputAlreadyAnswered as exc:
            self._app.notify(exc.message, title="Too late", severity="warning")
        except CctuiError as exc:
            self._app.notify(exc.message, title="Could not answer", severity="error")
        except Exception:  # the core failing must not take the UI down with it
            log.exception("respond(%s) failed", input_id)
            self._app.notify("Could not send the answer (see the log).", severity="error")

    async def _answer_remote(self, input_id: str, decision: Decision) -> None:
        """Send the decision to the input's host: delivered once, or said not to be."""
        try:
            await self._remote.respond(input_id, decision)
        except NotDelivered as exc:
            text = exc.message + (f"\n{exc.suggestion}" if exc.suggestion else "")
            self._app.notify(text, title="Not delivered", severity="error", timeout=20)
        except CctuiError as exc:
            already = exc.code in ("input_already_answered", "input_not_found")
            self._app.notify(
                exc.message,
                title="Too late" if already else "Could not answer",
                severity="warning" if already else "error",
            )
        except Exception:
            log.exception("respond(%s) on a host failed", input_id)
            self._app.notify("Could not send the answer (see the log).", severity="error")
        self.refresh_inbox()

    def from_inbox(self, message: InboxScreen.Answer) -> None:
        """The inbox answered in place (``y``/``n``) or asked for the full modal."""
        pending = {p.id: p for p in self.pending()}.get(message.input_id)
        if pending is None:
            self._app.notify("That request was already answered.", severity="warning")
            self.refresh_inbox()
        elif message.decision is None or pending.kind == "confirmation":
            self.open(pending)  # a confirmation's choice is made in its modal
        else:
            self.answer(pending.id, message.decision)
            self.refresh_inbox()

    def refresh_inbox(self) -> None:
        """Reload the inbox if it is open."""
        from cctui.tui.screens.inbox import InboxScreen

        for screen in self._app.screen_stack:
            if isinstance(screen, InboxScreen):
                screen.reload()

    def _update_counter(self) -> None:
        if self.modal is not None and self.modal.is_mounted:
            self.modal.set_queued(self.queue.queued)
