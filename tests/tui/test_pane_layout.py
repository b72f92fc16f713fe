"""The session pane stays the same size while output streams: its header is two lines
whatever they hold, and the transcript keeps its scrollbar's column, so a batch of output
repaints what changed instead of measuring and rendering the reply again."""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget

from cctui.core import SessionConfig
from cctui.tui.markdown import MarkdownView
from cctui.tui.widgets.transcript import Transcript
from tests.fakes.fake_driver import text
from tests.tui.conftest import Harness, RunApp

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
