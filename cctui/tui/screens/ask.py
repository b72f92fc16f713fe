"""A yes/no question from the TUI itself (end this session's process? remove this project?).

Not a pending input: nothing outside the TUI waits for it. ``y`` says yes (never ``enter``),
``esc`` (or ``n``) says no.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal


class AskScreen(Modal[bool]):
    """Asks one question; dismisses with True (yes) or False (no)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("AskScreen")

    def __init__(self, title: str, body: str, *, yes: str = "yes", no: str = "cancel") -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(("◆ ", "$text-warning"), (self._title, "bold")), id="title"
            )
            yield Static(Content(self._body), id="body")
            yield Static(key_line([("y", self._yes), ("esc", self._no)]), id="keys")

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
