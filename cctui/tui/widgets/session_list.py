"""The session list: every session, one row each, grouped by project, filterable.

Rows stay where they are: grouped by project (a worktree under its checkout), the newest
started first, and the group with the newest session on top. State is a column; activity and
a change of state never move a row (``_Ordering``).

Rows are diffed, never rebuilt: a batch of activity updates the cells that changed (its row
is repainted, and those cells are the only ones Rich draws again), a new session is one
``add_row``, and a new order is one in-place ``sort`` (the rows it moves keep their
drawing). The one-second tick redraws only the rows whose age text changes, and a rising
cost is redrawn every couple of seconds; a new width redraws only the titles it cuts
differently. Thousands of past sessions cost nothing while a few live ones stream.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar, Protocol, Self

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual._two_way_dict import TwoWayDict
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable
from textual.widgets.data_table import CellKey

from cctui.core.catalog import CatalogQuery
from cctui.tui import clock as wall
from cctui.tui import format as fmt
from cctui.tui import keymap
from cctui.tui.rows import RowPlace, SessionRow

_COLUMNS = (
    ("status", "status", 13),
    ("project", "project", 10),
    ("title", "title", 30),
    ("active", "active", 6),
    ("cost", "cost", 6),
)
_KEYS = tuple(key for key, _, _ in _COLUMNS)
_PROJECT_WIDTH = {key: w for key, _, w in _COLUMNS}["project"]
_COST = _KEYS.index("cost")
_TITLE = _KEYS.index("title")
_PROJECT = _KEYS.index("project")
_COST_EVERY_S = 2.0
FIRST_ROWS = 50
"""A first fill of a longer list draws a screenful of rows (the top of the list) at once,
at least this many (``first_screen``), and the rest in chunks after the first frame: every
row of 5,000 drawn before it cost 0.5 s of CPU (Textual's ``add_row`` re-clamps the cursor
and sets reactives per call), and 200 rows (for a 48-line terminal) ~60 ms."""
FILL_CHUNK = 500
"""Rows drawn per turn of the loop while a long list fills (~50 ms: keys are read between)."""
_FILL_PAUSE_S = 0.01
"""A running session's cost rises with every model call; when nothing else in its row
changed, a cost already shown is drawn again at most this often (the one-second tick draws
what was held back; the first cost is drawn at once). Each change re-orders Textual's whole
table on its next draw (a few ms with thousands of past sessions), once per model call of
every running session otherwise."""
# Every column has one cell of padding each side; one more column for the scrollbar.
_FIXED = sum(w for key, _, w in _COLUMNS if key != "title") + 2 * len(_COLUMNS) + 1
_DRAWN_CELLS = 4096
"""Drawn cells kept: a screen of the list is a few hundred, each also drawn unfocused (under a
dialog, say) and under the cursor."""


def first_screen(height: int) -> int:
    """How many rows a long first list draws before its first frame in a terminal ``height``
    lines tall: the list is never taller, so they fill its first screen."""
    return max(FIRST_ROWS, height)


Order = tuple[int, float, str, float, str]
"""This machine's sessions first, then each host's in turn; within each, groups by project
(the newest started first), and in a group the newest started first."""


class _StatusCell(Text):
    """The status cell, carrying its row's session id (what ``sort`` looks up)."""

    sid: str = ""


class _Placed(Protocol):
    """What places a row (a ``SessionRow``, or a ``RowPlace`` before its row is made)."""

    @property
    def session_id(self) -> str: ...
    @property
    def group(self) -> str: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def last_activity(self) -> datetime | None: ...
    @property
    def host_rank(self) -> int: ...


def first_of(places: Iterable[RowPlace | SessionRow], count: int) -> list[str]:
    """The ids of the first ``count`` rows of a list of these rows, in the list's order: the
    rows to make before the first frame (every group is placed by all of them)."""
    order = _Ordering()
    every = list(places)
    for place in every:
        order.note(place)
    return [place.session_id for place in heapq.nsmallest(count, every, key=order)]


class _Ordering:
    """Each row's place: its project's group, then the newest started first.

    Neither activity nor a change of state moves a row (state is a column): ten sessions
    streaming at once would otherwise swap rows under the cursor several times a second, and
    a person running many loses track of which is where. A group is placed by the newest
    session started in it, so it moves up only when a session starts there (someone's act),
    and never down when one leaves.
    """

    def __init__(self) -> None:
        self._group_at: dict[str, float] = {}
        self._started: dict[str, float] = {}
        """When each session started; one whose start is unknown: when it was first listed
        (its activity then), so it does not move either."""

    def _start(self, row: _Placed) -> float:
        started = self._started.get(row.session_id)
        if started is None or row.created_at is not None:
            when = row.created_at or row.last_activity
            started = self._started[row.session_id] = when.timestamp() if when else 0.0
        return started

    def note(self, row: _Placed) -> bool:
        """Take ``row`` into account; True when its group moved (every row must be placed
        again)."""
        started = self._start(row)
        if started > self._group_at.get(row.group, -math.inf):
            moved = row.group in self._group_at
            self._group_at[row.group] = started
            return moved
        return False

    def __call__(self, row: _Placed) -> Order:
        group = row.group
        started = self._start(row)
        at = self._group_at.get(group, started)
        return (row.host_rank, -at, group, -started, row.session_id)


class SessionList(DataTable[Text]):
    """A DataTable keyed by session id; the highlighted row is the selected session."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("SessionList")

    _one_row = False
    """Set while ``_set_cells`` changes cells: ``_repaint`` repaints their rows (a class
    default: DataTable's constructor refreshes before ours runs)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, show_cursor=True)
        self._rows: dict[str, SessionRow] = {}
        self._query: CatalogQuery | None = None
        self._host: str | None = None
        """``host:NAME`` in the filter: only that host's rows (``local``: this machine's)."""
        self._shown: list[str] = []
        self._pending: list[str] = []
        """A long first list's rows not drawn yet, in order (``set_rows``)."""
        self._more = 0
        """Rows still to come, counted in ``total`` (``set_rows``)."""
        self._filling = False
        """A long first list is being drawn, or its rows are still to come."""
        self._fill_timer: Timer | None = None
        self._drawn: dict[str, tuple[SessionRow | None, str]] = {}
        """Each listed row as last drawn (with its age text): unchanged rows are skipped."""
        self._plain: dict[str, tuple[str, ...]] = {}
        """Text and style of each listed row's cells (and its order), to update only those."""
        self._hidden: str | None = None
        """The row under the cursor when a filter hid it: the cursor goes back to it when a
        filter lists it again (``esc``), unless it was moved meanwhile. (With no row left to
        stand on, it went to the top row.)"""
        self._filtered_to: str | None = None
        """The row under the cursor as the last filter left it (a move since is the user's)."""
        self._title_width = 30
        self._project_width = _PROJECT_WIDTH
        self._order = _Ordering()
        self._heads: set[str] = set()
        """The first listed row of each project group (its project cell is bold)."""
        self._cost_at: dict[str, float] = {}
        """When each row's cost cell was last drawn (by ``clock``)."""
        self.clock = time.monotonic
        """Seconds, for holding back the cost cell (tests set their own)."""
        self._held: set[str] = set()
        """Rows whose cost was held back (the tick looks at them again)."""
        self._due: list[tuple[datetime, str]] = []
        """(when its age or wait text next changes, session id), soonest first: the tick
        redraws those rows only (a row seen last week changes its text once a day)."""
        self._due_at: dict[str, datetime | None] = {}
        """Each listed row's entry in ``_due`` (older entries there are stale; None: its
        text never changes)."""
        self._colours: dict[str, str] = {}
        """Theme colours as Rich hex, by variable (cleared when the theme changes)."""
        self._drawn_cells: LRUCache[tuple[object, ...], Any] = LRUCache(_DRAWN_CELLS)
        """Each drawn cell by what decides its look (see ``_render_cell``)."""
        self._sized: tuple[Size, Size, Size] | None = None
        """(size, the table's own virtual size, container size) at the last layout that
        changed any of them (``_size_updated``)."""

    def on_mount(self) -> None:
        for key, label, width in _COLUMNS:
            self.add_column(label, key=key, width=width)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_all())

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # Every layout of the screen calls this for every widget. Textual's ScrollView
        # compares the virtual size the layout gives (the table's region) with the table's
        # own (its rows), which differ whenever the list is longer than its view, and so
        # drew the list's scrollbar again, and the 44 lines of the list under it, after
        # every layout anywhere: twice per `j` at a hundred sessions (the pane's preview).
        # Only a change of the table's size, rows or container needs it.
        # tests/tui/test_list_scale.py fails if Textual's hook changes.
        sized = (size, self.virtual_size, container_size)
        if sized == self._sized:
            return False
        self._sized = sized
        # The columns take their widths here, in the layout, before its paint: fitted on the
        # Resize event that follows it, the first frame drew every visible row twice (the
        # titles cut at the default width, then again at the one the layout gave).
        self._fit_columns(size.width)
        return super()._size_updated(size, virtual_size, container_size, layout)

    def _on_resize(self, event: events.Resize) -> None:
        # DataTable counts a resize as an update of every cell (its lines are cached by that
        # count), so the list was drawn again after each layout that resized it, the first
        # frame's included. Its rows do not depend on the table's size, only on the
        # columns' widths, which ``_size_updated`` fits before the layout's paint (and
        # counts an update then, if they changed).
        # tests/tui/test_list_scale.py fails if Textual's hook changes.
        event.prevent_default()

    def _update_dimensions(self, new_rows: Iterable[Any]) -> None:
        # Textual measures every cell of every new row for its column's width once the
        # table is idle; each column here has a fixed width, which that measure never
        # changes: 2,000 past sessions at start-up spent 0.6 s of CPU in it. The table's
        # size (what else this computes) does not depend on the rows passed.
        # tests/tui/test_list_scale.py fails if Textual's hook changes.
        super()._update_dimensions(())

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> Any:
        # Textual keys its drawn cells by a count that every changed cell bumps: one new
        # cost drew every visible cell of the list again through Rich (64 ms for a 160x45
        # screen of it, several times a second while sessions stream). A cell looks as its
        # text and style (``_plain``), its place (the click target Textual puts in its style)
        # and the table's state say; keyed by those, only the changed cell is drawn again.
        # Each is kept twice: by its look and place, and by its look alone (the latest).
        # tests/tui/test_list_scale.py fails if Textual's hook changes.
        if row_index < 0:  # the header: labels that never change
            text = f"\x01{self.ordered_columns[column_index].label}"
        else:
            row_key = self._row_locations.get_key(row_index)
            plain = self._plain.get(row_key.value or "", ()) if row_key is not None else ()
            if not plain:  # a row not drawn through ``_sync``
                return super()._render_cell(
                    row_index, column_index, base_style, width, cursor, hover
                )
            text = plain[column_index]
        look = (
            text,
            column_index,
            base_style,
            width,
            cursor,
            hover and self._show_hover_cursor,  # hover is drawn once the mouse has moved
            self._pseudo_class_state,
        )
        lines = self._drawn_cells.get((row_index, look))
        if lines is None:
            # A row that moved (a session coming to the top shifts every row below it) is
            # drawn as it was, with its new place put in its click target: Rich draws a
            # cell in ~0.2 ms, the new place takes a few µs per segment.
            moved = self._drawn_cells.get(look)
            if moved is None:
                lines = super()._render_cell(
                    row_index, column_index, base_style, width, cursor, hover
                )
            else:
                place = Style.from_meta({"row": row_index, "column": column_index})
                lines = [list(Segment.apply_style(line, post_style=place)) for line in moved]
            self._drawn_cells[(row_index, look)] = self._drawn_cells[look] = lines
        return lines

    def _clear_caches(self) -> None:
        super()._clear_caches()
        self._drawn_cells.clear()

    def notify_style_update(self) -> None:
        self._drawn_cells.clear()
        super().notify_style_update()

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

    @property
    def total(self) -> int:
        """Every known session, filtered out or not (those still to come counted)."""
        return len(self._rows) + self._more

    @property
    def live_count(self) -> int:
        """Sessions a ``claude`` process has open right now, as far as this window knows:
        an offline host's rows are its last known state, not counted."""
        return sum(1 for r in self._rows.values() if r.live and r.offline_since is None)

    def all_rows(self) -> Iterable[SessionRow]:
        """Every known session's row, filtered out or not."""
        return self._rows.values()

    def row(self, session_id: str) -> SessionRow | None:
        """The row data for ``session_id``, filtered out or not."""
        return self._rows.get(session_id)

    class Filled(Message):
        """More rows of a long first list were drawn (``set_rows``); the count changed."""

    @property
    def filling(self) -> bool:
        """A long first list is still being drawn, a chunk at a time (or its rows are still
        to come)."""
        return self._filling

    def set_rows(self, rows: Sequence[SessionRow], *, more: int = 0) -> None:
        """Replace the data; only what changed is redrawn, the cursor stays on its session.

        The first fill of a list longer than twice a screenful (``first_screen``) draws its
        top screenful now and the others in ``FILL_CHUNK``s on the next turns of the loop (posting
        ``Filled`` after each). ``more``: rows still to come, counted in ``total``: the
        source makes the rows of the list's first screen before the first frame and the
        thousands below it after (``SessionSource.load_now``); when they come, they are
        drawn as the rest of a long first list."""
        self._rows = {r.session_id: r for r in rows}
        self._more = more
        first = first_screen(self.app.size.height)
        if not self._filling and (self._drawn or len(self._rows) + more <= 2 * first):
            self._sync()
            return
        for r in self._rows.values():
            self._order.note(r)  # every group placed before the top is picked
        ids = sorted(self._rows, key=lambda sid: self._order(self._rows[sid]))
        todo = [sid for sid in ids if sid not in self._drawn]
        if self._filling:  # the rest of a long first list: below the rows drawn, in order
            self._pending = todo
            self._sync(list(self._drawn))  # (those changed or gone meanwhile)
            self._fill_soon()
            return
        self._filling = True
        self._pending = todo[first:]
        self._sync(todo[:first])
        # The rest once these are on screen: a timer set now fired before the first frame
        # was drawn (its layout and paint take longer than the pause), and drew a chunk or
        # two of rows no one could see yet in front of it.
        self.call_after_refresh(self._fill_soon)

    def _fill_soon(self) -> None:
        if self._fill_timer is None and self._filling:
            self._fill_timer = self.set_timer(_FILL_PAUSE_S, self._fill)

    def _fill(self) -> None:
        """Draw the next chunk of a long first list."""
        self._fill_timer = None
        if self._pending:
            chunk, self._pending = self._pending[:FILL_CHUNK], self._pending[FILL_CHUNK:]
            self._sync(chunk)
            self.post_message(self.Filled())
        if self._pending:
            self._fill_soon()
        else:
            self._filling = bool(self._more)  # drawn, unless rows are still to come

    def update_rows(
        self, rows: Sequence[SessionRow], gone: Iterable[str] = (), *, now: bool = False
    ) -> None:
        """New data for some sessions, and sessions no longer known (the others are
        unchanged); ``now``: a rising cost is drawn too, not held back."""
        for r in rows:
            self._rows[r.session_id] = r
        removed = [sid for sid in gone if self._rows.pop(sid, None) is not None]
        self._sync([*(r.session_id for r in rows), *removed], now=now)

    def set_query(self, query: CatalogQuery | None, host: str | None = None) -> None:
        """Filter rows with the core's catalog filter (``None``: every row) and, with
        ``host``, to that host's rows (``local``: this machine's)."""
        selected = self.selected_id
        if selected != self._filtered_to:
            self._hidden = None  # the cursor was moved since the last filter: it stays
        self._query = query
        self._host = host
        self._sync()
        if self._hidden is None and selected is not None and selected not in self._drawn:
            self._hidden = selected
        elif self._hidden is not None and self._hidden in self._drawn:
            self.move_cursor(row=self._shown.index(self._hidden), animate=False)
            self._hidden = None
        self._filtered_to = self.selected_id

    def select(self, session_id: str) -> None:
        """Move the cursor to ``session_id`` if it is listed."""
        if session_id in self._shown:
            self.move_cursor(row=self._shown.index(session_id))

    def refresh_ages(self) -> None:
        """Redraw the rows whose age or wait text changed, and costs held back (called once
        a second)."""
        now, due = wall.now(), set(self._held)
        while self._due and self._due[0][0] <= now:
            at, sid = heapq.heappop(self._due)
            if self._due_at.get(sid) == at:
                del self._due_at[sid]
                due.add(sid)
        if due:
            self._sync(list(due))

    def _schedule(self, row: SessionRow) -> None:
        """Note when ``row``'s age or wait text will next read differently."""
        times = [
            fmt.age_changes_at(row.last_activity),
            fmt.waited_changes_at(row.waiting_since),
            fmt.age_changes_at(row.offline_since),
        ]
        at = min((t for t in times if t is not None), default=None)
        sid = row.session_id
        if at is not None and self._due_at.get(sid) != at:
            heapq.heappush(self._due, (at, sid))
        self._due_at[sid] = at

    def _fit_columns(self, width: int) -> None:
        """Give the project and title columns their widths for a table ``width`` wide, and
        put in again the cells a new width cuts differently."""
        if not self.columns:  # (not mounted yet)
            return
        # Narrower than every column at full width (80x24): the project column gives way
        # first, then the title; the cost, the last column, must never be cut ($0.111 read
        # "$0.1").
        spare = width - _FIXED
        project = _PROJECT_WIDTH if spare >= 12 else max(5, _PROJECT_WIDTH - (12 - spare))
        title = max(8, spare + _PROJECT_WIDTH - project)
        changed: set[str] = set()
        old_project, old_title = self._project_width, self._title_width
        if project != self._project_width:
            # Cut with an ellipsis, the header too: a column clipped by the table read
            # "projec" over "fronte" for "frontend".
            self._project_width = project
            column = self.columns["project"]  # type: ignore[index]
            column.width = project
            column.label = Text(fmt.one_line("project", project))
            changed.update(self._redraw_cells(_PROJECT, self._project))
            self.refresh()
        if title != self._title_width:
            self._title_width = title
            self.columns["title"].width = title  # type: ignore[index]
            changed.update(self._redraw_cells(_TITLE, self._title))
        if project != old_project or title != old_title:
            self._update_count += 1  # every row is laid out again (DataTable's caches' key)
            # The table's width follows its columns' (what DataTable works out when idle),
            # set without a layout of its own: the one under way reads it (a later one
            # redrew the whole list for it).
            columns = sum(column.get_render_width(self) for column in self.columns.values())
            self.set_reactive(SessionList.virtual_size, self.virtual_size.with_width(columns))
        self._repaint(list(changed))

    def _redraw_cells(self, index: int, cell: Callable[[SessionRow], Text]) -> list[str]:
        """Put in again the cells of column ``index`` that a new width cuts differently (most
        fit either way); the rows changed."""
        changed: list[str] = []
        for sid, plain in self._plain.items():
            new = cell(self._rows[sid])
            text = _plain(new)
            if plain[index] != text:
                self._set_cells(sid, {index: new})
                self._plain[sid] = (*plain[:index], text, *plain[index + 1 :])
                changed.append(sid)
        return changed

    def _redraw_all(self) -> None:
        self._colours.clear()
        self._drawn_cells.clear()
        self._drawn = dict.fromkeys(self._drawn, (None, ""))
        self._plain = dict.fromkeys(self._plain, ())
        self._sync()

    def _sync(self, only: Sequence[str] | None = None, *, now: bool = False) -> None:
        """Diff ``only`` these sessions (default: all) against what is drawn (``now``:
        without holding back a rising cost)."""
        selected = self.selected_id
        if only is None:
            self._pending = []  # a full pass draws every row
            self._filling = bool(self._more)
        ids = list(self._rows) if only is None else only
        reorder = regroup = False
        changed_rows: list[str] = []
        added: list[str] = []
        removed: list[str] = []
        for sid in ids:
            r = self._rows.get(sid)
            if r is None or not r.matches(self._query, self._host):
                if sid in self._drawn:
                    removed.append(sid)
                    del self._drawn[sid], self._plain[sid]
                    self._forget(sid)
                    reorder = True
                continue
            seen = (r, f"{fmt.age(r.last_activity)} {fmt.waited(r.waiting_since)} "
                       f"{fmt.age(r.offline_since)}")  # fmt: skip
            self._held.discard(sid)
            before = self._drawn.get(sid)
            if before == seen:
                if sid not in self._due_at:  # its time came (popped by the tick)
                    self._schedule(r)
                continue
            self._schedule(r)
            regroup = self._order.note(r) or regroup
            cells = self._cells(r)
            plain = (*(_plain(c) for c in cells), str(self._order(r)))
            if before is None:
                self.add_row(*cells, key=sid)
                added.append(sid)
                reorder = True
            else:
                old = self._plain[sid]
                changed = [
                    column
                    for column in range(len(_KEYS))
                    # The status cell also carries the order: update it when either changed.
                    if old[column : column + 1] != plain[column : column + 1]
                    or (column == 0 and old[-1:] != plain[-1:])
                ]
                if not now and self._holds_cost(sid, old, changed):
                    self._drawn[sid] = (None, "")  # compared again on the tick
                    self._held.add(sid)
                    continue
                self._set_cells(sid, {column: cells[column] for column in changed})
                changed_rows.append(sid)
                if _COST in changed:
                    self._cost_at[sid] = self.clock()
                reorder = reorder or old[-1:] != plain[-1:]
            self._drawn[sid], self._plain[sid] = seen, plain
        if only is None:
            for gone in [sid for sid in self._drawn if sid not in self._rows]:
                removed.append(gone)
                del self._drawn[gone], self._plain[gone]
                self._forget(gone)
                reorder = True
        self._remove_rows(removed)
        if reorder or regroup:
            keys = sorted(self._drawn, key=lambda sid: self._order(self._rows[sid]))
            # Rows added below the others in their order (a long list filling) are in place
            # already: the table's sort of thousands of rows is skipped.
            if keys != self._shown and keys != self._shown + added:
                self.sort("status", key=lambda cell: self._order(self._rows[cell.sid]))
            self._shown = keys
            changed_rows += self._mark_heads()
        self._repaint(changed_rows)
        if selected is not None and selected in self._drawn and self.selected_id != selected:
            self.move_cursor(row=self._shown.index(selected), animate=False)
        elif selected is not None and selected not in self._drawn and self.selected_id is not None:
            # The row under the cursor went (archived, filtered out, gone) and another is
            # under it now: the table announces a highlight only when the cursor moves, so
            # the pane would go on showing the session that went.
            key = self._row_locations.get_key(self.cursor_row)
            if key is not None:
                self.post_message(DataTable.RowHighlighted(self, self.cursor_row, key))

    def _remove_rows(self, sids: Collection[str]) -> None:
        """``DataTable.remove_row`` of each of ``sids``, at once: it numbers every row left
        again for each row it removes, so a filter that left 20 of 5,000 rows took ~20 s of
        the loop. As it does, but once (tests/tui/test_list_scale.py holds it to Textual's)."""
        if len(sids) <= 1:
            for sid in sids:
                self.remove_row(sid)
            return
        drop = set(sids)
        self._require_update_dimensions = True
        self.check_idle()
        locations = self._row_locations
        kept = sorted((locations.get(key), key) for key in locations if key.value not in drop)
        dropped = [key for key in locations if key.value in drop]
        self._row_locations = TwoWayDict({key: i for i, (_, key) in enumerate(kept)})
        for key in dropped:
            for column_key in self._data[key]:
                self._updated_cells.discard(CellKey(key, column_key))
            del self.rows[key]
            del self._data[key]
        self.cursor_coordinate = self.cursor_coordinate
        self.hover_coordinate = self.hover_coordinate
        self._update_count += 1
        self.refresh(layout=True)

    def _set_cells(self, sid: str, cells: dict[int, Text]) -> None:
        """Put new cells in ``sid``'s row without repainting (``_repaint`` does)."""
        # DataTable.update_cell repaints every visible row, for one changed cell.
        self._one_row = True
        try:
            for column, cell in cells.items():
                self.update_cell(sid, _KEYS[column], cell)
        finally:
            self._one_row = False

    def _repaint(self, sids: Collection[str]) -> None:
        """Repaint the lines of these rows (all of them when that is as many)."""
        height = self.size.height
        if not sids:
            return
        if len(sids) >= height:
            self.refresh()
            return
        # Every row is one line, below the header; the header stays when the rows scroll.
        top = self.header_height if self.show_header else 0
        for sid in sids:
            y = top + self.get_row_index(sid) - self.scroll_offset.y
            if top <= y < height:
                self.refresh(Region(0, y, self.size.width, 1))

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if self._one_row and not regions and repaint and not (layout or recompose):
            return self  # ``_sync`` repaints the rows it changed
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _holds_cost(self, sid: str, old: tuple[str, ...], changed: list[int]) -> bool:
        """Only the cost changed, a cost is shown already, and it was drawn less than
        ``_COST_EVERY_S`` ago: leave it for now."""
        if changed != [_COST] or not old[_COST].partition("\x00")[0]:
            return False
        return self.clock() - self._cost_at.get(sid, -math.inf) < _COST_EVERY_S

    def _forget(self, sid: str) -> None:
        """A row left the list: drop what was kept for it."""
        self._heads.discard(sid)
        self._cost_at.pop(sid, None)
        self._held.discard(sid)
        self._due_at.pop(sid, None)  # its entry in _due is stale now

    def _cells(self, r: SessionRow) -> tuple[Text, Text, Text, Text, Text]:
        glyph, label, var = fmt.row_badge(r.status, unseen=r.unseen, live=r.live)
        if r.waiting_since is not None:
            label = f"{label} {fmt.waited(r.waiting_since)}"  # "waiting 3m": for how long
        elif r.status == "queued" and _place(r.dispatch_note):
            label = r.dispatch_note or label  # "queued 3rd"
        muted = self._colour("foreground-muted")
        if r.host is not None and r.offline_since is not None:
            # Its host is unreachable: the row is what was last seen, greyed, and says when.
            status = _StatusCell(f"last seen {fmt.age(r.offline_since)}", style=muted)
        else:
            status = _StatusCell(f"{glyph} {label}", style=self._colour(var))
        status.sid = r.session_id
        if (r.status == "waiting_for_input" or r.unseen) and r.offline_since is None:
            status.stylize("bold")
        stale = muted if r.offline_since is not None else ""
        return (
            status,
            self._project(r),
            self._title(r),
            Text(fmt.age(r.last_activity), style=muted, justify="right"),
            Text(fmt.cost(r.cost_usd), style=stale, justify="right"),
        )

    def _project(self, r: SessionRow) -> Text:
        """The project cell: bold on its group's first row, muted on the others (the list
        reads as groups, and a row scrolled to the top still says where it belongs)."""
        head = r.session_id in self._heads and r.offline_since is None
        return Text(
            fmt.one_line(r.project, self._project_width),
            style="bold" if head else self._colour("foreground-muted"),
        )

    def _mark_heads(self) -> list[str]:
        """Find each group's first listed row; redraw the project cells that changed."""
        heads: set[str] = set()
        last: str | None = None
        for sid in self._shown:
            group = self._rows[sid].group
            if group != last:
                heads.add(sid)
                last = group
        changed = [sid for sid in heads ^ self._heads if sid in self._plain]
        self._heads = heads
        for sid in changed:
            cell = self._project(self._rows[sid])
            self._set_cells(sid, {_PROJECT: cell})
            plain = self._plain[sid]
            self._plain[sid] = (*plain[:_PROJECT], _plain(cell), *plain[_PROJECT + 1 :])
        return changed

    def _title(self, r: SessionRow) -> Text:
        """The title cell, cut to the column's width."""
        title = Text(
            fmt.one_line(r.title or "(no prompt yet)", self._title_width),
            style="" if r.title and r.offline_since is None else self._colour("foreground-muted"),
        )
        if r.host is not None:
            # Every remote row says where it runs, before anything else.
            title = Text.assemble((f"{r.host}: ", self._colour("text-secondary")), title)
            title.truncate(self._title_width, overflow="ellipsis")
        if r.worktree_label is not None:
            tag = self._colour("text-warning" if r.worktree == "gone" else "text-accent")
            title = Text.assemble((r.worktree_label + " ", tag), title)
            title.truncate(self._title_width, overflow="ellipsis")
        note = r.dispatch_note
        if note and not (r.status == "queued" and _place(note)):
            # "waits for 2 sessions", "paused until 14:05 (usage limit)", "queued until 14:05
            # (usage limit)", a schedule's run: before the title (the status cell is narrow)
            title = Text.assemble((note + " · ", self._colour("text-secondary")), title)
            title.truncate(self._title_width, overflow="ellipsis")
        return title

    def _colour(self, variable: str) -> str:
        """A theme colour as a hex Rich understands (alpha blended over the background)."""
        known = self._colours.get(variable)
        if known is None:
            known = self._colours[variable] = self._parse_colour(variable)
        return known

    def _parse_colour(self, variable: str) -> str:
        variables = self.app.theme_variables
        try:
            colour = Color.parse(variables.get(variable, ""))
            background = Color.parse(variables.get("background", "#000000"))
        except Exception:
            return ""
        return (background + colour).hex


def _plain(cell: Text) -> str:
    """A cell's text and styles: what decides whether it is drawn again."""
    return f"{cell.plain}\x00{cell.style}\x00{cell.spans}"


def _place(note: str | None) -> bool:
    """``queued 3rd``: a place in the queue, short enough for the status cell (``queued
    until 14:05 (usage limit)`` is not: it goes before the title)."""
    return note is not None and note.startswith("queued ") and not note.startswith("queued until")
