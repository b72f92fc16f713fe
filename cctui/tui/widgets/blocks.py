"""The pieces a transcript is made of: prompts, streamed replies, tool calls, notes.

Each is one widget to mount, whatever it holds: a chunk of reply is one markdown visual
(``cctui.tui.markdown``), a tool call is one line until it is expanded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Click
from textual.geometry import Size
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
    """A one-line status change, pending-input note or error."""


class ResultBlock(Static, OneLayout):
    """The end of a turn: outcome, turns, cost, time."""


class AssistantBlock(MarkdownView, OneLayout):
    """One chunk of an assistant message (``chunks.Chunker``), drawn as one widget.

    A newer text of the chunk replaces the visual: the last chunk of a streaming reply is
    rendered again per batch the pane draws (a few KB, at most a few times a second);
    the others never change, and their lines are kept (``markdown.MarkdownVisual``).
    """

    MEASURED_AGAIN_WHEN_NEW = True  # without it a new chunk was sometimes rendered twice


class ToolCall(Static, OneLayout, can_focus=True):
    """One tool call, one line; ``enter`` or a click shows its input and result below it.

    A leaf, not a container of its line: a container's children mount a turn of the loop
    after it, and the screen is laid out again for them. A session calling tools mounts a
    few of these per batch of output, and that second layout of the whole screen came with
    every batch. The body (``ToolBody``) is built only when expanded, as the next sibling.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_call", "Details", show=False)]

    def __init__(
        self,
        name: str,
        summary: str,
        detail: Callable[[], Content],
        state: str = "running",
        result: str | None = None,
    ) -> None:
        # ``_name`` is Textual's (the widget's name), set by ``super().__init__``.
        self._tool, self._summary, self._detail = name, summary, detail
        self.state, self.result = state, result
        self.expanded = False
        self._body: ToolBody | None = None
        super().__init__(self._title_text())
        self._apply_classes()

    @property
    def body(self) -> ToolBody | None:
        """The input and result shown below the line, while expanded."""
        return self._body

    def set_state(self, state: str, result: str | None) -> None:
        """Show where the call stands and, once known, its output."""
        if (state, result) == (self.state, self.result):
            return
        self.state, self.result = state, result
        self._apply_classes()
        self.update(self._title_text())
        if self._body is not None:
            self._body.update(self._body_content())

    def _apply_classes(self) -> None:
        self.set_class(self.state == "failed", "-failed")
        self.set_class(self.state == "denied", "-denied")

    def _title_text(self) -> Content:
        glyph, _ = _TOOL_STATE.get(self.state, ("?", ""))
        arrow = "▾" if self.expanded else "▸"
        return Content(f"{arrow} {glyph} {self._tool}  {self._summary}")

    def _body_content(self) -> Content:
        parts = [self._detail()]
        if self.result is not None:
            parts += [Content.styled("result", "bold $text-muted"), render.result_text(self.result)]
        return Content("\n").join(parts)

    def action_toggle_call(self) -> None:
        self.toggle()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.toggle()

    def toggle(self) -> None:
        """Expand (building the body now, below the line) or collapse (dropping it)."""
        self.expanded = not self.expanded
        if self.expanded and isinstance(self.parent, Widget):
            self._body = ToolBody(self._body_content())
            self.parent.mount(self._body, after=self)
        else:
            self.expanded = False
            self._drop_body()
        self.update(self._title_text())

    def on_unmount(self) -> None:
        self._drop_body()  # folded away or cleared: its body goes with it

    def _drop_body(self) -> None:
        if self._body is not None:
            self._body.remove()
            self._body = None


class ToolBody(Static, OneLayout):
    """An expanded tool call's input and result (``ToolCall.toggle``)."""


class Earlier(Button, OneLayout):
    """Stands for output items that are not mounted; pressing it mounts a page of them."""

    def __init__(self) -> None:
        super().__init__("", compact=True)

    def set_count(self, hidden: int) -> None:
        """Say how many are folded away."""
        self.label = f"▲ {hidden} earlier item(s) · show more"
