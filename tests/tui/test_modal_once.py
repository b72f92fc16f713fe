"""A dialog closes once: two closing keys queued together neither call back twice nor pop
the screen under it (before, Enter then Escape on a busy machine crashed the app)."""

from __future__ import annotations

import asyncio

from textual import events
from textual.widgets import Input

from cctui.tui.screens.ask import AskScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.new_session import NewSessionScreen
from tests.tui.conftest import RunApp


def _queue_key(app: object, key: str, character: str | None) -> None:
    """A key into the driver's queue, as a terminal delivers it (not handled yet)."""
    event = events.Key(key, character)
    event.set_sender(app)  # type: ignore[arg-type]
    app._driver.send_message(event)  # type: ignore[attr-defined]


def _top(app: object) -> object:
    """The screen on top, read afresh (not narrowed by an earlier assert)."""
    return app.screen  # type: ignore[attr-defined]


async def test_enter_and_escape_queued_together_leave_the_app_running(run_app: RunApp) -> None:
    """Whichever key is handled first closes the form; the other finds it gone."""
    async with run_app() as h:
        await h.pilot.press("n")
        form = h.app.screen
        assert isinstance(form, NewSessionScreen)
        form.query_one("#prompt", Input).value = "only once"
        form.query_one("#prompt", Input).focus()
        _queue_key(h.app, "enter", "\r")
        _queue_key(h.app, "escape", None)
        _queue_key(h.app, "enter", "\r")
        # Behind the keys in the same queue: once it has run, the app has taken all three
        # (a fixed 0.5 s pause let a key still queued on a loaded machine reach the app as
        # the test closed it: ScreenStackError).
        taken = asyncio.Event()
        callback = events.Callback(callback=taken.set)
        callback.set_sender(h.app)
        h.app._driver.send_message(callback)
        await h.until(taken.is_set)
        await h.until(lambda: isinstance(_top(h.app), MainScreen))
        await h.pilot.pause()  # what the keys set off on the screen's widgets runs out
        assert h.app.is_running
        assert isinstance(h.app.screen, MainScreen)
        assert len(h.manager.list()) <= 1
        # (the form's spare process sent nothing: it is taken, or ended with the form)
        assert [d.sent for d in h.factory.drivers if d.sent] in ([], [["only once"]])


async def test_a_second_close_after_cancel_neither_calls_back_nor_pops(run_app: RunApp) -> None:
    async with run_app() as h:
        results: list[object] = []
        form = NewSessionScreen(cwd=h.project)
        await h.app.push_screen(form, callback=results.append)
        form.query_one("#prompt", Input).value = "never sent"
        form.action_cancel()
        form.action_submit()  # the Enter that was queued behind the Escape
        await h.pilot.pause()
        assert results == [None]
        assert isinstance(h.app.screen, MainScreen) and h.app.is_running

        # A stale close of a dialog that is gone leaves the one now on top alone.
        answers: list[bool | None] = []
        ask = AskScreen("End it?", "The process ends.")
        await h.app.push_screen(ask, callback=answers.append)
        form.dismiss(None)
        await h.pilot.pause()
        assert _top(h.app) is ask
        assert answers == [] and results == [None]
        assert h.manager.list() == []
        ask.dismiss(True)
        ask.dismiss(False)
        await h.pilot.pause()
        assert answers == [True] and isinstance(h.app.screen, MainScreen)


async def test_a_dialog_closed_from_outside_under_another_screen_closes_once(
    run_app: RunApp,
) -> None:
    """An answer from elsewhere withdraws a dialog that something else covers: the cover
    goes, the dialog closes, and its callback runs once."""
    async with run_app() as h:
        answers: list[bool | None] = []
        ask = AskScreen("Allow it?", "Something asks.")
        await h.app.push_screen(ask, callback=answers.append)
        await h.app.push_screen(AskScreen("Over it", "A page on top."))
        ask.dismiss(False)
        ask.dismiss(True)  # a second close before the first is done: ignored
        await h.until(lambda: isinstance(_top(h.app), MainScreen))
        await h.pilot.pause()
        assert answers == [False]
        assert len(h.app.screen_stack) == 1 and h.app.is_running
