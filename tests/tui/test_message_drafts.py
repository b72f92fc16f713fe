"""A draft on the message line belongs to the session it was typed for.

Found walking the README at 80x24: a word typed under one session was still on the line
under the next one opened, where Enter would have sent it to the wrong session.
"""

from __future__ import annotations

from textual.widgets import Input

from tests.tui.conftest import Harness, RunApp


def _said(h: Harness, session_id: str, words: str) -> bool:
    """``words`` reached ``session_id`` (an event of it carries them)."""
    return any(words in repr(e) for e in h.manager.events(session_id).events)


async def test_a_draft_stays_with_its_session_and_never_reaches_another(run_app: RunApp) -> None:
    async with run_app() as h:
        first = await h.create("hello first")
        second = await h.create("hello second")
        main = h.app.main
        line = main.query_one("#message", Input)
        main.open_session(first)
        await h.pilot.pause(0.05)
        line.focus()
        await h.pilot.press(*"half a thought")
        assert line.value == "half a thought"

        main.open_session(second)
        await h.pilot.pause(0.05)
        assert line.value == ""  # not the first session's words
        line.focus()
        await h.pilot.press("enter")  # an empty line sends nothing to anyone
        await h.pilot.pause(0.1)
        assert not _said(h, second, "half a thought")

        main.open_session(first)
        await h.pilot.pause(0.05)
        assert line.value == "half a thought"  # kept for its own session
        await h.pilot.press("enter")
        await h.until(lambda: _said(h, first, "half a thought"))
        assert line.value == ""
        assert not _said(h, second, "half a thought")
