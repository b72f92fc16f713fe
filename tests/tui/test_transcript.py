"""A long assistant reply is drawn as several markdown chunks that look like one document."""

from __future__ import annotations

from textual.widgets.markdown import MarkdownBlock

from cctui.tui.widgets.transcript import (
    AssistantBlock,
    AssistantChunk,
    Transcript,
    split_chunks,
    split_points,
)
from tests.fakes.fake_driver import text
from tests.tui.conftest import RunApp

FENCE = "```python\ndef f():\n\n    return 1\n\n\nprint(f())\n```\n\n"
SECTION = (
    "## Heading {n}\n\n"
    + "A paragraph of prose that goes on for a while, with `code` and **bold**. " * 6
    + "\n\n- one\n- two\n\n  still the second item\n\n"
    + FENCE
    + "> a quote\n\n"
    + "Closing words of section {n}.\n\n"
)
REPLY = "".join(SECTION.format(n=n) for n in range(20)).rstrip() + "\n"


def _fences_whole(piece: str) -> bool:
    return sum(line.startswith("```") for line in piece.splitlines()) % 2 == 0


def test_split_points_are_outside_fences_and_between_blocks() -> None:
    points = split_points(REPLY)
    assert points
    for point in points:
        assert _fences_whole(REPLY[:point])
        assert REPLY[point - 2 : point] == "\n\n"
    pieces = split_chunks(REPLY, 1000)
    assert len(pieces) > 3
    assert "".join(pieces) == REPLY
    assert all(_fences_whole(piece) for piece in pieces)
    assert split_chunks(FENCE * 200, 1000) == [FENCE * 200]  # cut only before prose or lists
    one_block = "```\n" + "x\n\n" * 2000 + "```\n"
    assert split_points(one_block) == []


def _layout(block: AssistantBlock) -> list[tuple[str, int, int]]:
    """Each markdown block's kind, top row and height, relative to the message."""
    rows = []
    for chunk in block.query_children(AssistantChunk):
        for child in chunk.query_children(MarkdownBlock):
            region = child.virtual_region
            rows.append((type(child).__name__, chunk.virtual_region.y + region.y, region.height))
    return rows


async def test_long_streamed_reply_is_chunked_and_looks_like_one(run_app: RunApp) -> None:
    async with run_app({"*": [text("hi")]}) as h:
        session_id = await h.create("hello")
        h.app.main.open_session(session_id)
        await h.pilot.pause(0.1)
        transcript = h.app.main.pane.query_one(Transcript)
        streamed = AssistantBlock("")
        await transcript.mount(streamed)
        for end in range(0, len(REPLY) + 150, 150):
            streamed.show(REPLY[:end])
            await h.pilot.pause(0.01)
        await h.until(lambda: streamed.settled)
        assert streamed.source == REPLY
        chunks = list(streamed.query_children(AssistantChunk))
        assert len(chunks) > 3
        assert "".join(c.source for c in chunks) == REPLY
        assert all(_fences_whole(c.source) for c in chunks)
        marked = [
            b for c in chunks for b in c.query_children(MarkdownBlock) if b.has_class("-last")
        ]
        assert marked == [list(chunks[-1].query_children(MarkdownBlock))[-1]]

        class Whole(AssistantBlock):
            CHUNK_CHARS = 10**9

        whole, composed = Whole(REPLY), AssistantBlock(REPLY)
        await transcript.mount_all([whole, composed])
        await h.until(lambda: whole.settled and composed.settled)
        await h.pilot.pause(0.1)
        assert len(whole.query_children(AssistantChunk)) == 1
        assert len(composed.query_children(AssistantChunk)) > 3
        assert _layout(streamed) == _layout(whole) == _layout(composed)
        assert streamed.outer_size == whole.outer_size == composed.outer_size
