"""The pieces a transcript is made of: prompts, streamed replies, tool calls, notes.

Each is one widget to mount, whatever it holds: a chunk of reply is one markdown visual
(``cctui.tui.markdown``), a tool call is one line until it is expanded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Static

from cctui.tui import render
from cctui.tui.markdown import MarkdownView

_TOOL_STATE = {
    "running": ("◌", "$text-accent"),
    "completed": ("✓", "$text-success"),
    "denied": ("⊘", "$text-warning"),
    "failed": ("✗", "$text-error"),
}


class OneLayout(Widget):
    """A widget whose new size does not ask for a second layout of the screen.

    Textual sets a widget's size right after the layout that placed it, and its
    ``virtual_size`` reactive then asks for another layout: the whole screen arranged and the
    widget painted again. A transcript grows with every batch of output (a longer last chunk,
    a taller scrollable height), and the layout that placed the growth already measured it:
    the second pass cost 10-25 ms of a small machine per batch for nothing; new lines (a
    note, a turn's result, a tool call's title) were each laid out twice too.

    Listed after the Textual base (``class Note(Static, OneLayout)``): Textual takes a
    widget's default CSS and type selectors from its first base only."""

    MEASURED_AGAIN_WHEN_NEW: ClassVar[bool] = False
    """Keep Textual's second pass for the widget's first size."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        again = self.MEASURED_AGAIN_WHEN_NEW and not self.outer_size
        return super()._size_updated(size, virtual_size, container_size, layout and again)


class UserBlock(Static, OneLayout):
    """A message sent to the session."""


class Note(Static, OneLayout):
    """A one-line status change, approval note or error."""


class ResultBlock(Static, OneLayout):
    """The end of a turn: outcome, turns, cost, time."""


class AssistantBlock(MarkdownView, OneLayout):
    """One chunk of an assistant message (``chunks.Chunker``), drawn as one widget.

    A newer text of the chunk replaces the visual: the last chunk of a streaming reply is
    rendered again per batch the pane draws (a few KB, at most a few times a second);
    the others never change, and their lines are kept (``markdown.MarkdownVisual``).
    """

    MEASURED_AGAIN_WHEN_NEW = True  # without it a new chunk was sometimes rendered twice


class ToolTitle(Static, OneLayout, can_focus=True):
    """The one line of a tool call; ``enter`` or a click shows its input and result."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_call", "Details", show=False)]

    class Toggle(Message):
        """Expand or collapse the owning call."""

    def action_toggle_call(self) -> None:
        self.post_message(self.Toggle())

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Toggle())


class ToolCall(Vertical, OneLayout):
    """One tool call: a title line; the body (input, result) is built only when expanded."""

    def __init__(
        self,
        name: str,
        summary: str,
        detail: Callable[[], Content],
        state: str = "running",
        result: str | None = None,
    ) -> None:
        super().__init__()
        self._name, self._summary, self._detail = name, summary, detail
        self.state, self.result = state, result
        self.expanded = False
        self._title = ToolTitle(self._title_text())
        self._body: Static | None = None
        self._apply_classes()

    def compose(self) -> ComposeResult:
        yield self._title

    def set_state(self, state: str, result: str | None) -> None:
        """Show where the call stands and, once known, its output."""
        if (state, result) == (self.state, self.result):
            return
        self.state, self.result = state, result
        self._apply_classes()
        self._title.update(self._title_text())
        if self._body is not None:
            self._body.update(self._body_content())

    def _apply_classes(self) -> None:
        self.set_class(self.state == "failed", "-failed")
        self.set_class(self.state == "denied", "-denied")

    def _title_text(self) -> Content:
        glyph, _ = _TOOL_STATE.get(self.state, ("?", ""))
        arrow = "▾" if self.expanded else "▸"
        return Content(f"{arrow} {glyph} {self._name}  {self._summary}")

    def _body_content(self) -> Content:
        parts = [self._detail()]
        if self.result is not None:
            parts += [Content.styled("result", "bold $text-muted"), render.result_text(self.result)]
        return Content("\n").join(parts)

    @on(ToolTitle.Toggle)
    def toggle(self, event: ToolTitle.Toggle | None = None) -> None:
        """Expand (building the body now) or collapse (dropping it)."""
        if event is not None:
            event.stop()
        self.expanded = not self.expanded
        if self.expanded:
            self._body = Static(self._body_content(), classes="tool-body")
            self.mount(self._body)
        elif self._body is not None:
            self._body.remove()
            self._body = None
        self._title.update(self._title_text())


class Earlier(Button, OneLayout):
    """Stands for output items that are not mounted; pressing it mounts a page of them."""

    def __init__(self) -> None:
        super().__init__("", compact=True)

    def set_count(self, hidden: int) -> None:
        """Say how many are folded away."""
        self.label = f"▲ {hidden} earlier item(s) · show more"
