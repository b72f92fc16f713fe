"""The confirmation modal: a question with a few choices (e.g. overwrite / append / cancel).

Shown for ``confirmation`` pending inputs (an MCP client wrote to an existing project file,
or registered a taken id, and could not be asked itself). Each choice has a key: its first
letter, or its number. ``esc`` is "later": it stays in the inbox, and the timeout cancels.
It quacks like ``ApprovalScreen`` (``pending``, ``withdrawn_by``, ``withdraw``,
``set_queued``), so the approval queue shows it the same way.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from cctui.core import Decision, PendingInput

CANCEL = "cancel"


def choice_keys(choices: tuple[str, ...]) -> dict[str, str]:
    """key -> choice: first letters where they are unique, digits always."""
    keys: dict[str, str] = {}
    for i, choice in enumerate(choices, start=1):
        keys[str(i)] = choice
        letter = choice[:1].lower()
        if letter and letter not in keys and letter not in ("q",):
            keys[letter] = choice
    return keys


class ConfirmScreen(ModalScreen[Decision | None]):
    """Asks the human to pick one choice of a confirmation input."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "later", "Later")]
    ARM_DELAY_S: ClassVar[float] = 0.4
    """Keys typed just before the modal appeared must not answer it."""

    def __init__(self, pending: PendingInput, *, context: str = "", queued: int = 0) -> None:
        super().__init__()
        self.pending = pending
        self.context = context
        self.queued = queued
        self.withdrawn_by: str | None = None
        self._keys = choice_keys(pending.choices)
        self._armed_at = 0.0

    def compose(self) -> ComposeResult:
        p = self.pending
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(("◆ ", "$text-warning"), (p.tool_name, "bold")), id="title"
            )
            subject = p.session_id.removeprefix("project:")
            yield Static(Content.styled(f"project {subject}", "$text-muted"), id="context")
            yield Static(Content(p.description or ""), id="message")
            yield Static(self._key_line(), id="keys")

    def _key_line(self) -> Content:
        parts: list[Content | str] = []
        for key, choice in self._keys.items():
            if key.isdigit():
                continue
            parts += [Content.styled(f" {key} ", "bold reverse $text-accent"), f" {choice}   "]
        parts += [Content.styled(" esc ", "bold reverse $text-accent"), " later   "]
        if self.queued:
            parts.append(Content.styled(f"+{self.queued} more waiting", "$text-warning"))
        return Content.assemble(*parts)

    def on_mount(self) -> None:
        self._armed_at = time.monotonic() + self.ARM_DELAY_S

    def on_key(self, event: events.Key) -> None:
        choice = self._keys.get(event.key)
        if choice is None:
            return
        event.stop()
        if time.monotonic() < self._armed_at:
            return
        behavior = "deny" if choice == CANCEL else "allow"
        self.dismiss(Decision(behavior=behavior, choice=choice))

    def set_queued(self, queued: int) -> None:
        """How many more wait behind this one."""
        self.queued = queued
        self.query_one("#keys", Static).update(self._key_line())

    def withdraw(self, decided_by: str) -> None:
        """Someone else answered first: close without a decision."""
        self.withdrawn_by = decided_by
        self.dismiss(None)

    def action_later(self) -> None:
        self.dismiss(None)
