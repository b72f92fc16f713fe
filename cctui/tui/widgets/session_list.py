"""The session list: every session, newest first, one row each, filterable."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.color import Color
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from cctui.tui import format as fmt
from cctui.tui.rows import SessionRow

_COLUMNS = (
    ("status", "status", 9),
    ("project", "project", 10),
    ("title", "title", 30),
    ("active", "active", 6),
    ("cost", "cost", 6),
)
# Every column has one cell of padding each side; one more column for the scrollbar.
_FIXED = sum(w for key, _, w in _COLUMNS if key != "title") + 2 * len(_COLUMNS) + 1


class SessionList(DataTable[Text]):
    """A DataTable keyed by session id; the highlighted row is the selected session."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, show_cursor=True)
        self._rows: list[SessionRow] = []
        self._query = ""
        self._shown: list[str] = []
        self._title_width = 30
        self.projects: dict[str, Path] = {}
        """Registered projects for ``project:`` words (lowercased id and name -> root)."""

    def on_mount(self) -> None:
        for key, label, width in _COLUMNS:
            self.add_column(label, key=key, width=width)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._rebuild())

    @property
    def selected_id(self) -> str | None:
        """The session under the cursor, if any."""
        if not self._shown or self.cursor_row >= len(self._shown):
            return None
        return self._shown[self.cursor_row]

    @property
    def shown(self) -> list[str]:
        """Session ids currently listed, top to bottom."""
        return list(self._shown)

    def row(self, session_id: str) -> SessionRow | None:
        """The row data for ``session_id``, filtered out or not."""
        return next((r for r in self._rows if r.session_id == session_id), None)

    def set_rows(self, rows: Sequence[SessionRow]) -> None:
        """Replace the data; the view keeps its cursor on the same session when it can."""
        self._rows = sorted(rows, key=_newest_first)
        self._sync()

    def set_query(self, query: str) -> None:
        """Filter rows (see ``SessionRow.matches``)."""
        self._query = query.strip()
        self._sync()

    def select(self, session_id: str) -> None:
        """Move the cursor to ``session_id`` if it is listed."""
        if session_id in self._shown:
            self.move_cursor(row=self._shown.index(session_id))

    def on_resize(self) -> None:
        width = max(12, self.size.width - _FIXED)
        if width != self._title_width:
            self._title_width = width
            self.columns["title"].width = width  # type: ignore[index]
            self._rebuild()

    def _visible(self) -> list[SessionRow]:
        if not self._query:
            return self._rows
        return [r for r in self._rows if r.matches(self._query, self.projects)]

    def _sync(self) -> None:
        visible = self._visible()
        keys = [r.session_id for r in visible]
        if keys != self._shown:
            self._rebuild(visible)
            return
        # Same rows in the same order: update cells in place, no flicker, cursor untouched.
        for r in visible:
            for column, value in zip(
                ("status", "project", "title", "active", "cost"), self._cells(r), strict=True
            ):
                try:
                    self.update_cell(r.session_id, column, value)
                except RowDoesNotExist:
                    self._rebuild(visible)
                    return

    def _rebuild(self, visible: list[SessionRow] | None = None) -> None:
        visible = self._visible() if visible is None else visible
        selected = self.selected_id
        self.clear()
        self._shown = [r.session_id for r in visible]
        for r in visible:
            self.add_row(*self._cells(r), key=r.session_id)
        if selected in self._shown:
            self.move_cursor(row=self._shown.index(selected), animate=False)

    def _cells(self, r: SessionRow) -> tuple[Text, Text, Text, Text, Text]:
        glyph, label, var = fmt.badge(r.status)
        status = Text(f"{glyph} {label}", style=self._colour(var))
        if r.status == "waiting_for_input":
            status.stylize("bold")
        muted = self._colour("foreground-muted")
        title = Text(
            fmt.one_line(r.title or "(no prompt yet)", self._title_width),
            style="" if r.title else muted,
        )
        return (
            status,
            Text(fmt.one_line(r.project, 10)),
            title,
            Text(fmt.age(r.last_activity), style=muted, justify="right"),
            Text(fmt.cost(r.cost_usd), justify="right"),
        )

    def _colour(self, variable: str) -> str:
        """A theme colour as a hex Rich understands (alpha blended over the background)."""
        variables = self.app.theme_variables
        try:
            colour = Color.parse(variables.get(variable, ""))
            background = Color.parse(variables.get("background", "#000000"))
        except Exception:
            return ""
        return (background + colour).hex


def _newest_first(r: SessionRow) -> float:
    return -(r.last_activity.timestamp() if r.last_activity else 0.0)
