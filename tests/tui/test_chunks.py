"""Where a long reply is cut into chunks: the same cuts however the text arrives, never in a
fence, only before a paragraph or list item, and the chunks add up to the text."""

from __future__ import annotations

from cctui.tui.chunks import Chunker
from tests.bench.bench_tui import reply_markdown


def _cuts_in_deltas(text: str, step: int, size: int) -> list[int]:
    chunker, cuts = Chunker(size=size), []
    for end in range(step, len(text) + step, step):
        cuts += chunker.advance(text[:end])
    return cuts


def test_cuts_do_not_depend_on_how_the_text_arrives() -> None:
    text = reply_markdown(20)
    whole = Chunker(size=1500).advance(text)
    assert len(whole) > 5
    for step in (1, 7, 100, 5000):
        assert _cuts_in_deltas(text, step, 1500) == whole


def test_cuts_fall_before_a_paragraph_or_list_after_a_blank_line_outside_fences() -> None:
    text = reply_markdown(20)
    cuts = Chunker(size=500).advance(text)
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert "".join(pieces) == text
    for cut in cuts:
        assert text[cut - 2 : cut] == "\n\n"
        assert text[cut] not in "#`~ |>"
        assert text[:cut].count("```") % 2 == 0  # not inside a fence


def test_a_fence_with_blank_lines_inside_is_never_cut() -> None:
    code = "```python\n" + "x = 1\n\nplain words here\n\n" * 200 + "```\n\nAfter the fence.\n"
    text = "Intro paragraph.\n\n" + code
    cuts = Chunker(size=100).advance(text)
    assert cuts == [text.index("After the fence.")]
