"""A running session's cost cell is drawn again at most every few seconds when nothing else
in its row changed (Textual's DataTable redraws every row for one cell), and at once with
any other change; what was held back is drawn by the one-second tick."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from textual.app import App, ComposeResult

from cctui.tui.rows import SessionRow
from cctui.tui.widgets import session_list
from cctui.tui.widgets.session_list import SessionList
from tests.tui.conftest import RunApp

SID = "0a1b2c3d-0000-4000-8000-00000000c057"
NOW = datetime.now(UTC)


class _ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SessionList(id="sessions")


def _row(cost: float, status: str = "running") -> SessionRow:
    return SessionRow(
        session_id=SID,
        status=status,
        project="proj",
        title="a long turn",
        last_activity=NOW,
        cost_usd=cost,
        cwd=Path("/tmp"),
        live=True,
    )


async def test_the_cost_of_a_running_session_is_drawn_every_few_seconds() -> None:
    clock = [1000.0]
    app = _ListApp()
    async with app.run_test() as pilot:
        table = app.query_one(SessionList)
        table.clock = lambda: clock[0]
        table.update_rows([_row(0)])
        await pilot.pause()

        def cost() -> str:
            return table.get_cell(SID, "cost").plain

        assert cost() == ""
        table.update_rows([_row(0.10)])  # the first cost is drawn at once
        assert cost() == "$0.100"
        clock[0] += session_list._COST_EVERY_S
        table.update_rows([_row(0.20)])  # the first rise is drawn
        assert cost() == "$0.200"
        clock[0] += 1
        table.update_rows([_row(0.30)])  # a second later: held back
        assert cost() == "$0.200"
        table.refresh_ages()  # the tick, still within the interval
        assert cost() == "$0.200"
        clock[0] += session_list._COST_EVERY_S
        table.refresh_ages()  # the tick draws what was held back
        assert cost() == "$0.300"

        clock[0] += 1
        table.update_rows([_row(0.40, status="idle")])  # the turn ended: everything at once
        assert cost() == "$0.400"
        assert "idle" in table.get_cell(SID, "status").plain


async def test_at_80x24_the_cost_is_whole_not_clipped(run_app: RunApp) -> None:
    """Issue 39, item 8: at 80x24 the list was wider than its pane and cut the last column:
    $0.111 read "$0.1". The project column gives way before the cost does."""
    async with run_app() as h:
        h.factory.cost_per_turn = 0.111
        await h.create("hello")
        await h.pilot.resize_terminal(80, 24)
        await h.pilot.pause(0.2)
        sessions = h.app.main.sessions
        lines = [s.text for s in sessions.render_lines(sessions.region.reset_offset)]
        assert any("$0.111" in line for line in lines), lines
