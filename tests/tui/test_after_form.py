"""The new-session form's After…: the sessions a new one waits for, typed by id prefix or
ticked in a list, and whether its prompt gets their replies (``core.dispatch``)."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, Select, SelectionList, Static

from cctui.core import SessionStatus
from cctui.tui.messages import OpenSession
from cctui.tui.screens.after_picker import AfterPicker
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.widgets.blocks import Note
from tests.fakes.fake_driver import hold, text
from tests.tui.conftest import RunApp

S = SessionStatus


async def test_after_two_sessions_from_the_form_waits_for_both(run_app: RunApp) -> None:
    # The two it waits for are still working for as long as the test needs them to be
    # (before, a 30 s sleep: run 101 at load 15 took longer to get to the form's end).
    never = asyncio.Event()
    script = {"slow": [hold(never), text("slow done")], "*": [text("done")]}
    async with run_app(script) as h:
        first = await h.create("slow one")
        second = await h.create("slow two")
        await h.pilot.press("n")
        form = h.app.screen
        assert isinstance(form, NewSessionScreen)
        form.query_one("#prompt", Input).value = "Write the release notes"
        await h.pilot.press("ctrl+t")
        await h.until(lambda: isinstance(h.app.screen, AfterPicker))
        picker = h.app.screen
        assert isinstance(picker, AfterPicker)

        # A prefix that names no session is said, and nothing is lost.
        ids = picker.query_one("#ids", Input)
        ids.value = "zzzz"
        ids.focus()
        await h.pilot.press("enter")
        assert "zzzz" in str(picker.query_one("#error", Static).render())
        # One by its id's first characters, the other ticked in the list.
        ids.value = first[:6]
        await h.pilot.press("enter")
        listed = picker.query_one("#sessions", SelectionList)
        assert listed.selected == [first]
        listed.select(second)
        picker.query_one("#results", Select).value = "reply"
        await h.pilot.press("ctrl+s")
        await h.until(lambda: h.app.screen is form)
        note = str(form.query_one("#after-note", Static).render())
        assert note.startswith("waits for 2 sessions") and "final replies" in note

        form.query_one("#prompt", Input).focus()
        await h.pilot.press("enter")
        await h.until(lambda: len(h.manager.list()) == 3)
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        [waiting] = [i for i in h.manager.list() if i.session_id not in (first, second)]
        assert waiting.status == S.QUEUED and waiting.dispatch is not None
        assert set(waiting.dispatch.after) == {first, second}
        assert waiting.dispatch.note == "waits for 2 sessions"
        entry = h.manager.dispatch.queued()[0]
        assert entry.parent_results == "reply"

        # One of them is killed: the waiting session does not start, and its pane says why.
        await h.manager.kill(first)
        await h.until(lambda: h.manager.get(waiting.session_id).status == S.CANCELLED)
        h.app.post_message(OpenSession(waiting.session_id))
        await h.until(lambda: h.app.main.pane.session_id == waiting.session_id)

        def said() -> str:
            return " ".join(str(n.render()) for n in h.app.main.pane.query(Note))

        await h.until(lambda: f"not started: session {first[:8]} was killed" in said())
