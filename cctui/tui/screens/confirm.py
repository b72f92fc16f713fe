"""The confirmation modal: a question with a few choices (e.g. overwrite / append / cancel).

Shown for ``confirmation`` pending inputs (an MCP client wrote to an existing project file,
or registered a taken id, and could not be asked itself). Each choice has a key: its first
letter, or its number. ``esc`` is "later": it stays in the inbox, and the timeout cancels.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from cctui.core import Decision, PendingInput
from cctui.tui.screens.decision import DecisionModal

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


class ConfirmScreen(DecisionModal):
    """Asks the human to pick one choice of a confirmation input."""

    def __init__(self, pending: PendingInput, *, context: str = "", queued: int = 0) -> None:
        super().__init__(pending, context=context, queued=queued)
        self._keys = choice_keys(pending.choices)

    def compose(self) -> ComposeResult:
        p = self.pending
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(("◆ ", "$text-warning"), (p.tool_name, "bold")), id="title"
            )
            kind, _, subject = p.session_id.rpartition(":")
            where = f"session {subject[:8]}" if kind == "auto" else f"project {subject}"
            yield Static(Content.styled(where, "$text-muted"), id="context")
            yield Static(Content(p.description or ""), id="message")
            yield Static(self.key_line(), id="keys")

    def key_pairs(self) -> list[tuple[str, str]]:
        choices = [(key, choice) for key, choice in self._keys.items() if not key.isdigit()]
        return [*choices, *super().key_pairs()]

    def on_key(self, event: events.Key) -> None:
        choice = self._keys.get(event.key)
        if choice is None:
            return
        event.stop()
        if not self.armed():
            return
        behavior = "deny" if choice == CANCEL else "allow"
        self.dismiss(Decision(behavior=behavior, choice=choice))
