"""The keys, on one page."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

SECTIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Sessions",
        (
            ("n", "new session"),
            ("enter", "open the highlighted session (then type a message)"),
            ("i", "interrupt the current turn"),
            ("k", "kill the session's process (it stays resumable)"),
            ("/", "filter: words, project:NAME, status:live|waiting|idle|past…"),
            ("p", "registered projects (enter filters the list to one)"),
            ("tab", "move between list, output and message line"),
            ("esc", "leave the message line / clear the filter"),
        ),
    ),
    (
        "Output",
        (
            ("enter", "on a tool call: show or hide its input and result"),
            ("▲", "an '… earlier' line: press it (or scroll to the top) for more"),
        ),
    ),
    (
        "Approvals",
        (
            ("a", "inbox of everything waiting, across sessions (a or esc closes it)"),
            ("y", "allow · approve a plan · send answers"),
            ("n", "deny, with an optional reason"),
            ("A", "allow for the rest of the session (the modal says exactly what)"),
            ("esc", "later (it stays in the inbox)"),
            ("enter", "in the inbox: open the request"),
            ("", "y and n wait a moment after a request appears, so you read it first"),
        ),
    ),
    (
        "New session form",
        (
            ("ctrl+s", "start (enter in the prompt starts too)"),
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


class HelpScreen(ModalScreen[None]):
    """Every key, grouped."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        lines: list[Content] = [Content.styled("cctui keys", "bold")]
        for title, keys in SECTIONS:
            lines.append(Content(""))
            lines.append(Content.styled(title, "bold $text-primary"))
            for key, what in keys:
                lines.append(Content.assemble((f"  {key:>7}", "bold $text-accent"), f"   {what}"))
        lines += [Content(""), Content.styled("esc to close", "$text-muted")]
        with Vertical(id="dialog"):
            yield Static(Content("\n").join(lines), id="keys")

    def action_close(self) -> None:
        self.dismiss(None)
