"""Enter in the new-session form shows the new session in the pane at once: its prompt and
that claude is starting, while its process starts (half a second, a new worktree longer);
then the session itself; and, when it never starts, the session shown before."""

from __future__ import annotations

import asyncio

from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input

from cctui.errors import CliNotFound
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.widgets.session_pane import MessageInput
from cctui.tui.widgets.transcript import Note, UserBlock
from tests.fakes.fake_driver import text
from tests.tui.conftest import Harness, RunApp, raised

PROMPT = "Add a --json flag to cctui sessions"


def _shown(widget: Widget) -> str:
    """What ``widget`` draws, its lines joined."""
    width, height = widget.outer_size.width, widget.size.height
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(strip.text.rstrip() for strip in lines)


async def _send_form(h: Harness) -> None:
    await h.pilot.press("n")
    form = h.app.screen
    assert isinstance(form, NewSessionScreen)
    form.query_one("#prompt", Input).value = PROMPT
    await h.pilot.press("enter")
    await h.pilot.pause()


async def test_the_pane_shows_the_new_session_while_its_process_starts(
    run_app: RunApp,
) -> None:
    async with run_app({"*": [text("done")]}) as h:
        earlier = await h.create("the earlier session")
        h.app.main.open_session(earlier)
        await h.app.settle()
        gate = h.factory.connect_gate = asyncio.Event()  # it starts when the test has looked

        await _send_form(h)
        pane = h.app.main.pane
        assert pane.starting and pane.session_id is None
        header = _shown(pane.query_one("#pane-header"))
        assert "starting" in header and PROMPT in header and f"{h.project.name} · " in header
        (prompt,) = pane.query(UserBlock)
        assert PROMPT in _shown(prompt)
        assert any("starting claude in" in _shown(n) for n in pane.query(Note))
        assert "the earlier session" not in _shown(pane)
        # A key for "this session" (kill, interrupt) acts on none until it exists, not on
        # the session still under the list's cursor.
        assert h.app.main.current_session_id is None
        # Listed while its process connects: the cursor goes to its row, the pane stays.
        sessions = h.app.main.sessions
        await h.until(lambda: sessions.selected_id not in (None, earlier))
        row = sessions.row(sessions.selected_id or "")
        assert row is not None and row.title == PROMPT and row.status == "starting"
        await h.app.settle()
        assert pane.starting and pane.session_id is None and not h.factory.drivers[-1].connected
        # Such a key says why it does nothing yet (found walking the README: `i` on the
        # session just sent said "Select a session first." with that session on screen).
        h.app.main.sessions.focus()
        await h.pilot.press("i")
        await h.until(lambda: any("still starting" in n.message for n in raised(h.app)))
        assert not any("Select a session" in n.message for n in raised(h.app))
        assert pane.starting

        gate.set()
        await h.until(lambda: pane.session_id is not None)
        started = pane.session_id
        assert started != earlier and not pane.starting
        assert h.app.main.sessions.selected_id == started
        await h.settle(started)
        (prompt,) = pane.query(UserBlock)  # drawn again from the session, once
        assert PROMPT in _shown(prompt)
        assert "starting claude" not in _shown(pane)


async def test_a_session_that_does_not_start_gives_the_pane_back(run_app: RunApp) -> None:
    async with run_app({"*": [text("done")]}) as h:
        earlier = await h.create("the earlier session")
        h.app.main.open_session(earlier)
        await h.app.settle()
        gate = h.factory.connect_gate = asyncio.Event()
        h.factory.connect_error = CliNotFound("claude did not start: it exited with 1")

        await _send_form(h)
        pane = h.app.main.pane
        assert pane.starting
        gate.set()
        await h.until(lambda: not pane.starting)
        assert pane.session_id == earlier
        # Its row, listed while it tried, is gone with it; the cursor is back where it was.
        sessions = h.app.main.sessions
        assert sessions.shown == [earlier] and sessions.selected_id == earlier
        await h.until(lambda: sessions.has_focus)  # not the earlier session's message line
        assert "the earlier session" in _shown(pane.query_one("#pane-header"))
        await h.until(lambda: bool(raised(h.app)))
        (note,) = raised(h.app)
        assert note.title == "Could not start the session"
        assert "it exited with 1" in note.message


async def test_after_the_form_the_keyboard_is_on_the_message_line(run_app: RunApp) -> None:
    """Issue 39, item 2: a follow-up typed after the form's enter is a message, not keys
    (``w`` once forked the session into a worktree, ``k`` killed it)."""
    async with run_app({"*": [text("done")]}) as h:
        await _send_form(h)
        await h.pilot.press("w", "k", "space")
        message = h.app.main.query_one(MessageInput)
        assert message.has_focus and message.value == "wk "
        pane = h.app.main.pane
        await h.until(lambda: pane.session_id is not None)
        started = pane.session_id
        assert started is not None
        await h.settle(started)
        assert message.has_focus  # the session showing up does not take the keyboard away
        await h.pilot.press("enter")
        await h.until(lambda: len(h.factory.drivers[-1].sent) == 2)
        assert h.factory.drivers[-1].sent[-1] == "wk"
        assert len(h.factory.drivers) == 1 and h.manager.get(started).status != "dead"
