"""The keys, on one page: ``keymap.SECTIONS`` drawn in two columns."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cctui.tui.keymap import SECTIONS, bindings
from cctui.tui.modal import Modal


class HelpScreen(Modal[None]):
    """Every key, grouped."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("HelpScreen")

    def compose(self) -> ComposeResult:
        columns: list[list[Content]] = [[], []]
        width = max(len(line.shown) for section in SECTIONS for line in section.lines)
        for section in SECTIONS:
            column = columns[section.column]
            if column:
                column.append(Content(""))
            column.append(Content.styled(section.title, "bold $text-primary"))
            for line in section.lines:
                column.append(
                    Content.assemble(
                        (f"  {line.shown:>{width}}", "bold $text-accent"), f"  {line.help}"
                    )
                )
        # Two columns side by side need this many cells (the keys' margin, the dialog's
        # padding and border, a cell either side); narrower, they stack and the page scrolls.
        self._wide = sum(max(c.cell_length for c in column) for column in columns) + 4 + 6 + 2
        with VerticalScroll(id="dialog"):
            # Docked: it stays on the dialog's last line while the keys scroll under it.
            more = Content.styled("↓ more keys below (↓, pgdn, end)", "$text-warning")
            yield Static(more, id="more")
            yield Static(Content.styled("cctui keys", "bold"), id="title")
            with Horizontal(id="columns"):
                yield Static(Content("\n").join(columns[0]), id="keys")
                yield Static(Content("\n").join(columns[1]), id="keys-2")
            yield Static(Content.styled("esc to close", "$text-muted"), id="close")

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < self._wide, "-narrow")
        dialog = self.query_one("#dialog", VerticalScroll)
        self.watch(dialog, "scroll_y", self._show_more)
        self.watch(dialog, "max_scroll_y", self._show_more)
        self.call_after_refresh(self._show_more)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < self._wide, "-narrow")
        self.call_after_refresh(self._show_more)

    def _show_more(self) -> None:
        """Say that keys are further down while they are (at 80x24 the page scrolls, and
        nothing on screen told a newcomer so)."""
        dialog = self.query_one("#dialog", VerticalScroll)
        more = self.query_one("#more")
        below = dialog.scroll_y < dialog.max_scroll_y
        # Hidden, not removed: its line stays, so the page's height (and the end it scrolls
        # to) does not change with it; removing it at the end and showing it one line up
        # made the two flip, and "more below" stayed at the end.
        if more.visible != below:
            more.visible = below

    @property
    def text(self) -> str:
        """Everything the page says (for tests)."""
        return "\n".join(str(w.render()) for w in self.query(Static))

    def action_close(self) -> None:
        self.dismiss(None)
