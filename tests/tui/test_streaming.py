"""A reply streamed into the transcript draws the same blocks as the whole text drawn at once,
wherever the fragments fall (plain Textual app: the Transcript alone)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from cctui.core import AssistantTextEvent
from cctui.tui.widgets.transcript import Transcript

REPLY = (
    "## Step 1\n\nIntro paragraph.\n\n"
    "```python\ndef parse(raw: str) -> int:\n    return int(raw)\n```\n\n"
    "- keep it pure\n- move the parsing\n\n"
    "```python\ndef two() -> int:\n    return 2\n```\n\n"
    "Closing words.\n"
)


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield Markdown(REPLY, id="whole")


def _shape(blocks: list[MarkdownBlock]) -> list[tuple[str, str]]:
    return [
        (type(b).__name__, b.code if isinstance(b, MarkdownFence) else b._content.plain.strip())
        for b in blocks
    ]


async def _streamed(*cuts: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    app = _Host()
    async with app.run_test(size=(100, 60)) as pilot:
        transcript = app.query_one(Transcript)
        for n in (*cuts, len(REPLY)):
            event = AssistantTextEvent(
                session_id="s", message_id="m", text=REPLY[:n], complete=n == len(REPLY)
            )
            transcript.apply([event])
            await pilot.pause()
            await transcript.settle()
        await pilot.pause()
        drawn = [b for block in transcript.blocks for b in block.query_children(MarkdownBlock)]
        whole = list(app.query_one("#whole", Markdown).query_children(MarkdownBlock))
        return _shape(drawn), _shape(whole)


async def test_a_chunk_first_drawn_up_to_the_middle_of_a_fence_goes_on_as_that_fence() -> None:
    inside_fence = REPLY.index("return int")
    drawn, whole = await _streamed(inside_fence)
    assert drawn == whole


async def test_fragments_cut_anywhere_draw_the_same_blocks() -> None:
    drawn, whole = await _streamed(*range(7, len(REPLY), 23))
    assert drawn == whole


async def test_a_long_reply_keeps_about_one_and_a_half_pane_heights_mounted() -> None:
    from tests.bench.bench_tui import END, reply_markdown

    body = reply_markdown(20)
    app = _Host()
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(Transcript)
        await pilot.pause()
        rows = transcript.size.height
        assert transcript.window() == max(Transcript.MIN_WEIGHT, int(Transcript.SCREENS * rows))
        for n in (len(body) // 3, 2 * len(body) // 3, len(body)):
            event = AssistantTextEvent(
                session_id="s", message_id="m", text=body[:n], complete=n == len(body)
            )
            transcript.apply([event])
            await pilot.pause()
            await transcript.settle()
        blocks = transcript.blocks
        assert transcript.folded > 0
        assert blocks[-1].source.endswith(END)
        # The window, and at most the chunk that crosses it and one trim step more.
        shown = sum(1 + len(b.source) // 40 for b in blocks)
        assert shown <= transcript.window() + Transcript.TRIM_STEP + 1 + 1500 // 40
        # What is mounted fills the pane: the end is on screen with text above it.
        assert shown >= rows
