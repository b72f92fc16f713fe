"""A question's answer form (issue 39): Enter in an "Other" box moves on and, on the last
question, sends; ticked options and typed text go together; a tick is a glyph, not a colour."""

from __future__ import annotations

from textual.widgets import Input, RadioButton, SelectionList

from cctui.tui.screens.peek import PeekScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.widgets.ticks import TickBox, TickList
from tests.fakes.fake_driver import question, text, tool
from tests.tui.conftest import Harness, RunApp
from tests.tui.test_pending_inputs import QUESTIONS


async def _modal(h: Harness) -> PendingInputScreen:
    await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
    screen = h.app.screen
    assert isinstance(screen, PendingInputScreen)
    await h.pilot.pause(PendingInputScreen.ARM_DELAY_S + 0.05)
    return screen


async def test_enter_in_other_moves_to_the_next_question_then_sends(run_app: RunApp) -> None:
    async with run_app({"*": [tool("AskUserQuestion", QUESTIONS), text("thanks")]}) as h:
        await h.create("go")
        screen = await _modal(h)
        first, second = list(screen.query(".other").results(Input))
        first.focus()
        await h.pilot.press("t", "o", "x", "enter")
        # The next question has the keyboard, the request is not answered yet.
        assert isinstance(screen.focused, SelectionList)
        assert h.app.screen is screen and not h.factory.drivers[0].answers
        second.focus()
        await h.pilot.press("b", "l", "a", "c", "k", "enter")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answers = (h.factory.drivers[0].answers[0].updated_input or {})["answers"]
        assert answers == {"Which runner?": "tox", "Which checks?": "black"}


async def test_ticked_options_and_typed_text_are_one_answer(run_app: RunApp) -> None:
    async with run_app({"*": [tool("AskUserQuestion", QUESTIONS), text("thanks")]}) as h:
        await h.create("go")
        screen = await _modal(h)
        ticks = screen.query_one(SelectionList)
        ticks.select("ruff")
        ticks.select("snapshots")
        other = list(screen.query(".other").results(Input))[1]
        other.value = "black, with --check"
        screen.query_one(".choices").focus()
        await h.pilot.press("y")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answers = (h.factory.drivers[0].answers[0].updated_input or {})["answers"]
        # The CLI gets the labels and the free text, as Claude Code's own form sends them.
        assert answers["Which checks?"] == "ruff, snapshots, black, with --check"
        assert answers["Which runner?"] == "pytest"


async def test_a_tick_and_a_chosen_radio_show_a_glyph_not_only_a_colour(
    run_app: RunApp,
) -> None:
    async with run_app({"*": [tool("AskUserQuestion", QUESTIONS), text("thanks")]}) as h:
        await h.create("go")
        screen = await _modal(h)
        ticks = screen.query_one(TickList)
        ticks.select("mypy")
        await h.pilot.pause()
        lines = [ticks.render_line(y).text for y in range(3)]
        assert "✓" not in lines[0] and "ruff" in lines[0]
        assert "✓" in lines[1] and "mypy" in lines[1]
        buttons = list(screen.query(RadioButton))
        assert buttons[0].value and not buttons[1].value
        assert "●" in buttons[0].render().plain and "●" not in buttons[1].render().plain


LONG = "pytest -q tests/core -k 'flaky or race' --count 50 " * 12


async def test_the_key_line_stays_on_screen_at_80x24(run_app: RunApp) -> None:
    """A question's two blocks or a long command scroll inside the modal; its keys stay."""
    steps = [tool("AskUserQuestion", QUESTIONS), tool("Bash", {"command": LONG}), text("ok")]
    async with run_app({"*": steps}) as h:
        await h.pilot.resize_terminal(80, 24)
        await h.create("go")
        for _ in range(2):
            screen = await _modal(h)
            await h.pilot.pause(0.1)
            keys = screen.query_one("#keys")
            assert keys.region.height >= 1
            assert keys.region.bottom <= 24 - 1, (keys.region, screen.query_one("#body").region)
            assert keys.region.bottom <= screen.query_one("#dialog").region.bottom
            if screen.pending.kind == "user_question":
                screen.query_one(TickList).select("ruff")
                screen.query_one(".choices").focus()
                await h.pilot.press("y")
            else:
                await h.pilot.press("n", "enter")
            await h.until(lambda s=screen: h.app.screen is not s)


async def test_the_forms_worktree_box_shows_a_tick_when_on(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("n")
        await h.until(lambda: bool(h.app.screen.query("#worktree")))
        box = h.app.screen.query_one("#worktree", TickBox)
        assert "✓" not in box.render().plain
        box.value = True
        await h.pilot.pause()
        assert "✓" in box.render().plain


async def test_enter_in_a_peeked_questions_other_line_sends_it(run_app: RunApp) -> None:
    """In the peek, enter is the request's "full view" key: in the Other line it sends."""
    async with run_app({"*": [question("Which color?", ["Red", "Blue"]), text("ok")]}) as h:
        session_id = await h.create("go")
        await _modal(h)
        await h.pilot.press("escape")
        main = h.app.main
        main.sessions.select(session_id)
        main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        peek = h.app.screen
        await h.until(lambda: bool(peek.query(".other")))
        peek.query_one(".other", Input).focus()
        await h.pilot.press(*"Green", "enter")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answers = (h.factory.drivers[0].answers[0].updated_input or {})["answers"]
        assert answers == {"Which color?": "Green"}
        assert not any(isinstance(s, PendingInputScreen) for s in h.app.screen_stack)
