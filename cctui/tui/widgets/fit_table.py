"""A table that never scrolls sideways: its elastic columns give way.

A page's table wider than its dialog (at 80 columns: the rules page's files, the inbox's
sessions and requests) got a horizontal scrollbar, whose thumb under the last row read as a
stray mark, and text cut at the table's edge without an ellipsis. Here the elastic columns
share the width the other columns leave, in proportion to their widest cells, and their
cells are cut with an ellipsis, as the session list cuts its titles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

__all__ = ["FitTable", "cut"]


def cut(text: str, style: str = "") -> Text:
    """A cell of an elastic column: one line, cut with an ellipsis where the column ends."""
    return Text(text, style=style, no_wrap=True, overflow="ellipsis", end="")


class FitTable(DataTable[Text]):
    """``DataTable`` whose ``elastic`` columns take the room the others leave (each at least
    ``least`` cells, at most its widest cell): call ``fit`` after rows change."""

    def __init__(self, elastic: Sequence[str], *, least: int = 8, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._elastic = tuple(elastic)
        self._least = least

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Size the elastic columns to the room left (after rows were added or changed)."""
        elastic = [key for key in self.columns if key.value in self._elastic]
        if not elastic or not self.size.width:
            return
        pad = 2 * self.cell_padding
        fixed = sum(pad + self._widest(key) for key in self.columns if key not in elastic)
        room = self.content_region.width - fixed - pad * len(elastic)
        if self.row_count + (1 if self.show_header else 0) > self.content_region.height:
            room -= self.styles.scrollbar_size_vertical  # the rows scroll: a scrollbar shows
        wanted = {key: self._widest(key) for key in elastic}
        total = sum(wanted.values())
        if total > room:  # each gives way in proportion to its width, the last the rest
            shares = {key: room * w // total for key, w in wanted.items()}
            shares[elastic[-1]] += room - sum(shares.values())
            wanted = {key: max(self._least, share) for key, share in shares.items()}
        changed = False
        for key, width in wanted.items():
            column = self.columns[key]
            if column.auto_width or column.width != width:
                column.auto_width = False
                column.width = width
                changed = True
        if changed:
            self._require_update_dimensions = True  # the table's width follows its columns
            self._clear_caches()  # the cells were rendered at the old widths
            self.refresh()

    def _widest(self, key: ColumnKey) -> int:
        """The widest cell of a column, its label included (the cells are one line each)."""
        cells = (cell_len(c.plain if isinstance(c, Text) else str(c)) for c in self.get_column(key))
        return max(cell_len(self.columns[key].label.plain), max(cells, default=0))
