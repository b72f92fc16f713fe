"""Worktrees in the TUI, over the fake driver (which makes the worktree as ``claude
--worktree`` does) in a temporary git repository: the form's checkbox, the list's branch,
the turn's change count, the diff page, and finishing (merge; a discard listing its loss)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widgets import Checkbox, Input, Static

from cctui.core import ChangesEvent
from cctui.tui.screens.diff import DiffScreen
from cctui.tui.screens.finish import FinishScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.widgets.blocks import Note
from cctui.tui.widgets.event_lines import event_widget
from tests.helpers import git
from tests.tui.conftest import Harness, RunApp


def make_repo(repo: Path) -> None:
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "T")
    git(repo, "config", "user.email", "t@example.com")
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    git(repo, "commit", "-qm", "first")


async def start_in_worktree(h: Harness, name: str) -> str:
    await h.pilot.press("n")
    form = h.app.screen
    assert isinstance(form, NewSessionScreen)
    form.query_one("#prompt", Input).value = "tidy up"
    form.query_one("#worktree", Checkbox).value = True
    await h.pilot.pause()
    assert not form.query_one("#worktree-name", Input).disabled
    form.query_one("#worktree-name", Input).value = name
    form.query_one("#prompt", Input).focus()
    await h.pilot.press("enter")
    await h.until(lambda: any(i.worktree for i in h.manager.list()))
    sid = next(i.session_id for i in h.manager.list() if i.worktree)
    await h.settle(sid)
    # The form leaves the keyboard on the message line (a reply is typed next); the list's
    # keys need it back on the list.
    await h.pilot.press("escape")
    return sid


def finish_drawn(h: Harness) -> Callable[[], bool]:
    """The finish page is on screen with its widgets: a pushed screen is the app's screen
    before it has composed (reading ``#state`` then found nothing, under load)."""
    return lambda: isinstance(h.app.screen, FinishScreen) and bool(h.app.screen.query("#state"))


async def test_a_worktree_session_from_the_form_is_diffed_and_merged(run_app: RunApp) -> None:
    async with run_app() as h:
        make_repo(h.project)
        sid = await start_in_worktree(h, "tidy")
        wt = h.manager.get(sid).worktree
        assert wt is not None and wt.branch == "worktree-tidy"
        assert h.factory.of(sid).spec.worktree == "tidy"
        shown = h.app.main.sessions.row
        await h.until(lambda: (row := shown(sid)) is not None and row.worktree == "active")
        row = h.app.main.sessions.row(sid)
        assert row is not None and row.worktree_label == "⎇ worktree-tidy"
        (wt.path / "a.py").write_text("x = 2\ny = 3\n")

        await h.pilot.press("d")
        await h.until(lambda: isinstance(h.app.screen, DiffScreen) and h.app.screen.drawn)
        summary = str(h.app.screen.query_one("#diff-base", Static).render())
        assert "1 file" in summary and "+2" in summary and "merge-base" in summary
        await h.pilot.press("s")  # side by side, and back
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)

        await h.pilot.press("f")
        await h.until(finish_drawn(h))
        assert "M a.py" in str(h.app.screen.query_one("#state", Static).render())
        await h.pilot.press("m")
        await h.until(lambda: h.manager.get(sid).worktree.finished == "merged")
        assert (h.project / "a.py").read_text() == "x = 2\ny = 3\n"
        assert not wt.path.exists()


async def test_a_discard_that_loses_work_asks_again_with_the_list(run_app: RunApp) -> None:
    async with run_app() as h:
        make_repo(h.project)
        sid = await start_in_worktree(h, "scratch")
        wt = h.manager.get(sid).worktree
        assert wt is not None
        (wt.path / "new.txt").write_text("draft\n")
        await h.pilot.press("f")
        await h.until(finish_drawn(h))
        await h.pilot.press("x")
        warning = str(h.app.screen.query_one("#warning", Static).render())
        assert "uncommitted: ?? new.txt" in warning and "live claude process" in warning
        assert wt.path.exists()  # nothing yet
        await h.pilot.press("escape")  # back: the choices again
        await h.pilot.press("x")
        await h.pilot.press("y")
        # Its directory goes first, then the session records the discard: wait for that.
        await h.until(lambda: h.manager.get(sid).worktree.finished == "discarded")
        assert not wt.path.exists()


async def test_outside_git_the_form_reports_the_error_and_keeps_the_prompt(
    run_app: RunApp,
) -> None:
    """Issue 39, item 9: the form closed on "not a git repository" and the prompt was lost
    (it stays open on the other errors)."""
    async with run_app() as h:
        await h.pilot.press("n")
        form = h.app.screen
        form.query_one("#prompt", Input).value = "a long prompt worth keeping"
        form.query_one("#worktree", Checkbox).value = True
        form.query_one("#prompt", Input).focus()
        await h.pilot.press("enter")
        await h.pilot.pause(0.3)
        assert h.manager.list() == []
        assert h.app.screen is form
        assert "not in a git repository" in form.query_one("#error", Static).render().plain
        assert form.query_one("#prompt", Input).value == "a long prompt worth keeping"
        form.query_one("#worktree", Checkbox).value = False
        form.query_one("#prompt", Input).focus()
        await h.pilot.press("enter")
        await h.until(lambda: bool(h.manager.list()))


def test_a_turns_change_count_is_a_line_and_nothing_when_nothing_changed() -> None:
    made = event_widget(ChangesEvent(session_id="s", files=3, added=45, removed=12))
    assert made is not None
    note = made()
    assert isinstance(note, Note) and "3 files +45 \u221212" in str(note.render())
    assert event_widget(ChangesEvent(session_id="s", files=0, added=0, removed=0)) is None
