"""A reply streamed into the transcript is drawn as the whole text would be, wherever the
fragments fall, and a long one keeps only its end mounted (plain Textual app: the
Transcript alone, beside the whole reply drawn at once)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from textual.app import App, ComposeResult
from textual.geometry import Offset, Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from cctui.core import AssistantTextEvent
from cctui.tui.markdown import MarkdownVisual
from cctui.tui.widgets.transcript import Transcript
from tests.tui.conftest import until

REPLY = (
    "## Step 1\n\nIntro paragraph.\n\n"
    "```python\ndef parse(raw: str) -> int:\n    return int(raw)\n```\n\n"
    "- keep it pure\n- move the parsing\n\n"
    "```python\ndef two() -> int:\n    return 2\n```\n\n"
    "Closing words.\n"
)
WIDTH = 60


class _Host(App[None]):
    # No scrollbar gutter: with ``height: auto`` a layout that catches the transcript still
    # at its old height shows a scrollbar for a moment, and every chunk is drawn again at
    # two columns less (seen under load); the width the tests compare at stays one.
    CSS = (
        f"Transcript, #whole {{ width: {WIDTH}; height: auto; }} #whole {{ padding: 0; }} "
        "Transcript { scrollbar-size-vertical: 0; }"
    )

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield Static(MarkdownVisual(REPLY), id="whole")


def _lines(widget: Widget) -> list[str]:
    """What ``widget`` draws, line by line (trailing spaces dropped)."""
    width, height = widget.size
    strips = widget.render_lines(Region(0, 0, width, height))
    return ["".join(segment.text for segment in strip).rstrip() for strip in strips]


def _drawn(transcript: Transcript) -> list[str]:
    """The transcript's chunks as they read on screen: one blank line between chunks (the
    chunk's top margin in the app's stylesheet)."""
    lines: list[str] = []
    for i, block in enumerate(transcript.blocks):
        lines += ([""] if i else []) + _lines(block)
    return lines


@contextlib.asynccontextmanager
async def _pane_of_30_rows() -> AsyncIterator[tuple[Transcript, Pilot[None]]]:
    """A transcript 30 rows high, as in a session pane, following its bottom."""
    app = _Host()
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(Transcript)
        transcript.styles.height = 30
        await pilot.pause()
        yield transcript, pilot


def _reply_so_far(body: str, n: int) -> AssistantTextEvent:
    """Message ``m`` as streamed up to character ``n`` of ``body``."""
    return AssistantTextEvent(
        session_id="s", message_id="m", text=body[:n], complete=n == len(body)
    )


async def _streamed(*cuts: int, chunk_chars: int | None = None) -> tuple[list[str], list[str]]:
    app = _Host()
    async with app.run_test(size=(WIDTH + 10, 80)) as pilot:
        transcript = app.query_one(Transcript)
        for n in (*cuts, len(REPLY)):
            transcript.apply([_reply_so_far(REPLY, n)])
            await pilot.pause()
        await pilot.pause()
        return _drawn(transcript), _lines(app.query_one("#whole"))


async def test_a_chunk_first_drawn_up_to_the_middle_of_a_fence_goes_on_as_that_fence() -> None:
    inside_fence = REPLY.index("return int")
    drawn, whole = await _streamed(inside_fence)
    assert "    return int(raw)" in "\n".join(whole)
    assert drawn == whole


async def test_fragments_cut_anywhere_draw_the_same_lines() -> None:
    drawn, whole = await _streamed(*range(7, len(REPLY), 23))
    assert drawn == whole


async def test_a_reply_cut_into_chunks_reads_as_the_whole_text() -> None:
    from tests.bench.bench_tui import reply_markdown

    body = reply_markdown(4)
    app = _Host()
    async with app.run_test(size=(WIDTH + 10, 400)) as pilot:
        transcript = app.query_one(Transcript)
        whole = app.query_one("#whole", Static)
        whole.update(MarkdownVisual(body))
        for n in range(0, len(body), 997):
            transcript.apply([AssistantTextEvent(session_id="s", message_id="m", text=body[:n])])
            await pilot.pause()
        transcript.apply([AssistantTextEvent(session_id="s", message_id="m", text=body)])
        await pilot.pause()
        assert len(transcript.blocks) > 1  # cut into chunks...
        assert _drawn(transcript) == _lines(whole)  # ...that read as one text


async def test_a_finished_chunk_is_rendered_once_however_often_the_pane_paints() -> None:
    from tests.bench.bench_tui import reply_markdown

    body = reply_markdown(4)  # a few chunks, none folded away
    app = _Host()
    async with app.run_test(size=(WIDTH + 10, 60)) as pilot:
        transcript = app.query_one(Transcript)
        half = len(body) // 2
        transcript.apply([AssistantTextEvent(session_id="s", message_id="m", text=body[:half])])
        await pilot.pause()
        first = transcript.blocks[0]
        visual = first.visual
        assert isinstance(visual, MarkdownVisual)
        renders = visual.renders
        assert renders >= 1
        transcript.apply([AssistantTextEvent(session_id="s", message_id="m", text=body)])
        await pilot.pause()
        transcript.scroll_home(animate=False)
        await pilot.pause()
        transcript.refresh(layout=True)
        await pilot.pause()
        assert transcript.folded == 0 and first in transcript.blocks[:-1]
        assert first.visual is visual and visual.renders == renders


async def test_a_long_reply_keeps_about_one_and_a_half_pane_heights_mounted() -> None:
    from tests.bench.bench_tui import END, reply_markdown

    body = reply_markdown(20)
    async with _pane_of_30_rows() as (transcript, pilot):
        rows = transcript.size.height
        assert transcript.window() == max(Transcript.MIN_WEIGHT, int(Transcript.SCREENS * rows))
        for n in (len(body) // 3, 2 * len(body) // 3, len(body)):
            transcript.apply([_reply_so_far(body, n)])
            await pilot.pause()
        blocks = transcript.blocks
        assert transcript.folded > 0
        assert blocks[-1].text.endswith(END)
        # The window, and at most the chunk that crosses it and one trim step more.
        shown = sum(1 + len(b.text) // 40 for b in blocks)
        assert shown <= transcript.window() + Transcript.TRIM_STEP + 1 + 1500 // 40
        # What is mounted fills the pane: the end is on screen with text above it.
        assert shown >= rows


async def test_a_long_reply_followed_batch_by_batch_reuses_the_chunk_widgets_it_folds() -> None:
    """Following a long reply, each batch folds chunks at the top and adds chunks at the
    end: the folded chunk widgets are moved down and given the new text (a mount per chunk
    would take turns of the loop, with a paint between them), and what is mounted reads, in
    order, as the end of the reply."""
    from tests.bench.bench_tui import END, reply_markdown

    body = reply_markdown(60)
    async with _pane_of_30_rows() as (transcript, pilot):
        made: set[Widget] = set()
        steps = 15
        for k in range(1, steps + 1):
            transcript.apply([_reply_so_far(body, len(body) * k // steps)])
            await pilot.pause()
            made |= set(transcript.blocks)
        blocks = transcript.blocks
        chunks = transcript.folded + len(blocks)
        assert chunks > 3 * len(blocks)  # most of the reply was folded on the way
        assert len(made) <= len(blocks) + 2  # ...by widgets that took the newer text
        drawn = "".join(block.text for block in blocks)
        assert drawn.endswith(END) and body.endswith(drawn)
        assert transcript.text_of("m") == body
        assert _drawn(transcript)[-1].endswith(END.rstrip())


def _widget_at(app: App[None], where: Offset) -> Widget | None:
    """The widget the screen's compositor maps the cell ``where`` to (None: none yet)."""
    return app.screen.get_widget_and_offset_at(where.x, where.y)[0]


async def test_a_reply_s_text_can_be_selected_as_in_textual_s_own_widgets() -> None:
    """Each character drawn carries its place (what the compositor maps a mouse position
    to), the selected span is drawn in the selection style, and the selected text is what
    the screen copies."""
    from textual.selection import Selection

    app = _Host()
    async with app.run_test(size=(WIDTH + 10, 80)) as pilot:
        transcript = app.query_one(Transcript)
        transcript.apply([AssistantTextEvent(session_id="s", message_id="m", text=REPLY)])
        await pilot.pause()
        [block] = transcript.blocks
        # The compositor maps a cell to its widget once the screen is drawn after the block's
        # layout; under load a pause can end before that (a run at load 20 found no widget).
        await until(pilot, lambda: _widget_at(app, block.content_region.offset) is block)
        region = block.content_region
        lines = _lines(block)
        row = lines.index("Intro paragraph.")
        widget, offset = app.screen.get_widget_and_offset_at(region.x + 6, region.y + row)
        assert widget is block and offset == Offset(6, row)

        def intro_style() -> object:
            drawn = block.render_lines(Region(0, row, region.width, 1))[0]
            return next(seg.style for seg in drawn if seg.text.startswith("Intro"))

        plain = intro_style()
        app.screen.selections = {block: Selection(Offset(0, row), Offset(5, row + 2))}
        await pilot.pause()
        assert app.screen.get_selected_text() == "Intro paragraph.\n\n def "
        assert intro_style() != plain  # drawn as selected
