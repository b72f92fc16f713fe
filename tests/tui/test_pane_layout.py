"""The session pane: it stays the same size while output streams (its header is two lines
whatever they hold, and the transcript keeps its scrollbar's column, so a batch of output
repaints what changed instead of measuring and rendering the reply again), and a session
with a past before cctui offers that past."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget

from cctui.core import AssistantTextEvent, SessionConfig
from cctui.history import TranscriptPage, aread_transcript
from cctui.tui.markdown import MarkdownView
from cctui.tui.widgets import session_pane
from cctui.tui.widgets.blocks import UserBlock
from cctui.tui.widgets.session_pane import LoadEarlier
from cctui.tui.widgets.transcript import Note, Transcript
from tests.fakes.fake_driver import text
from tests.tui.conftest import Calls, Harness, RunApp

PARAGRAPHS = "\n\n".join(f"Paragraph {i}: " + "words that fill a line " * 4 for i in range(40))


def _rows(widget: Widget) -> list[str]:
    """What ``widget`` shows inside its border, one string per row."""
    width, height = widget.outer_size.width, widget.size.height
    return [strip.text.strip() for strip in widget.render_lines(Region(0, 0, width, height))]


async def _opened(h: Harness, prompt: str) -> str:
    session_id = await h.create(prompt)
    h.app.main.open_session(session_id)
    await h.app.settle()
    return session_id


async def test_a_long_reply_is_rendered_once_though_it_overflows_the_pane(
    run_app: RunApp,
) -> None:
    async with run_app({"*": [text(PARAGRAPHS, chunk=400)]}) as h:
        await _opened(h, "write a lot")
        transcript = h.app.main.pane.query_one(Transcript)
        await h.until(lambda: transcript.max_scroll_y > 0)
        await h.app.settle()
        views = list(transcript.query(MarkdownView))
        assert views, "the reply is on screen"
        # The scrollbar appeared once the reply overflowed; had it taken a column from the
        # chunks, each would have been rendered again at the narrower width.
        assert [view._markdown.renders for view in views] == [1] * len(views)


async def test_the_header_keeps_two_lines_and_puts_what_changes_before_the_path(
    run_app: RunApp,
) -> None:
    async with run_app({"*": [text("done")]}) as h:
        deep = h.project / ("a-directory-with-a-long-name/" * 6) / "app"
        deep.mkdir(parents=True)
        info = await h.manager.create("hi", SessionConfig(cwd=deep))
        await h.settle(info.session_id)
        h.app.main.open_session(info.session_id)
        await h.app.settle()
        header = h.app.main.pane.query_one("#pane-header")
        rows = _rows(header)
        assert len(rows) == 2 and header.outer_size.height == 3  # two lines and the rule
        assert "$0." in rows[1]  # the cost, before the path that runs out of room
        assert rows[1].endswith("…") and str(deep)[:3] in rows[1]


PAST = "6a0b3c2d-1111-4222-8333-444455556666"


def _past_session(h: Harness) -> str:
    """A session known only from its transcript: one question asked two days ago."""
    began = datetime.now(UTC) - timedelta(days=2)
    folder = h.app.settings.claude_config_dir / "projects" / "-proj"
    folder.mkdir(parents=True)
    entry = {
        "type": "user",
        "uuid": "u1",
        "sessionId": PAST,
        "cwd": str(h.project),
        "timestamp": began.isoformat(),
        "message": {"role": "user", "content": "the first question"},
    }
    (folder / f"{PAST}.jsonl").write_text(json.dumps(entry) + "\n")
    return PAST


async def test_a_past_session_resumed_from_cctui_offers_its_earlier_conversation(
    run_app: RunApp,
) -> None:
    """A session known only from its transcript, resumed by a message: the pane shows the
    new output and a line that loads the conversation from before it (the session began
    days ago, not when cctui took it on)."""
    async with run_app({"*": [text("picked up where we left off")]}) as h:
        sid = _past_session(h)
        await h.manager.send(sid, "go on")
        await h.settle(sid)
        # The list's cursor may have landed on the new row and previewed it from its
        # transcript meanwhile (that draws the past itself); come to it from elsewhere.
        h.app.main.pane.show(None)
        h.app.main.open_session(sid)
        await h.app.settle()
        pane = h.app.main.pane
        await h.until(lambda: bool(pane.query(LoadEarlier)))
        # Once the view shown before is removed (a removal takes a turn of the loop).
        reply = ["picked up where we left off"]
        await h.until(lambda: [view.text for view in pane.query(MarkdownView)] == reply)


async def test_a_new_session_whose_process_started_slowly_has_no_earlier_conversation(
    run_app: RunApp,
) -> None:
    """A session cctui started has all its output in its events, however long its process
    took to start. (The pane used to guess a resume from a first event more than 5 s after
    the session was created: under load a new session's spawn took that long, and it got a
    "▲ earlier conversation" line over its prompt; the core now says so itself.)"""
    async with run_app({"*": [text("a first reply")]}) as h:
        sid = await h.create("hi")
        await h.settle(sid)
        session = h.manager._sessions.get(sid)  # its events came a minute after it was made
        session.created_at -= timedelta(minutes=1)
        assert not h.manager.get(sid).has_past
        h.app.main.pane.show(None)
        h.app.main.open_session(sid)
        await h.app.settle()
        pane = h.app.main.pane
        await h.until(lambda: [view.text for view in pane.query(MarkdownView)] == ["a first reply"])
        assert not pane.query(LoadEarlier)


async def test_a_reply_that_grows_is_laid_out_once(run_app: RunApp) -> None:
    """A batch that lengthens the reply on screen: the layout that places the longer text
    also scrolls to it, and no second pass follows because the chunk and the transcript
    grew (Textual's own reaction to a new size)."""
    async with run_app({"*": [text("a first reply")]}) as h:
        sid = await _opened(h, "hi")
        transcript = h.app.main.pane.query_one(Transcript)

        def grown_to(n: int) -> AssistantTextEvent:
            return AssistantTextEvent(session_id=sid, message_id="later", text=PARAGRAPHS[:n])

        transcript.apply([grown_to(1000)])  # more than the pane shows
        await h.until(lambda: bool(transcript.vertical_scrollbar.outer_size))
        await h.app.settle()
        block = transcript.blocks[-1]
        layouts = Calls(h.app.screen, "_refresh_layout")
        scrolled = transcript.max_scroll_y
        transcript.apply([grown_to(1400)])  # under a chunk: the same widget, taller
        await h.until(lambda: transcript.max_scroll_y > scrolled)
        await h.app.settle()
        assert transcript.blocks[-1] is block and block.text == PARAGRAPHS[:1400]
        assert transcript.scroll_y == transcript.max_scroll_y  # followed to the end
        assert layouts.count == 1


async def test_a_new_line_asks_for_no_layout_of_its_own(
    run_app: RunApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-line note (a status change, an error; a turn's result line is the same kind):
    the layout that places it is enough, where Textual would ask for another one for the
    line's first size."""
    asked: list[Widget] = []
    refresh = Widget.refresh

    def noted(self: Widget, *regions: Region, **kwargs: bool) -> Widget:
        if kwargs.get("layout") and isinstance(self, Note):
            asked.append(self)
        return refresh(self, *regions, **kwargs)

    async with run_app({"*": [text(PARAGRAPHS[:1000])]}) as h:
        await _opened(h, "hi")
        transcript = h.app.main.pane.query_one(Transcript)
        await h.app.settle()
        monkeypatch.setattr(Widget, "refresh", noted)
        transcript.note("mode: plan")
        await h.until(lambda: bool(transcript.query(Note)) and transcript.query_one(Note).region)
        await h.app.settle()
        note = transcript.query_one(Note)
        assert transcript.children[-1] is note and note.outer_size.height == 1
        assert note.region.bottom == transcript.content_region.bottom  # followed
        assert asked == []


async def test_a_resized_transcript_still_shows_the_end(run_app: RunApp) -> None:
    """A new size of the transcript itself, taller or shorter: the one layout that sizes it
    also scrolls an anchored view to the end of the new height."""
    async with run_app({"*": [text(PARAGRAPHS, chunk=400)]}) as h:
        await _opened(h, "write a lot")
        transcript = h.app.main.pane.query_one(Transcript)
        await h.until(lambda: transcript.max_scroll_y > 0)
        for size in ((100, 20), (140, 44), (90, 30)):
            await h.pilot.resize_terminal(*size)
            await h.app.settle()
            await h.until(lambda: transcript.outer_size.height > 0)
            assert transcript.max_scroll_y > 0
            assert transcript.scroll_y == transcript.max_scroll_y, size


async def test_streamed_output_does_not_repaint_the_list_column(run_app: RunApp) -> None:
    """Each batch of output notes the sessions that changed; the list column's title (how
    many sessions) is set again only when it reads differently, since setting it repaints
    the whole column."""
    async with run_app({"*": [text(PARAGRAPHS, chunk=300, delay=0.02)]}) as h:
        sid = await _opened(h, "write a lot")
        left = h.app.main.query_one("#left")
        title = left.border_title
        repaints = Calls(left, "refresh")
        await h.settle(sid)
        await h.app.settle()
        transcript = h.app.main.pane.query_one(Transcript)
        assert "Paragraph 39" in transcript.blocks[-1].text  # it streamed meanwhile
        assert left.border_title == title and repaints.count == 0


async def test_a_page_read_for_the_view_before_is_not_drawn_into_the_session_shown_again(
    run_app: RunApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A past session previewed (its transcript page still being read), then resumed and
    shown afresh: the page asked for by the preview belongs to the view that is gone."""
    async with run_app({"*": [text("picked up where we left off")]}) as h:
        sid = _past_session(h)
        gate = asyncio.Event()

        async def held(*args: Any, **kwargs: Any) -> TranscriptPage:
            await gate.wait()
            return await aread_transcript(*args, **kwargs)

        monkeypatch.setattr(session_pane, "aread_transcript", held)
        await h.until(lambda: h.app.main.sessions.row(sid) is not None)
        pane = h.app.main.pane
        h.app.main.open_session(sid)  # its page waits at the gate
        await h.app.settle()
        await h.manager.send(sid, "go on")
        await h.settle(sid)
        pane.show(None)
        h.app.main.open_session(sid)
        await h.until(lambda: bool(pane.query(LoadEarlier)))
        gate.set()
        await h.pilot.pause(0.3)
        await h.app.settle()
        # The new view still offers the past; the preview's page drew nothing into it.
        assert pane.query(LoadEarlier)
        shown = [str(block.render()) for block in pane.query(UserBlock)]
        assert not [line for line in shown if "the first question" in line]
