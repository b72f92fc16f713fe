"""Every key of the main screen, driven through Pilot over the fake driver."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, Static

from cctui.core import SessionStatus
from cctui.tui.screens.ask import AskScreen
from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.widgets.session_list import SessionList
from cctui.tui.widgets.session_pane import MessageInput
from cctui.tui.widgets.transcript import AssistantBlock, ResultBlock, UserBlock
from tests.fakes.fake_driver import hold, text
from tests.tui.conftest import RunApp, raised


async def test_session_list_has_focus_on_start(run_app: RunApp) -> None:
    """A hidden input must not swallow the first keys (Textual 8.2.8)."""
    async with run_app() as h:
        assert isinstance(h.app.focused, SessionList)


async def test_n_opens_the_form_and_enter_starts_a_session(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("n")
        assert isinstance(h.app.screen, NewSessionScreen)
        h.app.screen.query_one("#prompt", Input).value = "hello there"
        h.app.screen.query_one("#prompt", Input).focus()
        await h.pilot.press("enter")
        await h.until(lambda: bool(h.manager.list()))
        session_id = h.manager.list()[0].session_id
        await h.settle(session_id)
        assert isinstance(h.app.screen, MainScreen)
        assert h.factory.drivers[0].sent == ["hello there"]
        assert h.factory.drivers[0].spec.cwd == h.project
        assert h.app.main.pane.session_id == session_id
        await h.until(lambda: bool(h.app.main.pane.query(ResultBlock)))
        assert h.app.main.pane.query(UserBlock)
        assert h.app.main.pane.query(AssistantBlock)


async def test_new_session_form_refuses_a_missing_directory(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("n")
        screen = h.app.screen
        screen.query_one("#prompt", Input).value = "hi"
        screen.query_one("#cwd", Input).value = "/no/such/dir"
        await h.pilot.press("enter")
        assert h.app.screen is screen
        assert not h.manager.list()
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)


async def test_enter_opens_the_session_and_the_message_line_sends(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("first")
        h.app.main.sessions.focus()
        await h.pilot.press("enter")
        assert isinstance(h.app.focused, MessageInput)
        assert h.app.main.pane.session_id == session_id
        h.app.focused.value = "second"
        await h.pilot.press("enter")
        await h.until(lambda: h.factory.drivers[-1].sent[-1:] == ["second"])
        await h.pilot.press("escape")
        # ignore: mypy keeps `focused` narrowed to MessageInput across the key press.
        assert isinstance(h.app.focused, SessionList)  # type: ignore[unreachable]


async def test_message_to_an_ended_session_resumes_it(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("first")
        await h.manager.kill(session_id)
        h.app.session_keys.send(session_id, "again")
        await h.until(lambda: len(h.factory.drivers) == 2)
        assert h.factory.drivers[1].spec.resume == session_id


async def test_i_interrupts_the_current_turn(run_app: RunApp) -> None:
    async with run_app({"*": [text("working"), hold(asyncio.Event())]}) as h:
        session_id = await h.create("long job")
        await h.until(lambda: h.manager.get(session_id).status == SessionStatus.RUNNING)
        h.app.main.open_session(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("i")
        await h.until(lambda: h.factory.drivers[0].interrupts == 1)


async def test_the_list_moves_with_vim_keys_home_end_and_k_kills_nothing(
    run_app: RunApp,
) -> None:
    """Issue 39, item 3: in lazygit, k9s, vim and less ``k`` is up; it once killed."""
    async with run_app() as h:
        ids = [await h.create(f"session {n}") for n in range(4)]
        sessions = h.app.main.sessions
        sessions.focus()
        shown = list(sessions.shown)
        sessions.select(shown[0])
        await h.pilot.press("j", "j")
        assert sessions.selected_id == shown[2]
        await h.pilot.press("k")
        assert sessions.selected_id == shown[1]
        for key, where in (("G", -1), ("g", 0), ("end", -1), ("home", 0)):
            await h.pilot.press(key)
            assert sessions.selected_id == shown[where], key
        await h.pilot.pause(0.1)
        assert all(h.manager.get(s).is_active for s in ids)
        assert not any(d.closed for d in h.factory.drivers)
        # Nor anywhere else: k is not the app's key any more (the pane, the output).
        h.app.main.open_session(ids[0])
        h.app.main.pane.focus()
        await h.pilot.press("k")
        await h.pilot.pause(0.1)
        assert h.manager.get(ids[0]).is_active


async def test_ctrl_k_kills_an_idle_session_at_once(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hi")
        h.app.main.open_session(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("ctrl+k")
        await h.until(lambda: not h.manager.get(session_id).is_active)
        assert h.factory.drivers[0].closed


async def test_ctrl_k_asks_first_while_a_turn_runs(run_app: RunApp) -> None:
    async with run_app({"*": [text("working"), hold(asyncio.Event())]}) as h:
        session_id = await h.create("long job")
        await h.until(lambda: h.manager.get(session_id).status == SessionStatus.RUNNING)
        h.app.main.open_session(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("ctrl+k")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        assert "turn" in h.app.screen.query_one("#body", Static).render().plain
        await h.pilot.press("escape")
        await h.pilot.pause(0.1)
        assert h.manager.get(session_id).status == SessionStatus.RUNNING
        await h.pilot.press("ctrl+k")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        await h.pilot.press("y")
        await h.until(lambda: not h.manager.get(session_id).is_active)


async def test_w_asks_before_forking_into_a_worktree(run_app: RunApp) -> None:
    """``w`` makes a worktree, a branch and a new claude process: it confirms first."""
    async with run_app() as h:
        session_id = await h.create("hi")
        h.app.main.open_session(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("w")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        body = h.app.screen.query_one("#body", Static).render().plain
        assert "worktree" in body and "branch" in body
        await h.pilot.press("escape")
        await h.pilot.pause(0.1)
        assert len(h.manager.list()) == 1
        await h.pilot.press("w")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        await h.pilot.press("y")
        # Not a git repository here: the fork is tried, and says why it did not happen.
        await h.until(lambda: any(n.title == "Not forked" for n in raised(h.app)))


async def test_i_without_a_session_says_so(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("i")
        await h.pilot.pause(0.1)
        assert any("Select a session" in n.message for n in raised(h.app))


async def test_slash_filters_by_text_and_escape_clears(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("alpha one")
        await h.create("beta two")
        assert len(h.app.main.sessions.shown) == 2
        await h.pilot.press("slash")
        box = h.app.main.query_one("#filter", Input)
        assert h.app.focused is box
        box.value = "beta"
        await h.pilot.pause(0.05)
        assert [h.app.main.sessions.row(s).title for s in h.app.main.sessions.shown] == ["beta two"]
        box.value = "status:live alpha"
        await h.pilot.pause(0.05)
        assert len(h.app.main.sessions.shown) == 1
        await h.pilot.press("escape")
        assert len(h.app.main.sessions.shown) == 2
        assert isinstance(h.app.focused, SessionList)


async def test_escape_from_a_filter_puts_the_cursor_back_on_its_row(run_app: RunApp) -> None:
    """A filter that matches nothing, or only other rows, hid the row under the cursor:
    ``esc`` brings the list back with the cursor on that row, not on the top one (issue 39).
    A row chosen in the filtered list keeps the cursor."""
    async with run_app() as h:
        for title in ("alpha kiwi lime", "beta kiwi plum", "gamma lime plum"):
            await h.create(title)
        sessions = h.app.main.sessions
        h.app.main.sessions.focus()
        await h.pilot.press("j")
        await h.pilot.pause(0.05)
        chosen = sessions.selected_id
        assert chosen is not None and chosen != sessions.shown[0]
        title = sessions.row(chosen).title
        other = next(sessions.row(s).title for s in sessions.shown if s != chosen)
        for typed in ("zzz", other.split()[0]):  # nothing, then only another row
            await h.pilot.press("slash", *typed)
            await h.pilot.pause(0.05)
            assert chosen not in sessions.shown
            await h.pilot.press("escape")
            await h.pilot.pause(0.05)
            assert len(sessions.shown) == 3
            assert sessions.selected_id == chosen, typed
        # A row chosen in the filtered list (the two others) keeps the cursor.
        others = {"alpha kiwi lime": "plum", "beta kiwi plum": "lime"}.get(title, "kiwi")
        await h.pilot.press("slash", *others, "enter")
        await h.pilot.pause(0.05)
        assert len(sessions.shown) == 2 and chosen not in sessions.shown
        was = sessions.selected_id
        await h.pilot.press("k" if sessions.cursor_row else "j")
        await h.pilot.pause(0.05)
        moved_to = sessions.selected_id
        assert moved_to not in (None, was)
        await h.pilot.press("slash", "escape")
        await h.pilot.pause(0.05)
        assert len(sessions.shown) == 3 and sessions.selected_id == moved_to


async def test_question_mark_opens_help(run_app: RunApp) -> None:
    async with run_app() as h:
        # Twice: the page is installed once and shown again (q closes it too).
        for close in ("escape", "q"):
            await h.pilot.press("question_mark")
            assert isinstance(h.app.screen, HelpScreen)
            assert "new session" in h.app.screen.text
            assert h.app.screen.query_one("#keys").region.height > 10
            await h.pilot.press(close)
            assert isinstance(h.app.screen, MainScreen)


async def test_a_opens_the_inbox(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("a")
        assert isinstance(h.app.screen, InboxScreen)
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)


async def test_q_quits_and_ends_every_session(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("one")
        await h.create("two")
        await h.pilot.press("q")
        await h.until(lambda: all(d.closed for d in h.factory.drivers))
        await h.until(lambda: not h.app.is_running)


async def test_sending_to_an_unknown_session_notifies_instead_of_crashing(run_app: RunApp) -> None:
    async with run_app() as h:
        h.app.session_keys.send("no-such-session", "hi")
        await h.pilot.pause(0.2)
        assert h.app.is_running
        assert any(n.title == "Not sent" for n in raised(h.app))


async def test_command_palette_offers_the_same_commands(run_app: RunApp) -> None:
    async with run_app() as h:
        titles = {c.title for c in h.app.get_system_commands(h.app.screen)}
        assert {
            "New session",
            "Inbox",
            "Interrupt session",
            "Kill session",
            "Filter sessions",
            "Keys",
            "Quit",
        } <= titles


async def test_a_bad_status_filter_says_what_is_wrong_in_words(run_app: RunApp) -> None:
    """Issue 39, item 9: a raw pydantic message ("Value error, …", a Python list) over a
    list that silently kept the last good filter."""
    async with run_app() as h:
        await h.create("alpha one")
        await h.pilot.press("slash")
        box = h.app.main.query_one("#filter", Input)
        box.value = "status:bogus"
        await h.pilot.pause(0.05)
        error = h.app.main.query_one("#filter-error", Static)
        said = error.render().plain
        assert error.display and "unknown status 'bogus'" in said
        assert "Value error" not in said and "[" not in said and "live" in said
        assert "still" in said  # the list is the last filter that worked
