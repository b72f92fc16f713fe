"""A reply's markdown drawn as one visual, rendered once per width.

Textual's ``Markdown`` widget mounts a widget per block (paragraph, list item, fence part):
a 50 KB reply is over a thousand of them, and every layout walks them all, so a long reply
streamed at the CLI's pace spent most of its time in layout (issue 15). Here a chunk of
reply is one visual: rich's markdown renderer (markdown-it underneath, like Textual's)
draws it to lines once per width, and the lines are kept, so measuring the height and
painting cost one render, and a chunk that no longer changes never renders again.

The colours come from the app's Textual theme (the same ``$markdown-h1-color`` & co. that
Textual's own Markdown widget uses), so a reply follows a theme change like the rest.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.theme import Theme
from textual._context import active_app
from textual.app import App
from textual.color import Color, ColorParseError
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static

__all__ = ["MarkdownView", "MarkdownVisual", "look_of"]

_CACHED_WIDTHS = 2
"""Renders kept per visual: the width it is shown at, and one more (a scrollbar that comes
and goes changes the width by one column and back)."""


@dataclass(frozen=True)
class Look:
    """How markdown is drawn under one Textual theme."""

    console: Console
    """Renders with the theme's markdown styles (never prints anything)."""
    code_theme: str
    """The pygments style for fenced code."""
    code_background: str
    """The background of a fenced block."""


class MarkdownVisual(Visual):
    """A markdown text as a Textual visual; its lines are rendered once per width."""

    def __init__(self, markdown: str) -> None:
        self.markdown = markdown
        self._lines: dict[tuple[int, int], list[Strip]] = {}
        self.renders = 0
        """How many times the markdown was rendered (tests read it)."""

    def lines(self, width: int) -> list[Strip]:
        """The text drawn at ``width`` under the running app's theme (without base style)."""
        look = look_of(active_app.get())
        key = (width, id(look))
        lines = self._lines.get(key)
        if lines is None:
            lines = self._render(look, width)
            if len(self._lines) >= _CACHED_WIDTHS:
                self._lines.pop(next(iter(self._lines)))
            self._lines[key] = lines
        return lines

    def _render(self, look: Look, width: int) -> list[Strip]:
        self.renders += 1
        console = look.console
        options = console.options.update(width=width, highlight=False, height=None)
        # here: rich's markdown (markdown-it, ~45 ms of import) is not needed for a first frame
        from cctui.tui.markdown_reply import Reply

        reply = Reply(self.markdown, code_theme=look.code_theme, hyperlinks=False)
        rendered = console.render_lines(reply, options, pad=False, new_lines=False)
        lines = [Strip(line) for line in rendered]
        # rich opens a list with an empty line: a chunk that starts with one would read as
        # two blank lines after the chunk before it. The spacing between chunks is theirs.
        while lines and _blank(lines[0]):
            del lines[0]
        while lines and _blank(lines[-1]):
            del lines[-1]
        return lines

    # -- the Visual protocol ---------------------------------------------------------------

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        base = style.rich_style
        selection, selected = options.selection, options.selection_style
        strips: list[Strip] = []
        for y, line in enumerate(self.lines(width)[:height]):
            strip = Strip(Segment.apply_style(line, base), line.cell_length)
            span = selection.get_span(y) if selection is not None else None
            if span is not None and selected is not None:
                strip = _select(strip, *span, selected.rich_style)
            # Where each character is, so a drag can select text here as in Textual's own
            # widgets (the compositor reads the offsets back from the segments).
            strips.append(strip.apply_offsets(0, y))
        return strips

    def plain(self, width: int) -> str:
        """The text as drawn at ``width`` (what a selection is cut from)."""
        return "\n".join(line.text.rstrip() for line in self.lines(width))


class MarkdownView(Static):
    """Markdown drawn as one widget (a chunk of reply, a plan), its text selectable."""

    def __init__(self, markdown: str, *, id: str | None = None, classes: str | None = None) -> None:
        self._markdown = MarkdownVisual(markdown)
        super().__init__(self._markdown, id=id, classes=classes)

    @property
    def text(self) -> str:
        """The markdown drawn."""
        return self._markdown.markdown

    def show(self, markdown: str) -> None:
        """Draw ``markdown`` instead (nothing happens when it is the same)."""
        if markdown != self._markdown.markdown:
            self._markdown = MarkdownVisual(markdown)
            self.update(self._markdown)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self._markdown.plain(self.size.width)), "\n"


def _select(strip: Strip, start: int, end: int, style: RichStyle) -> Strip:
    """``strip`` with characters ``start`` to ``end`` (-1: the end) drawn in ``style``."""
    segments: list[Segment] = []
    x = 0
    for text, seg_style, control in strip:
        a, b = x, x + len(text)
        x = b
        stop = b if end == -1 else min(b, end)
        if control or stop <= a or start >= b:
            segments.append(Segment(text, seg_style, control))
            continue
        cut1, cut2 = max(start, a) - a, stop - a
        if cut1:
            segments.append(Segment(text[:cut1], seg_style))
        segments.append(Segment(text[cut1:cut2], (seg_style + style) if seg_style else style))
        if cut2 < len(text):
            segments.append(Segment(text[cut2:], seg_style))
    return Strip(segments, strip.cell_length)


def _blank(line: Strip) -> bool:
    return all(
        not seg.text.strip() and (seg.style is None or not seg.style.bgcolor) for seg in line
    )


_LOOKS: dict[tuple[str, bool], Look] = {}


def look_of(app: App[object]) -> Look:
    """The look for ``app``'s current theme (made once per theme)."""
    theme = app.current_theme
    key = (theme.name, theme.dark)
    look = _LOOKS.get(key)
    if look is None:
        look = _LOOKS[key] = _make_look(app.theme_variables, dark=theme.dark)
    return look


def _make_look(variables: Mapping[str, str], *, dark: bool) -> Look:
    background = _color(variables, "background", "#000000" if dark else "#ffffff", None)
    code_bg = _color(variables, "surface", background, background)
    styles = {
        "markdown.paragraph": "",
        "markdown.text": "",
        "markdown.em": "italic",
        "markdown.strong": "bold",
        "markdown.s": "strike",
        "markdown.code": f"{_color(variables, 'text-accent', 'yellow', background)} on {code_bg}",
        "markdown.code_block": f"on {code_bg}",
        "markdown.block_quote": _color(variables, "text-secondary", "magenta", background),
        "markdown.list": "",
        "markdown.item": "",
        "markdown.item.bullet": f"bold {_color(variables, 'text-primary', 'blue', background)}",
        "markdown.item.number": f"bold {_color(variables, 'text-primary', 'blue', background)}",
        "markdown.hr": _color(variables, "panel", "grey50", background),
        "markdown.link": f"underline {_color(variables, 'text-primary', 'blue', background)}",
        "markdown.link_url": _color(variables, "text-primary", "blue", background),
        "markdown.table.border": _color(variables, "panel", "grey50", background),
        "markdown.table.header": "bold",
    }
    for level in range(1, 7):
        tag = f"markdown-h{level}"
        color = _color(variables, f"{tag}-color", "", background)
        styles[f"markdown.h{level}"] = f"{variables.get(f'{tag}-text-style', 'bold')} {color}"
    console = Console(
        file=io.StringIO(),
        theme=Theme(styles, inherit=True),
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
        emoji=False,
        highlight=False,
        markup=False,
    )
    return Look(console, "monokai" if dark else "friendly", code_bg)


def _color(variables: Mapping[str, str], name: str, fallback: str, background: str | None) -> str:
    """A theme colour as ``#rrggbb`` (a translucent one blended over ``background``)."""
    value = variables.get(name)
    if not value:
        return fallback
    try:
        color = Color.parse(value)
    except ColorParseError:
        return fallback  # e.g. "auto 60%": relative to what it is drawn on
    if color.a < 1 and background is not None:
        color = Color.parse(background).blend(color, color.a).with_alpha(1)
    return color.hex6
