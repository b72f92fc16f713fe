"""Which pending input gets a modal, and when: plain logic, no Textual.

Only inputs routed to the human pop a modal by themselves; every open input is in the inbox.
One modal at a time; the others queue. ``esc`` ("later") keeps an input in the inbox without
popping it again. The app asks this queue what to do and does it (push the modal, ring the
bell, tell the core the answer); tests drive the queue directly.
"""

from __future__ import annotations

from collections.abc import Mapping

from cctui.core import PendingInput

WHAT = {
    "permission": "permission request",
    "plan_review": "plan review",
    "user_question": "question",
    "confirmation": "confirmation",
}
"""How a notice names each kind of input."""


class ApprovalQueue:
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
        """Its modal closed; ``later``: unanswered, it stays in the inbox without popping."""
        if self.current == input_id:
            self.current = None
        if later:
            self._later.add(input_id)
