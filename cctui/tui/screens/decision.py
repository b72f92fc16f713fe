"""What every modal that answers a pending input shares: a typed result, the arm delay, the
queue counter in its key line, and closing when someone else answered first.

``PendingInputScreen`` (permissions, plans, questions) and ``ConfirmScreen`` (a choice among a
few) are the two kinds; the inbox (``tui/inbox.py``) shows either the same way.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual.binding import BindingType
from textual.content import Content
from textual.widgets import Static

from cctui.core import Decision, PendingInput
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal


class DecisionModal(Modal[Decision | None]):
    """Asks the human about one pending input; dismisses with a ``Decision``, or ``None`` for
    "later" (it stays in the inbox) and when withdrawn."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("DecisionModal")

    ARM_DELAY_S: ClassVar[float] = 0.4
    """Keys are ignored this long after the modal appears, so a 'y' typed into another
    field a moment earlier cannot approve a tool call nobody has read yet."""

    def __init__(
        self,
        pending: PendingInput,
        *,
        context: str = "",
        queued: int = 0,
        classes: str | None = None,
    ) -> None:
        super().__init__(classes=classes)
        self.pending = pending
        self.context = context
        """Which session (or project) asks, in words."""
        self.queued = queued
        """How many more modals wait behind this one."""
        self.withdrawn_by: str | None = None
        """Set when another channel answered first and this modal closed itself."""
        self._armed_at = 0.0

    def on_mount(self) -> None:
        self._armed_at = time.monotonic() + self.ARM_DELAY_S

    def armed(self) -> bool:
        """Keys may answer now (the arm delay has passed)."""
        return time.monotonic() >= self._armed_at

    def key_pairs(self) -> list[tuple[str, str]]:
        """(key, what it does) for the key line; each kind of modal says its own."""
        return [("esc", "later")]

    def key_line(self) -> Content:
        """The keys at the foot of the modal, then how many more wait."""
        return key_line(self.key_pairs(), queued=self.queued, held=True)

    def set_queued(self, queued: int) -> None:
        """How many more wait behind this one (shown in the key line)."""
        self.queued = queued
        self.query_one("#keys", Static).update(self.key_line())

    def withdraw(self, decided_by: str) -> None:
        """Someone else answered first: close without a decision."""
        self.withdrawn_by = decided_by
        self.dismiss(None)

    def action_later(self) -> None:
        self.dismiss(None)
