"""Leaving while sessions work: keep them running in the background, end them, or stay.

Shown by ``q`` when a session has a turn in flight, or the dispatcher has work waiting (a
queued session, a usage-limit pause, a schedule's next run: none of it happens while no
cctui runs), and the config's ``on_quit`` is ``ask`` (the default). ``b`` keeps every
session running in this process, headless, after the window closes (``cctui`` shows them
again, ``cctui stop`` ends them); ``e`` ends them as quitting always did; ``esc`` stays.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal

Leaving = Literal["background", "end"]
"""What happens to the sessions when the window goes."""


class QuitScreen(Modal[Leaving]):
    """Asks once what to do with working sessions; dismisses with the choice, None to stay."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("QuitScreen")

    def __init__(self, working: list[str], waiting: list[str] | None = None) -> None:
        super().__init__()
        self.working = working
        """``project · title`` of each session with a turn in flight."""
        self.waiting = waiting or []
        """The dispatcher's work that needs a running cctui (``Dispatcher.waiting_work``)."""

    def compose(self) -> ComposeResult:
        n = len(self.working)
        if n:
            title = f"{n} session{'s are' if n != 1 else ' is'} still working"
        else:
            title = "Work is waiting to start"
        with Vertical(id="dialog"):
            yield Static(Content.assemble(("◆ ", "$text-warning"), (title, "bold")), id="title")
            lines = [*self.working, *self.waiting]
            shown = lines[:5]
            more = [f"… and {len(lines) - len(shown)} more"] if len(lines) > len(shown) else []
            yield Static(Content("\n".join(f"• {w}" for w in [*shown, *more])), id="sessions")
            yield Static(
                Content.styled(
                    "In the background they keep running after this window closes, with the "
                    "MCP server: `cctui` shows them again, `cctui stop` ends them.",
                    "$text-muted",
                ),
                id="body",
            )
            yield Static(
                key_line([("b", "keep in background"), ("e", "end them"), ("esc", "stay")]),
                id="keys",
            )

    def action_background(self) -> None:
        self.dismiss("background")

    def action_end(self) -> None:
        self.dismiss("end")

    def action_stay(self) -> None:
        self.dismiss(None)
