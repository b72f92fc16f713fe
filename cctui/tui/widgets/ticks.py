"""Ticks and choices that show their state as a glyph, not only as a colour (issue 39).

Textual's checkbox, radio button and checklist draw the same mark, ticked or not, and tell
the two apart by colour alone; these draw ``✓`` or ``●`` when on and nothing when off.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList

TICK = "✓"
"""A ticked option's mark (Textual's own box differs by colour only)."""
CHOSEN = "●"
"""The chosen radio option's mark; the others are empty."""


class TickList(SelectionList[str]):
    """A checklist whose ticked boxes show a tick, not only another colour."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        index = self.scroll_offset.y + y
        if len(segments) < 2 or index >= self.option_count:
            return strip
        ticked = self.get_option_at_index(index).value in self.selected
        inner = segments[1]
        segments[1] = Segment(TICK if ticked else " ", inner.style, inner.control)
        return Strip(segments, strip.cell_length)


class ChoiceButton(RadioButton):
    """A radio option whose chosen state shows a dot; the others show none."""

    BUTTON_INNER = " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = CHOSEN if self.value else " "
        super().watch_value()

    def on_mount(self) -> None:
        self.BUTTON_INNER = CHOSEN if self.value else " "


class TickBox(Checkbox):
    """A checkbox whose tick shows ``✓`` when on."""

    BUTTON_INNER = " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = TICK if self.value else " "
        super().watch_value()

    def on_mount(self) -> None:
        self.BUTTON_INNER = TICK if self.value else " "
