"""Leaving while sessions work: keep them running in the background, end them, or stay.

Shown by ``q`` when a session has a turn in flight and the config's ``on_quit`` is ``ask``
(the default). ``b`` keeps every session running in this process, headless, after the window
closes (``cctui`` shows them again, ``cctui stop`` ends them); ``e`` ends them as quitting
always did; ``esc`` stays.
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

    def __init__(self, working: list[str]) -> None:
        super().__init__()
        self.working = working
        """``project · title`` of each session with a turn in flight."""

    def compose(self) -> ComposeResult:
        n = len(self.working)
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(
                    ("◆ ", "$text-warning"),
                    (f"{n} session{'s are' if n != 1 else ' is'} still working", "bold"),
                ),
                id="title",
            )
            shown = self.working[:5]
            more = [f"… and {n - len(shown)} more"] if n > len(shown) else []
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
