"""A hundred sessions (issue 39): "finished, not seen" rows, the keys to the next session that
needs you (``]`` this project, ``}`` every project), rows that stay where they are (grouped by
project, state a column), and archiving (``e``; ``status:archived`` lists them)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, Static

from cctui.core import SessionConfig
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.peek import PeekAsk, PeekScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from tests.fakes.fake_driver import DEFAULT_SCRIPT, question, sleep, text
from tests.tui.conftest import Harness, RunApp, raised

SCRIPT = {**DEFAULT_SCRIPT, "*": [sleep(0.2), text("done")]}
"""Every turn takes a moment: the list sees it run before it ends."""


async def _later_all(h: Harness) -> None:
    """Put every popped approval modal back in the inbox (``esc``: later)."""
    for _ in range(20):
        await h.pilot.pause(0.05)
        if isinstance(h.app.screen, PendingInputScreen):
            await h.pilot.press("escape")
        elif isinstance(h.app.screen, MainScreen):
            return


async def _start(h: Harness, prompt: str, cwd: Path | None = None) -> str:
    """A session started through the core (the pane is not moved to it)."""
    info = await h.manager.create(prompt, SessionConfig(cwd=cwd or h.project))
    return info.session_id


def _status(h: Harness, session_id: str) -> str:
    return str(h.app.main.sessions.get_cell(session_id, "status"))


async def test_a_turn_that_ends_off_screen_reads_finished_until_looked_at(
    run_app: RunApp,
) -> None:
    async with run_app(SCRIPT) as h:
        first = await h.create("hello there")
        main = h.app.main
        await h.until(lambda: main.pane.session_id == first)  # the cursor's row is previewed
        other = await _start(h, "another one")
        await h.settle(other)
        await h.until(lambda: "finished" in _status(h, other))
        row = main.sessions.row(other)
        assert row is not None and row.unseen
        # The one on screen finished in view: it is plain idle.
        assert "idle" in _status(h, first)
        assert h.manager.get(first).status.value == "idle"
        # A new turn clears the bit; it comes back when that turn ends unseen too.
        main.sessions.focus()
        await h.pilot.press("right_square_bracket")
        await h.until(lambda: main.pane.session_id == other)
        await h.until(lambda: "idle" in _status(h, other))
        assert main.sessions.selected_id == other
        # Nothing else needs the person now.
        await h.pilot.press("right_square_bracket")
        await h.pilot.pause(0.05)
        assert any("Nothing else needs you" in note.message for note in raised(h.app))


async def test_waiting_comes_before_finished_and_the_key_goes_round(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        main = h.app.main
        first = await h.create("hello")
        await h.until(lambda: main.pane.session_id == first)
        done = await _start(h, "quick one")
        await h.settle(done)
        asking = await _start(h, "please bash")
        await h.settle(asking)
        await _later_all(h)
        await h.until(lambda: "finished" in _status(h, done))
        main.sessions.focus()
        await h.pilot.press("right_curly_bracket")
        await h.until(lambda: main.sessions.selected_id == asking)  # waiting first
        await h.pilot.press("right_curly_bracket")
        await h.until(lambda: main.sessions.selected_id == done)  # then finished
        await h.pilot.press("right_curly_bracket")
        await h.until(lambda: main.sessions.selected_id == asking)  # round again
        assert "finished" not in _status(h, done)  # it was looked at


async def test_the_project_key_stays_in_the_project_the_other_goes_anywhere(
    run_app: RunApp, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with run_app(SCRIPT) as h:
        main = h.app.main
        first = await h.create("hello")
        await h.until(lambda: main.pane.session_id == first)
        away = await _start(h, "please bash", cwd=elsewhere)
        await h.settle(away)
        await _later_all(h)
        main.sessions.focus()
        await h.pilot.press("right_square_bracket")
        await h.pilot.pause(0.1)
        assert main.sessions.selected_id == first
        assert any("in this project" in note.message for note in raised(h.app))
        await h.pilot.press("right_curly_bracket")
        await h.until(lambda: main.sessions.selected_id == away)


async def test_a_peek_clears_finished(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        main = h.app.main
        first = await h.create("hello")
        await h.until(lambda: main.pane.session_id == first)
        other = await _start(h, "another")
        await h.settle(other)
        await h.until(lambda: "finished" in _status(h, other))
        # The cursor goes there and the peek opens before the pane follows the cursor.
        main.sessions.select(other)
        main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        row = main.sessions.row(other)
        assert row is not None and not row.unseen


async def test_rows_stay_put_grouped_by_project(run_app: RunApp, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with run_app(SCRIPT) as h:
        main = h.app.main
        a = await h.create("one")
        b = await _start(h, "two", cwd=elsewhere)
        await h.settle(b)
        c = await _start(h, "three")
        await h.settle(c)
        await h.pilot.pause(0.1)
        # proj (newest started: c) first, its sessions together; then elsewhere.
        assert main.sessions.shown == [c, a, b]
        # Activity in an old session does not move it (it used to go to the top).
        await h.manager.send(b, "more")
        await h.settle(b)
        await h.manager.send(a, "more")
        await h.settle(a)
        await h.pilot.pause(0.1)
        assert main.sessions.shown == [c, a, b]
        # A new session in elsewhere brings its group to the top, with it first.
        d = await _start(h, "four", cwd=elsewhere)
        await h.settle(d)
        await h.pilot.pause(0.1)
        assert main.sessions.shown == [d, b, c, a]
        heads = {sid for sid in main.sessions.shown if main.sessions._plain[sid][1]}
        bold = [sid for sid in heads if "bold" in main.sessions._plain[sid][1]]
        assert sorted(bold) == sorted([d, c])


async def test_e_archives_without_deleting_and_status_archived_lists_it(
    run_app: RunApp,
) -> None:
    async with run_app(SCRIPT) as h:
        main = h.app.main
        keep = await h.create("keep me")
        hide = await _start(h, "hide me")
        await h.settle(hide)
        await h.pilot.pause(0.1)
        main.sessions.select(hide)
        main.sessions.focus()
        await h.pilot.press("e")
        await h.until(lambda: hide not in main.sessions.shown)
        assert keep in main.sessions.shown
        stored = json.loads(h.app.source.archive.path.read_text())
        assert stored == {"archived": [hide]}
        assert h.manager.get(hide).session_id == hide  # nothing deleted
        main.set_filter("status:archived")
        await h.until(lambda: main.sessions.shown == [hide])
        main.sessions.select(hide)
        await h.pilot.press("e")
        await h.until(lambda: main.sessions.shown == [])
        main.set_filter("")
        await h.until(lambda: set(main.sessions.shown) == {keep, hide})
        assert json.loads(h.app.source.archive.path.read_text()) == {"archived": []}


async def test_the_pane_follows_the_cursor_when_the_row_under_it_goes(run_app: RunApp) -> None:
    """Found walking the README: ``e`` on the top row archived it, the cursor stayed at the
    top (now the next session's row) and the pane went on showing the archived session: the
    table announces a highlight only when the cursor moves, not when its row changes."""
    async with run_app(SCRIPT) as h:
        main = h.app.main
        below = await _start(h, "stays")
        await h.settle(below)
        top = await _start(h, "archived")
        await h.settle(top)
        await h.pilot.pause(0.1)
        assert main.sessions.shown[0] == top
        main.sessions.select(top)
        main.sessions.focus()
        await h.until(lambda: main.pane.session_id == top)
        await h.pilot.press("e")
        await h.until(lambda: top not in main.sessions.shown)
        assert main.sessions.cursor_row == 0 and main.sessions.selected_id == below
        await h.until(lambda: main.pane.session_id == below)
        # A filter that hides the shown session does the same.
        main.set_filter("status:archived")
        await h.until(lambda: main.sessions.shown == [top])
        await h.until(lambda: main.pane.session_id == top)


async def test_the_session_in_the_pane_is_seen_again_when_a_page_over_it_closes(
    run_app: RunApp,
) -> None:
    """Found walking the README: a question answered from the inbox, the turn ends while the
    inbox still covers the pane (finished unseen, rightly), and after ``esc`` the session is
    in the pane under the cursor yet still read "finished" (until another key moved on)."""
    script = {"*": [question("Which color?", ["Red", "Blue"]), sleep(0.3), text("ok")]}
    async with run_app(script) as h:
        main = h.app.main
        session_id = await h.create("go")
        await _later_all(h)
        await h.until(lambda: main.pane.session_id == session_id)
        main.sessions.focus()
        await h.pilot.press("a")
        await h.until(lambda: isinstance(h.app.screen, InboxScreen))
        await h.pilot.press("enter")
        await _modal(h)
        await h.pilot.press("2")
        await h.settle(session_id)
        # Its transcript grew meanwhile (the history index's change redraws its row, as it
        # did under the real claude): under the inbox the turn ended unseen.
        main.reload()
        assert "finished" in _status(h, session_id)
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        await h.pilot.pause(0.2)
        assert "finished" not in _status(h, session_id), _status(h, session_id)
        row = main.sessions.row(session_id)
        assert row is not None and not row.unseen and main.pane.session_id == session_id


# -- number keys, and typing at a peek ------------------------------------------------------


async def _modal(h: Harness) -> PendingInputScreen:
    await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
    screen = h.app.screen
    assert isinstance(screen, PendingInputScreen)
    return screen


async def test_number_keys_answer_an_approval_in_claude_codes_order(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("please bash")
        await _modal(h)
        await h.pilot.press("3")  # Claude Code's "3. No": asks for a reason, as n does
        await h.pilot.press("enter")
        await h.settle(session_id)
        assert not h.factory.drivers[0].answers[0].allow
        await h.manager.send(session_id, "please bash again")
        await h.settle(session_id)
        await _modal(h)
        await h.pilot.press("2")  # "2. Yes, and don't ask again"
        await h.settle(session_id)
        answer = h.factory.drivers[0].answers[-1]
        assert answer.allow and answer.always


async def test_a_number_picks_a_questions_option_and_answers_it(run_app: RunApp) -> None:
    """...and the keys say so: "1-9 choose · y send answers" had a person press 2 then y,
    and the y, the modal gone, landed on the message line (found walking the README)."""
    script = {"*": [question("Which color?", ["Red", "Blue", "Green"]), text("ok")]}
    async with run_app(script) as h:
        session_id = await h.create("go")
        await _modal(h)
        modal = h.app.screen
        assert isinstance(modal, PendingInputScreen)
        keys = str(getattr(modal.query_one("#keys", Static).render(), "plain", ""))
        assert "1-9  answer" in keys and "send" not in keys
        await h.pilot.press("2")
        await h.settle(session_id)
        answer = h.factory.drivers[0].answers[0]
        assert answer.updated_input is not None
        assert answer.updated_input["answers"] == {"Which color?": "Blue"}


async def test_typing_at_a_peeked_request_starts_a_reply_not_an_answer(run_app: RunApp) -> None:
    async with run_app() as h:
        main = h.app.main
        session_id = await h.create("please bash")
        await _later_all(h)
        main.sessions.select(session_id)
        main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        peek = h.app.screen
        assert isinstance(peek, PeekScreen)
        await h.until(lambda: bool(peek.query(PeekAsk)) and peek.query_one(PeekAsk).has_focus)
        await h.pilot.press(*"what is it")
        line = peek.query_one("#reply-line", Input)
        assert line.has_focus and line.value == "what is it"
        assert h.factory.drivers[0].answers == []  # no key answered the request
        assert h.manager.pending()  # it still waits
        # Its own keys still answer it: back to the request, 1 allows.
        peek.query_one(PeekAsk).focus()
        await h.pilot.press("1")
        await h.settle(session_id)
        assert h.factory.drivers[0].answers[0].allow


async def test_at_80x24_the_peek_keeps_its_reply_line_and_keys_on_screen(
    run_app: RunApp,
) -> None:
    """Found walking the README at 80x24: a peeked question pushed the reply line and the
    peek's keys below the dialog's edge, so a reply (a letter typed at the request moves
    there) was typed where nobody could see it."""
    script = {"*": [question("Which color do you prefer?", ["Red", "Blue"]), text("ok")]}
    async with run_app(script) as h:
        main = h.app.main
        await h.pilot.resize_terminal(80, 24)
        session_id = await h.create("go")
        await _later_all(h)
        main.sessions.select(session_id)
        main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        peek = h.app.screen
        assert isinstance(peek, PeekScreen)
        await h.until(lambda: bool(peek.query(PeekAsk)))
        await h.pilot.pause(0.3)
        dialog = peek.query_one("#dialog").region
        for part in ("#reply-line", "#keys", "PeekAsk"):
            region = peek.query_one(part).region
            assert region.height >= 1 and region.bottom <= dialog.bottom - 1, (part, region, dialog)
            assert dialog.bottom <= 24
        await h.pilot.press("h", "i")
        line = peek.query_one("#reply-line", Input)
        assert line.has_focus and line.value == "hi"


async def test_a_bash_requests_description_is_shown_once(run_app: RunApp) -> None:
    """The CLI sends a Bash call's own ``description`` as the request's too: the modal and
    the peek drew it twice, one line under the other (found walking the README)."""

    def said(screen: object) -> str:
        statics = h.app.screen.query(Static)
        return "\n".join(str(getattr(s.render(), "plain", "")) for s in statics)

    async with run_app() as h:
        main = h.app.main
        session_id = await h.create("please bash")
        modal = await _modal(h)
        await h.pilot.pause(0.1)
        assert said(modal).count("Say hi") == 1 and "echo hi" in said(modal)
        await _later_all(h)
        main.sessions.select(session_id)
        main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        await h.pilot.pause(0.1)
        assert said(h.app.screen).count("Say hi") == 1 and "echo hi" in said(h.app.screen)
