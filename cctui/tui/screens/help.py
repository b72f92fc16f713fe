"""The keys, on one page."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

SECTIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Sessions",
        (
            ("n", "new session"),
            ("enter", "open the session, then type a message"),
            ("i", "interrupt the current turn"),
            ("k", "kill its process (it stays resumable)"),
            ("/", "filter: words, project:, status:live|waiting…"),
            ("p", "projects (enter filters the list to one)"),
            ("tab", "list → output → message line"),
            ("esc", "leave the message line / clear the filter"),
        ),
    ),
    (
        "Output",
        (
            ("enter", "on a tool call: show its input and result"),
            ("▲", "an 'earlier' line: press it or scroll up"),
        ),
    ),
    (
        "Approvals",
        (
            ("a", "inbox: everything waiting, every session"),
            ("y", "allow · approve a plan · send answers"),
            ("n", "deny, with an optional reason"),
            ("A", "allow for the session (the modal says what)"),
            ("esc", "later (it stays in the inbox)"),
            ("enter", "in the inbox: open the request"),
            ("", "y/n wait a moment after a request shows"),
        ),
    ),
    (
        "New session form",
        (
            ("ctrl+s", "start (enter in the prompt too)"),
            ("esc", "cancel"),
        ),
    ),
    (
        "Metrics page",
        (("esc", "close (m and q too); it refreshes every 2 s while open"),),
    ),
    (
        "App",
        (
            ("ctrl+p", "command palette"),
            ("m", "metrics: sessions, MCP tool calls, latency"),
            ("?", "this help"),
            ("q", "quit (ends every session cctui started)"),
        ),
    ),
)
"""Every key; tests check each binding of the app and its screens is listed here."""

_LEFT = frozenset({"Sessions", "Output", "App"})
"""Sections in the left column (two columns fit a 36-row terminal)."""


class HelpScreen(ModalScreen[None]):
    """Every key, grouped."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        columns: list[list[Content]] = [[], []]
        for title, keys in SECTIONS:
            column = columns[0 if title in _LEFT else 1]
            if column:
                column.append(Content(""))
            column.append(Content.styled(title, "bold $text-primary"))
            for key, what in keys:
                column.append(Content.assemble((f"  {key:>6}", "bold $text-accent"), f"  {what}"))
        with VerticalScroll(id="dialog"):
            yield Static(Content.styled("cctui keys", "bold"), id="title")
            with Horizontal(id="columns"):
                yield Static(Content("\n").join(columns[0]), id="keys")
                yield Static(Content("\n").join(columns[1]), id="keys-2")
            yield Static(Content.styled("esc to close", "$text-muted"), id="close")

    @property
    def text(self) -> str:
        """Everything the page says (for tests)."""
        return "\n".join(str(w.render()) for w in self.query(Static))

    def action_close(self) -> None:
        self.dismiss(None)
