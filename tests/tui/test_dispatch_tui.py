"""The queue and schedules page (t) and the list's dispatch notes, over the fake driver:
snapshots at a large and a small terminal, and the page's keys driven with Pilot."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Checkbox, DataTable, Input

from cctui.core import SessionStatus
from cctui.tui.screens.dispatch import DispatchScreen
from cctui.tui.screens.schedule_form import ScheduleForm
from tests.snapshot_apps.demo import _IDS, demo_app, ready

pytestmark = pytest.mark.usefixtures("demo_root")


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
@pytest.mark.parametrize(
    "scenario", ["dispatch", "dispatch_list", "after_picker", "new_after", "schedule_form"]
)
def test_dispatch_snapshot(snap_compare: Any, scenario: str, size: tuple[int, int]) -> None:
    """The page lists the waiting session and both schedules; the list says what waits; the
    new-session form's After picker, and the form saying what its session waits for."""
    assert snap_compare(demo_app(scenario), terminal_size=size, run_before=ready(scenario))


async def test_the_page_cancels_pauses_runs_and_adds() -> None:
    app = demo_app("dispatch")
    async with app.run_test(size=(160, 48)) as pilot:
        await ready("dispatch")(pilot)
        page = app.screen
        assert isinstance(page, DispatchScreen)
        d = app.manager.dispatch
        [entry] = d.queued()
        assert entry.session_id == _IDS["notes"]
        note = app.manager.get(_IDS["notes"]).dispatch
        assert note is not None and note.note == "waits for 1 session"

        # The schedules table: pause the first (standup), then run the paused one now.
        page.query_one("#schedules", DataTable).focus()
        await pilot.press("space")
        await pilot.pause()
        assert d.schedule("standup").paused
        await pilot.press("space")
        await pilot.pause()
        assert not d.schedule("standup").paused
        runs = len(d.schedule("standup").runs)
        await pilot.press("r")
        for _ in range(100):
            await pilot.pause(0.02)
            if len(d.schedule("standup").runs) > runs:
                break
        assert len(d.schedule("standup").runs) == runs + 1

        # A new schedule through the form; a bad "when" is said and nothing is lost.
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ScheduleForm)
        form.query_one("#name", Input).value = "weekly"
        form.query_one("#when", Input).value = "every blue moon"
        form.query_one("#prompt", Input).value = "Tidy the issue tracker"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert form.is_current and "not a schedule" in str(form.query_one("#error").render())
        form.query_one("#when", Input).value = "every fri 16:00"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is page
        assert d.schedule("weekly").cron == "0 16 * * 5"

        # The queue: cancel the waiting session; it says who.
        page.query_one("#queue", DataTable).focus()
        await pilot.press("x")
        await pilot.pause()
        info = app.manager.get(_IDS["notes"])
        assert info.status == SessionStatus.CANCELLED and info.error == "cancelled by tui"
        assert d.queued() == []
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, DispatchScreen)


async def test_the_page_edits_a_schedule_with_its_worktree_and_priority() -> None:
    app = demo_app("dispatch")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready("dispatch")(pilot)
        page = app.screen
        assert isinstance(page, DispatchScreen)
        d = app.manager.dispatch
        assert page.focused is page.query_one("#queue")  # a session is queued
        await pilot.press("e")  # a schedule's key: the schedules' first row, standup
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ScheduleForm)
        assert form.query_one("#prompt", Input).value == "Summarise yesterday's commits"
        form.query_one("#prompt", Input).value = "Summarise yesterday's merges"
        form.query_one("#when", Input).value = "every weekday 08:30"
        form.query_one("#priority", Input).value = "high"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form and "whole number" in str(form.query_one("#error").render())
        form.query_one("#priority", Input).value = "5"
        form.query_one("#worktree", Checkbox).value = True
        await pilot.pause()
        form.query_one("#worktree-name", Input).value = "standup"
        await pilot.press("ctrl+s")
        await pilot.pause()
        # The demo's project is not a git repository: said now, not by every run failing.
        assert app.screen is form and "git repository" in str(form.query_one("#error").render())
        form.query_one("#worktree", Checkbox).value = False
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, DispatchScreen)
        s = d.schedule("standup")
        assert (s.prompt, s.cron, s.priority, s.worktree) == (
            "Summarise yesterday's merges",
            "30 8 * * 1-5",
            5,
            None,
        )
