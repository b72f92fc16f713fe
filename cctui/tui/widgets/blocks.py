"""The pieces a transcript is made of: prompts, streamed replies, tool calls, notes.

Each is cheap to mount: a reply streams through Textual's ``MarkdownStream`` (only the last
top-level block is re-parsed per fragment), a tool call is one line until it is expanded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.events import Click, Mount
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownStream

from cctui.tui import render

_TOOL_STATE = {
    "running": ("◌", "$text-accent"),
    "completed": ("✓", "$text-success"),
    "denied": ("⊘", "$text-warning"),
    "failed": ("✗", "$text-error"),
}


class UserBlock(Static):
    """A message sent to the session."""


class Note(Static):
    """A one-line status change, approval note or error."""


class ResultBlock(Static):
    """The end of a turn: outcome, turns, cost, time."""


class _Stream(MarkdownStream):
    """``MarkdownStream`` fed from synchronous code.

    ``write`` only queues the fragment and wakes the stream's task, then yields once so the
    task can run; the transcript is drawn from synchronous message handlers, where that yield
    is not possible, so ``feed`` does the queueing and the task runs at the next turn of the
    loop. Coalescing, ordering and ``stop`` are Textual's.
    """

    def feed(self, fragment: str) -> None:
        if fragment:
            self._pending.append(fragment)
            self._new_markup.set()


class AssistantBlock(Markdown):
    """One chunk of an assistant message (``chunks.Chunker``); a text that continues what is
    drawn streams in as a fragment.

    The last block carries ``-last`` (no bottom margin). A ``:last-child`` rule would do the
    same, but Textual restyles every child under an order-dependent rule on each mount, which
    costs more the longer the message grows.
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self._target = text
        """The newest text of the message."""
        self._sent = ""
        """What the widget was given (fragments fed to the stream, the first one on mount)."""
        self._ready = False
        self._mounted_once = asyncio.Event()
        self._gone = False
        self._stream: _Stream | None = None
        self._last: Widget | None = None
        self._complete = False

    @property
    def text(self) -> str:
        """The newest text given (drawn, or being drawn)."""
        return self._target

    async def _on_mount(self, event: Mount) -> None:  # type: ignore[override]  # as Markdown
        # Not Markdown's mount handler: it draws the initial text with ``update``, which
        # parses in a thread (a hop that waits for the GIL under load) and then leaves
        # ``append`` to re-parse from the text's *last line*, so a chunk given up to the
        # middle of a code fence goes on as a fence opened by the closing one. The first
        # fragment goes through ``append`` like the others (it re-parses from the start of
        # the last top-level block).
        event.prevent_default()
        Widget._on_mount(self, event)
        self._mounted()

    def _mounted(self) -> None:
        self._ready = True
        self._mounted_once.set()
        self._mark_last()
        self._push()
        if self._complete and self._stream is not None:
            self.call_later(self.settle)

    def show(self, text: str, *, complete: bool = False) -> None:
        """The message is now ``text`` (the whole of it so far); ``complete``: and that is all
        of it (the stream is stopped once it has drawn everything)."""
        self._target = text
        self._complete = self._complete or complete
        if self._ready:
            self._push()
            if self._complete and self._stream is not None:
                self.call_later(self.settle)

    def _push(self) -> None:
        target, sent = self._target, self._sent
        if target == sent or not self.is_attached:
            return
        self._sent = target
        if target.startswith(sent):
            if self._stream is None:
                self._stream = _Stream(self)
                self._stream.start()
            self._stream.feed(target[len(sent) :])
        else:  # not a continuation (rare): redraw it whole, after what is queued
            self.run_worker(self._replace(target), group="replace", exit_on_error=False)

    async def _replace(self, text: str) -> None:
        await self.settle()
        await self.update(text)
        self._mark_last()

    async def settle(self) -> None:
        """Return once everything given is drawn (stops the stream; a later text restarts it)."""
        if not self._ready and self.is_attached and not self._gone:
            # Attached but its Mount not handled yet: the first text is not even queued. (A
            # block removed before it mounts never gets there: hence the bound.)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._mounted_once.wait(), 5.0)
        stream, self._stream = self._stream, None
        if stream is not None:
            # A stream stopped before its task first ran raises CancelledError from stop()
            # (Textual 8.2.8 cancels a task that never entered its try); one turn of the loop
            # lets it start.
            await asyncio.sleep(0)
            await stream.stop()

    @property
    def settled(self) -> bool:
        """No fragment is waiting to be drawn."""
        return self._stream is None and self._target == self._sent

    def append(self, markdown: str) -> AwaitComplete:
        """Markdown.append (what the stream calls), then move ``-last`` to the new last block."""
        if self._gone or not self.is_attached:

            async def dropped() -> None:
                return None  # removed from the pane (folded, or another session shown)

            return AwaitComplete(dropped())
        appended = super().append(markdown)

        async def then_mark() -> None:
            await appended
            self._mark_last()

        return AwaitComplete(then_mark())

    def _mark_last(self) -> None:
        last = next((c for c in reversed(self.children) if isinstance(c, MarkdownBlock)), None)
        if last is not self._last:
            if self._last is not None:
                self._last.remove_class("-last")
            if last is not None:
                last.add_class("-last")
            self._last = last

    async def on_unmount(self) -> None:
        self._gone = True  # what the stream still holds is dropped, not drawn
        await self.settle()


class ToolTitle(Static, can_focus=True):
    """The one line of a tool call; ``enter`` or a click shows its input and result."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_call", "Details", show=False)]

    class Toggle(Message):
        """Expand or collapse the owning call."""

    def action_toggle_call(self) -> None:
        self.post_message(self.Toggle())

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Toggle())


class ToolCall(Vertical):
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


class Earlier(Button):
    """Stands for output items that are not mounted; pressing it mounts a page of them."""

    def __init__(self) -> None:
        super().__init__("", compact=True)

    def set_count(self, hidden: int) -> None:
        """Say how many are folded away."""
        self.label = f"▲ {hidden} earlier item(s) · show more"
