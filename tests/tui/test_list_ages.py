"""The one-second tick redraws only the rows whose age text changes ("now" -> "1m",
"2h" -> "3h"): a list of thousands of past sessions costs the tick nothing while none
of them crosses a boundary."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from cctui.tui import clock
from cctui.tui.rows import SessionRow
from cctui.tui.widgets.session_list import SessionList

T0 = datetime(2026, 11, 27, 12, 0, 30, tzinfo=UTC)


class _ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SessionList(id="sessions")


def _row(sid: str, ago: timedelta, waiting: timedelta | None = None) -> SessionRow:
    return SessionRow(
        session_id=sid,
        status="waiting_for_input" if waiting is not None else "completed",
        project="proj",
        title=sid,
        last_activity=T0 - ago,
        cost_usd=None,
        cwd=Path("/tmp"),
        live=False,
        waiting_since=None if waiting is None else T0 - waiting,
    )


@pytest.fixture
def frozen() -> Iterator[None]:
    clock.freeze(T0)
    yield
    clock.freeze(None)


async def test_the_tick_redraws_the_rows_whose_age_changes_and_no_other(frozen: None) -> None:
    app = _ListApp()
    async with app.run_test() as pilot:
        table = app.query_one(SessionList)
        rows = [
            _row("recent", timedelta(seconds=30)),
            _row("hours", timedelta(hours=2, minutes=59)),
            _row("old", timedelta(days=3)),
            *(_row(f"past{i}", timedelta(days=40 + i)) for i in range(200)),
        ]
        table.set_rows(rows)
        await pilot.pause()
        synced: list[list[str]] = []
        sync = table._sync

        def spy(only: Sequence[str] | None = None, *, now: bool = False) -> None:
            synced.append(sorted(only) if only is not None else ["*"])
            sync(only, now=now)

        table._sync = spy  # type: ignore[method-assign]

        def age(sid: str) -> str:
            return table.get_cell(sid, "active").plain

        assert (age("recent"), age("hours"), age("old")) == ("now", "2h", "3d")
        table.refresh_ages()  # nothing crossed a boundary
        assert synced == []

        clock.freeze(T0 + timedelta(seconds=31))
        table.refresh_ages()
        assert synced == [["recent"]]
        assert (age("recent"), age("hours")) == ("1m", "2h")

        clock.freeze(T0 + timedelta(minutes=1, seconds=1))
        table.refresh_ages()
        assert synced[-1] == ["hours"]
        assert (age("recent"), age("hours"), age("old")) == ("1m", "3h", "3d")

        clock.freeze(T0 + timedelta(seconds=90))
        table.refresh_ages()
        assert synced[-1] == ["recent"]
        assert age("recent") == "2m"
        assert len(synced) == 3
        assert age("past0") == (T0 - timedelta(days=40)).strftime("%b %d")


async def test_a_waiting_row_counts_its_wait_every_second(frozen: None) -> None:
    app = _ListApp()
    async with app.run_test() as pilot:
        table = app.query_one(SessionList)
        table.set_rows([_row("asks", timedelta(seconds=5), waiting=timedelta(seconds=5))])
        await pilot.pause()
        assert table.get_cell("asks", "status").plain == "◆ waiting 5s"
        clock.freeze(T0 + timedelta(seconds=1))
        table.refresh_ages()
        assert table.get_cell("asks", "status").plain == "◆ waiting 6s"
