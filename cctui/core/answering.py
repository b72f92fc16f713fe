"""The manager's pending-input verbs: who is asked first, answering, and the human.

``SessionManager`` inherits these; they live apart from the session verbs because they are
a job of their own (routing an input to an MCP client or the human, checking an answer
against its input, handing a question the client could not decide to the TUI).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from cctui.core import inputs
from cctui.core.events import InputRequestedEvent
from cctui.core.pending import Decision, PendingInput, PendingInputs, Resolution
from cctui.errors import InputNotFound, ValidationFailed

if TYPE_CHECKING:
    from cctui.core.table import SessionTable

log = logging.getLogger(__name__)

InputRouter = Callable[[PendingInput], str | None]
"""Consulted when an input opens, before it is published: return a client label to ask
that MCP client first (route ``client``), or None to leave it to the human (route ``human``)."""


class InputVerbs:
    """Routing and answering pending inputs; mixed into ``SessionManager``."""

    pending_inputs: PendingInputs
    _sessions: SessionTable
    _router: InputRouter | None
    _humans: int

    def route(self, item: PendingInput) -> PendingInput:
        """Ask the installed router who should answer ``item`` first."""
        if self._router is None:
            return item
        try:
            label = self._router(item)
        except Exception:
            log.exception("input router failed; routing to the human")
            label = None
        if label is None:
            return item
        return item.model_copy(update={"route": "client", "route_label": label})

    def set_input_router(self, router: InputRouter | None) -> None:
        """Install the MCP server's router (see ``InputRouter``)."""
        self._router = router

    def pending(self, session_id: str | None = None) -> list[PendingInput]:
        """Open inputs, oldest first."""
        return self.pending_inputs.list(session_id)

    def respond(
        self,
        input_id: str,
        decision: Decision,
        decided_by: str,
        *,
        session_id: str | None = None,
    ) -> Resolution:
        """Answer a pending input; first answer wins. Audited.

        With ``session_id``, the input must belong to that session (a caller naming both
        must not answer another session's question by a mixed-up id).

        Raises:
            SessionNotFound, InputNotFound, InputAlreadyAnswered, ValidationFailed.
        """
        if session_id is not None:
            self._sessions.find(session_id)
        try:
            item = self.pending_inputs.get(input_id)
        except InputNotFound:
            return self.pending_inputs.resolve(input_id, decision, decided_by)  # raises
        if session_id is not None and item.session_id != session_id:
            raise ValidationFailed(
                f"Input {input_id} belongs to another session, not {session_id}.",
                suggestion="Use the sessionId listed with the input in claude_get_status.",
            )
        decision = inputs.check_answers(item, decision)
        session = self._sessions.get(item.session_id)
        if session is None:
            return self.pending_inputs.resolve(input_id, decision, decided_by)
        return session.desk.resolve(input_id, decision, decided_by)

    def route_to_human(self, input_id: str) -> PendingInput:
        """A client could not decide (declined/cancelled elicitation): hand it to the human.

        Publishes the input again (``InputRequestedEvent`` with route ``human``).
        """
        item = self.pending_inputs.get(input_id)
        if item.route == "human":
            return item
        item = item.model_copy(update={"route": "human", "route_label": None})
        self.pending_inputs.update(item)
        session = self._sessions.get(item.session_id)
        if session is not None:
            session.publish(InputRequestedEvent(session_id=item.session_id, input=item))
        return item

    def attach_human(self) -> Callable[[], None]:
        """A front end with a human at it (the TUI) shows inputs; returns the detach function.

        Without one, nobody could answer a confirmation, so callers fail fast instead.
        """
        self._humans += 1
        detached = False

        def detach() -> None:
            nonlocal detached
            if not detached:
                detached = True
                self._humans -= 1

        return detach

    @property
    def human_attached(self) -> bool:
        """Some front end shows pending inputs to a human."""
        return self._humans > 0
