"""The session list with a user's history in it: what start-up, a resize and a change cost.

Every column has a fixed width, so Textual's measure of each new cell (for auto-width
columns) is skipped; a new width redraws only the titles it cuts differently; a changed cell
repaints its row, and Rich draws that cell alone again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.pilot import Pilot
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.widgets import DataTable, Static

from cctui.tui.rows import SessionRow
from cctui.tui.widgets.session_list import _FIXED, SessionList
from tests.tui.conftest import until

NOW = datetime.now(UTC)
LONG = "refactor the payment module so that every retry is idempotent and logged " * 2


class _ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SessionList(id="sessions")


@asynccontextmanager
async def _listed(
    rows: list[SessionRow], size: tuple[int, int] = (120, 30)
) -> AsyncIterator[tuple[Pilot[None], SessionList]]:
    """An app whose list shows ``rows``, drawn: every one of them (a list longer than two
    screenfuls draws its top first and the rest in chunks on later turns of the loop, so one
    pause is not enough; a whole run at load 10 looked after the first 50 of 300)."""
    app = _ListApp()
    async with app.run_test(size=size) as pilot:
        table = app.query_one(SessionList)
        table.set_rows(rows)
        await until(pilot, lambda: not table.filling)
        yield pilot, table


def _rows(count: int) -> list[SessionRow]:
    return [_row(i, f"task {i}") for i in range(count)]


def _newest(row: SessionRow) -> SessionRow:
    """A new session like ``row``, started now: it comes in at the top of the list (its
    project's group; a session already listed keeps its place whatever it does)."""
    return dataclasses.replace(
        row,
        session_id=row.session_id[:-6] + "999999",
        last_activity=NOW + timedelta(minutes=1),
        created_at=NOW + timedelta(minutes=1),
        status="running",
        live=True,
    )


def _row(i: int, title: str) -> SessionRow:
    return SessionRow(
        session_id=f"0a1b2c3d-0000-4000-8000-{i:012d}",
        status="completed",
        project="proj",
        title=title,
        last_activity=NOW - timedelta(minutes=i),
        cost_usd=None,
        cwd=Path("/tmp"),
        live=False,
    )


def _note_calls(
    monkeypatch: pytest.MonkeyPatch, owner: type, name: str, note: Callable[..., object]
) -> None:
    """``note(*args)`` on every call of ``owner.name`` (which still runs)."""
    original = getattr(owner, name)

    def spy(self: object, *args: Any, **kw: Any) -> Any:
        note(*args)
        return original(self, *args, **kw)

    monkeypatch.setattr(owner, name, spy)


def _title_shown(table: SessionList, row: SessionRow) -> str:
    return str(table.get_cell(row.session_id, "title"))


async def test_new_rows_are_not_measured_and_the_table_is_as_tall_as_its_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passed: list[list[Any]] = []
    _note_calls(monkeypatch, DataTable, "_update_dimensions", lambda rows: passed.append([*rows]))
    async with _listed(_rows(300)) as (_pilot, table):
        # Textual still calls its hook once the table is idle (a renamed hook would leave
        # our override unused and this list empty), with no row to measure.
        assert passed
        assert all(rows == [] for rows in passed)
        assert table.row_count == 300
        assert table.virtual_size.height == 300 + 1  # the rows and the header
        widths = {key.value: column.width for key, column in table.columns.items()}
        assert widths["status"] == 13 and widths["cost"] == 6
        assert widths["title"] == 120 - _FIXED  # the width left by the fixed columns


async def test_a_new_width_redraws_only_the_titles_it_cuts_differently(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    short, long = _row(1, "fix the login test"), _row(2, LONG)
    async with _listed([short, long], size=(160, 30)) as (pilot, table):
        wide = _title_shown(table, long)
        assert wide.endswith("…") and len(wide) == 160 - _FIXED
        wide_table = table.virtual_size.width

        updated: list[tuple[str, str]] = []
        _note_calls(
            monkeypatch,
            SessionList,
            "update_cell",
            lambda row, column, *_: updated.append((str(row), str(column))),
        )
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        narrow = _title_shown(table, long)
        assert narrow.endswith("…") and len(narrow) == 100 - _FIXED
        assert LONG.startswith(narrow[:-1])
        assert _title_shown(table, short) == "fix the login test"
        assert updated == [(long.session_id, "title")]
        # The table is as wide as its columns now (no stale width to scroll across).
        columns = sum(column.get_render_width(table) for column in table.columns.values())
        assert table.virtual_size.width == columns < wide_table


class _MountedApp(App[None]):
    """Rows set before the first layout, as the main screen's (``load_now`` in ``on_mount``)."""

    def __init__(self, rows: list[SessionRow]) -> None:
        super().__init__()
        self._rows = rows

    def compose(self) -> ComposeResult:
        yield SessionList(id="sessions")

    def on_mount(self) -> None:
        self.query_one(SessionList).set_rows(self._rows)


async def test_the_first_frame_draws_each_row_once_at_the_width_the_layout_gave(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The columns take their widths in the layout, before its paint: fitted on the Resize
    that follows it, every row of the first screen was drawn at the default title width,
    then again (and again for DataTable's count of a resize as an update)."""
    drawn: list[object] = []
    _note_calls(monkeypatch, DataTable, "_render_line_in_row", lambda row, *_: drawn.append(row))
    rows = [_row(i, LONG) for i in range(100)]
    app = _MountedApp(rows)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(SessionList)
        title = _title_shown(table, rows[0])
        assert title.endswith("…") and len(title) == 160 - _FIXED
        shown = [row for row in drawn if row != table._header_row_key]
        assert len(shown) == 30 - 1  # the rows under the header, each drawn once
        assert len(set(shown)) == len(shown)
        columns = sum(column.get_render_width(table) for column in table.columns.values())
        assert table.virtual_size.width == columns


def _rich_draws(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(row, column) of every cell Textual draws through Rich from now on."""
    drawn: list[tuple[int, int]] = []
    _note_calls(
        monkeypatch,
        DataTable,
        "_render_cell",
        lambda row, column, *_: drawn.append((row, column)),
    )
    return drawn


def _line(table: SessionList, y: int) -> str:
    return "".join(segment.text for segment in table.render_line(y))


async def test_a_changed_cell_is_the_only_one_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = _rows(300)
    async with _listed(rows) as (pilot, table):
        drawn = _rich_draws(monkeypatch)
        lines: list[int] = []
        _note_calls(monkeypatch, SessionList, "render_line", lines.append)
        third = dataclasses.replace(rows[2], cost_usd=1.5)
        table.update_rows([third], now=True)
        await pilot.pause()
        # Textual drew every visible cell again (5 columns x 29 rows) and repainted the
        # whole table; the new cost is the one cell Rich draws now, in the one row repainted.
        cost = table.get_column_index("cost")
        assert drawn == [(2, cost)]
        assert lines == [3]
        assert "$1.50" in _line(table, 3)  # the header, then rows 0, 1, 2
        assert "task 2" in _line(table, 3) and "task 1" in _line(table, 2)

        drawn.clear()
        app = pilot.app
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        # A new theme draws every visible cell with its colours: each look once through
        # Rich (a cell that looks the same in another row takes that drawing): every
        # title (no two alike) and the whole header, fewer than all 5 x 29 cells.
        title = table.get_column_index("title")
        assert {row for row, column in drawn if column == title} == set(range(-1, 29))
        assert {column for row, column in drawn if row == -1} == set(range(5))
        assert len(drawn) < 5 * 29


async def test_a_click_selects_the_row_drawn_there_after_the_order_changed() -> None:
    rows = _rows(5)
    async with _listed(rows) as (pilot, table):
        # A new session comes in at the top: every row shifts down one. Each drawn cell
        # carries its row for a click: one drawn before the move must not be reused at its
        # new place.
        newest = _newest(rows[4])
        table.update_rows([newest])
        await pilot.pause()
        assert table.shown[:3] == [newest.session_id, rows[0].session_id, rows[1].session_id]
        assert table.shown[-1] == rows[4].session_id
        await pilot.click(SessionList, offset=(20, 3))  # the header, then rows 0, 1, 2
        assert table.selected_id == rows[1].session_id
        assert "task 1" in _line(table, 3)


async def test_rows_shifted_by_a_new_top_row_are_not_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = _rows(300)
    async with _listed(rows) as (pilot, table):
        drawn = _rich_draws(monkeypatch)
        # A new session comes in at the top: every row below shifts down one.
        newest = _newest(rows[20])
        table.update_rows([newest], now=True)
        await pilot.pause()
        # Rich draws the new row's cells unlike any drawn before (status, age), and the
        # project cell of the row that was its group's first (no longer bold); the shifted
        # rows keep their drawing, with their new place for a click.
        project = table.get_column_index("project")
        assert {row for row, _ in drawn} <= {0, 1}
        assert {column for row, column in drawn if row == 1} <= {project}
        assert len(drawn) <= 4
        assert "task 20" in _line(table, 1) and "task 0" in _line(table, 2)
        assert "task 19" in _line(table, 21) and "task 20" in _line(table, 22)
        await pilot.click(SessionList, offset=(20, 10))  # the header, then rows 0..8, 9
        assert table.selected_id == rows[8].session_id


async def test_a_long_first_list_draws_its_top_first_and_the_rest_in_order_after() -> None:
    """5,000 rows drawn before the first frame cost it half a second: a long first list
    draws its top ``FIRST_ROWS`` at once and the rest in chunks, and ends as the whole list
    drawn at once would (same order in the table and in ``shown``, every row counted)."""
    from cctui.tui.widgets.session_list import FIRST_ROWS

    rows = [_row(i, f"task {i}") for i in range(3 * FIRST_ROWS + 7)]
    rows += [dataclasses.replace(r, session_id="f" + r.session_id[1:], project="other",
                                 cwd=Path("/srv/other")) for r in rows[:50]]  # fmt: skip
    filled: list[int] = []

    class Counting(_ListApp):
        def on_session_list_filled(self, _: SessionList.Filled) -> None:
            filled.append(len(self.query_one(SessionList).shown))

    app = Counting()
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.query_one(SessionList)
        table.set_rows(rows)
        assert len(table.shown) == FIRST_ROWS and table.total == len(rows)
        assert len(table._pending) == len(rows) - FIRST_ROWS
        top = list(table.shown)
        # The screen is told as each chunk lands: the last Filled reaches the app a turn of
        # its loop after ``filling`` turns False (a whole run under load looked in between).
        await until(pilot, lambda: not table.filling and bool(filled) and filled[-1] == len(rows))
        order = sorted(table._rows, key=lambda sid: table._order(table._rows[sid]))
        assert table.shown == order and table.shown[:FIRST_ROWS] == top
        assert [row.key.value for row in table.ordered_rows] == order


class _ListBesideApp(App[None]):
    """The list beside a column that grows, like the pane beside it in cctui."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield SessionList(id="sessions")
            yield Vertical(id="beside")


async def test_a_layout_beside_the_list_does_not_draw_its_scrollbar_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual's ScrollView compared the layout's virtual size (the table's region) with the
    table's own (its rows): for a list longer than its view they always differ, so every
    layout of the screen anywhere drew the list's scrollbar (and the lines under it) again,
    twice per ``j`` at a hundred sessions. Its own new rows still move the scrollbar."""
    app = _ListBesideApp()
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.query_one(SessionList)
        table.set_rows(_rows(100))
        await pilot.pause()
        scrollbar = table.vertical_scrollbar
        assert table.show_vertical_scrollbar and scrollbar.window_virtual_size == 101
        drawn: list[object] = []  # the list's scrollbar is the only one on screen
        _note_calls(monkeypatch, ScrollBar, "refresh", lambda *a: drawn.append(a))
        layouts: list[object] = []
        _note_calls(monkeypatch, Screen, "_refresh_layout", lambda *a: layouts.append(a))
        for i in range(3):
            await app.query_one("#beside").mount(Static(f"line {i}"))
            await pilot.pause()
        assert len(layouts) >= 3  # the screen was laid out again
        assert drawn == []
        table.update_rows([_row(1000 + i, "new") for i in range(5)])
        await pilot.pause()
        assert scrollbar.window_virtual_size == 106
        assert drawn


async def test_a_filter_that_leaves_few_of_thousands_removes_the_others_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``DataTable.remove_row`` numbers every row left again for each row it removes: a
    filter that left a few of 5,000 rows held the loop ~20 s (one key typed in ``/``). The
    list removes them at once, and the table is what removing them one by one leaves: the
    rows in the list's order, each found by its key, the cursor on one of them."""
    rows = _rows(1200)
    remote = [
        dataclasses.replace(r, session_id=f"h1/{r.session_id}", host="h1", host_rank=1)
        for r in rows[::100]
    ]
    async with _listed(rows + remote) as (pilot, table):
        while table.filling:
            await pilot.pause(0.02)
        table.move_cursor(row=5)
        await pilot.pause()
        one_by_one: list[object] = []
        _note_calls(monkeypatch, DataTable, "remove_row", lambda *a: one_by_one.append(a))
        table.set_query(None, "h1")
        await pilot.pause()
        assert one_by_one == []
        listed = sorted(remote, key=table._order)
        assert table.shown == [r.session_id for r in listed] and table.row_count == len(remote)
        assert [row.key.value for row in table.ordered_rows] == table.shown
        titles = [table.get_row(r.session_id)[2].plain for r in listed]
        assert titles == [f"h1: {r.title}" for r in listed]
        assert table.selected_id in table.shown
        await pilot.press("G")
        assert table.selected_id == table.shown[-1]
        table.set_query(None)  # every row again
        await pilot.pause()
        every = sorted(rows + remote, key=table._order)
        assert table.shown == [r.session_id for r in every]
        assert [row.key.value for row in table.ordered_rows] == table.shown
        table.set_query(None, "local")  # the host's twelve go
        await pilot.pause()
        assert one_by_one == [] and table.row_count == len(rows)
        assert [row.key.value for row in table.ordered_rows] == table.shown
