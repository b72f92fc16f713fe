"""The metrics page (``m``) and the new-session form's template choice, through Pilot."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select, Static

from cctui.config import SessionTemplate
from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.metrics import MetricsScreen
from cctui.tui.screens.new_session import NewSessionScreen
from tests.tui.conftest import RunApp


def _cells(table: DataTable) -> list[list[str]]:  # type: ignore[type-arg]
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_m_shows_metrics_that_follow_the_sessions(run_app: RunApp) -> None:
    async with run_app() as h:
        sid = await h.create("count me")
        h.manager.record_tool_call("mcp:t", "claude_wait", {}, outcome="ok", duration_ms=12.0)
        await h.pilot.press("m")
        screen = h.app.screen
        assert isinstance(screen, MetricsScreen)
        rows = _cells(screen.query_one("#sessions", DataTable))
        assert rows == [["count me", "1", "1", "8", str(len("Echo: count me")), "$0.010", "1ms"]]
        assert _cells(screen.query_one("#tools", DataTable))[0][:3] == ["claude_wait", "1", "0"]
        totals = str(screen.query_one("#totals", Static).render())
        assert "started 1" in totals and "calls 1" in totals
        # It refreshes while open.
        await h.manager.send(sid, "again")
        await h.settle(sid)
        await screen.reload().wait()  # a worker: an attached window's comes from its owner
        assert _cells(screen.query_one("#sessions", DataTable))[0][1:3] == ["2", "2"]
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)
        await h.pilot.press("question_mark")
        assert isinstance(h.app.screen, HelpScreen)
        assert "metrics" in str(h.app.screen.query_one("#keys", Static).render())


async def test_the_form_starts_a_session_from_a_template(run_app: RunApp) -> None:
    review = SessionTemplate(
        description="read-only review",
        prompt="Review the diff",
        model="opus",
        permission_mode="plan",
        allowed_tools=("Read",),
        max_turns=4,
        system_prompt="Be terse.",
    )
    async with run_app(templates={"review": review}, launch_prefix=("env",)) as h:
        await h.pilot.press("n")
        screen = h.app.screen
        assert isinstance(screen, NewSessionScreen)
        screen.query_one("#template", Select).value = "review"
        await h.pilot.pause()
        assert screen.query_one("#prompt", Input).value == "Review the diff"
        assert screen.query_one("#model", Select).value == "opus"
        assert screen.query_one("#mode", Select).value == "plan"
        screen.query_one("#model", Select).value = "haiku"  # what the form shows wins
        await h.pilot.press("ctrl+s")
        await h.until(lambda: bool(h.manager.list()))
        info = h.manager.list()[0]
        driver = h.factory.of(info.session_id)
        spec = driver.spec
        assert driver.sent == ["Review the diff"]
        assert info.config.template == "review" and spec.model == "haiku"
        assert spec.permission_mode == "plan" and spec.max_turns == 4
        assert spec.allowed_tools == ("Read",) and spec.append_system_prompt == "Be terse."
        assert spec.launch_prefix == ("env",)  # the config's default prefix


async def test_the_form_without_templates_has_no_template_choice(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("n")
        assert not h.app.screen.query("#template")
