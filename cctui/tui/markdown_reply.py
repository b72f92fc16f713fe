"""rich's markdown renderer with cctui's headings and fences (what ``MarkdownVisual`` draws a
reply with; imported at the first reply drawn, not with the app)."""

from __future__ import annotations

import functools
from typing import ClassVar

from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Text


class _Heading(Heading):
    """Headings on the left, as Claude Code draws them (rich centres ``#``)."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(
        ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
    )


class _Code(CodeBlock):
    """A fenced block: highlighted text on the block's background, wrapped, one column of
    padding each side. (rich's ``Syntax`` renderable draws the same colours at about twice
    the cost, and a reply can hold a fence every few lines.)"""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        background = console.get_style("markdown.code_block").bgcolor
        bg = background.name if background is not None else "default"
        text = _highlighted(str(self.text).rstrip(), self.lexer_name, self.theme, bg).copy()
        yield Padding(text, (0, 1), style=f"on {bg}", expand=True)


@functools.lru_cache(maxsize=512)
def _highlighted(code: str, lexer: str, theme: str, background: str) -> Text:
    """``code`` highlighted, kept: the streaming chunk is drawn again per batch with the
    same fences in it, and pygments is most of a chunk's render."""
    text = Syntax(code, lexer, theme=theme, background_color=background).highlight(code)
    text.rstrip()  # highlight() ends the code with a newline: no empty last line
    text.no_wrap = False
    return text


class Reply(Markdown):
    """rich's markdown with cctui's headings and fences."""

    elements: ClassVar[dict[str, type]] = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": _Code,
        "code_block": _Code,
    }
