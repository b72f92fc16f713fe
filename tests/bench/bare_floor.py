"""The floor for a key in a real terminal: a bare Textual app with cctui's widgets.

    python -m tests.bench.bare_floor

The same stylesheets, a screen laid out like cctui's main one (a session table on the left,
a pane of output on the right, a footer showing cctui's keys) and ``n`` pushing cctui's own
new-session form. The footer matters: Textual rebuilds it, a widget per key, each time a
screen comes or goes, so a footer of one key made the floor cheaper than the same screen.
Nothing else runs: no core, no sessions, no timers. ``bench_tui_tmux`` runs it in tmux beside
cctui and times ``n`` -> the form on screen in both, so what cctui adds is measured against
what Textual itself needs for that screen on this machine, in the same minute.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Static

from cctui.tui.app import stylesheet_paths
from cctui.tui.keymap import bindings
from cctui.tui.screens.new_session import NewSessionScreen

FORM_NEEDLE = "What should Claude do?"
"""On screen once the form is drawn (its prompt's placeholder), in cctui and here."""


class BareFloor(App[None]):
    """cctui's look and form, none of its work."""

    CSS_PATH: ClassVar[list[str | PurePath]] = list(stylesheet_paths())
    BINDINGS: ClassVar[list[BindingType]] = bindings("CctuiApp")
    """cctui's own keys, so the footer is the same; only ``n`` does anything here."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="left"):
                table: DataTable[str] = DataTable(id="sessions", cursor_type="row")
                table.add_columns("", "project", "title", "age")
                for i in range(12):
                    table.add_row("●", "proj", f"session {i} " + "title " * 5, f"{i}m")
                yield table
            with Vertical(id="pane"):
                yield Static("\n".join(f"line {i} of output " * 3 for i in range(60)))
        yield Footer()

    def action_new_session(self) -> None:
        self.push_screen(NewSessionScreen(cwd=Path.cwd()))


if __name__ == "__main__":
    BareFloor().run()
