"""A session's output: prompts, streamed replies, one line per tool call, notes.

Events are applied in seq order. A newer ``AssistantTextEvent`` for the same message and a
newer ``ToolUseEvent`` for the same call replace what an older one drew, so re-reading events
(after a coalesced batch, or a merge in the ring buffer) is always safe.

The output is a list of *items* (what to draw); a reply is several items, chunks of a few KB
cut between top-level markdown blocks (``chunks.Chunker``). Each chunk is one widget, and
only the last one of a streaming reply is drawn again as it grows: a finished chunk keeps
its rendered lines. Only the newest items, about one and a half pane heights of them
(``Transcript.window``: a tool line weighs 1, a chunk of reply 1 per ``CHARS_PER_WEIGHT``
characters), have widgets while the pane follows the bottom: every layout walks every
mounted widget and every chunk mounted is rendered, so a session with hundreds of tool calls
or a 50 KB reply would otherwise make each new line slower than the last. Older items fold
into one "▲ N earlier" line that mounts them again, a page at a time, when it is pressed or
scrolled to. While a long reply is followed, the chunk widgets folded at the top take the
new chunks at the end (``_place``), so a batch of output mounts nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from textual import on
from textual.await_remove import AwaitRemove
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button

from cctui.core import (
    AssistantTextEvent,
    ErrorEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.history import TranscriptMessage
from cctui.tui import format as fmt
from cctui.tui import render
from cctui.tui.chunks import Chunker
from cctui.tui.widgets.blocks import (
    AssistantBlock,
    Earlier,
    Note,
    OneLayout,
    ResultBlock,
    ToolCall,
    UserBlock,
)
from cctui.tui.widgets.event_lines import ask_line, event_widget, user_block

__all__ = ["AssistantBlock", "Note", "ResultBlock", "ToolCall", "Transcript", "UserBlock"]

CHUNK_CHARS = 1500
"""A reply is cut into chunks of about this size (between top-level markdown blocks)."""

CHARS_PER_WEIGHT = 40
"""A chunk of reply weighs one item per this many characters, about a line of it: what a
chunk costs (its render, its share of each paint) grows with its lines."""


@dataclass(eq=False)
class _Item:
    """One thing the transcript shows; ``widget`` is None while it is folded away."""

    make: Callable[[_Item], Widget]
    state: dict[str, Any] = field(default_factory=dict)
    widget: Widget | None = None

    @property
    def weight(self) -> int:
        text = self.state.get("text")
        return 1 + len(text) // CHARS_PER_WEIGHT if isinstance(text, str) else 1


@dataclass(eq=False)
class _Reply:
    """One assistant message: its text so far and the chunk items it is drawn in."""

    text: str = ""
    chunker: Chunker = field(default_factory=lambda: Chunker(size=CHUNK_CHARS))
    items: list[_Item] = field(default_factory=list)


def _text(item: _Item) -> Widget:
    return AssistantBlock(item.state["text"])


def _tool(item: _Item) -> Widget:
    s = item.state
    return ToolCall(s["name"], s["summary"], s["detail"], s["state"], s["result"])


def _ask(item: _Item) -> Widget:
    return Note(ask_line(item.state["input"], answered=item.state["answered"]), classes="input")


def _static(factory: Callable[[], Widget]) -> Callable[[_Item], Widget]:
    return lambda _item: factory()


class Transcript(VerticalScroll, OneLayout):
    """Scrolling output of one session; sticks to the bottom while the user has not scrolled up."""

    MAX_WEIGHT = 120
    """Weight of the items with widgets while following the bottom (trimmed back to this),
    at most; a short pane keeps less (``SCREENS`` of its height)."""
    MIN_WEIGHT = 40
    """...and at least this much."""
    SCREENS = 1.5
    """While following, the pane keeps widgets for this many of its heights: what is on
    screen and half a screenful above it to scroll back to (more is one scroll to the top
    or one press of "earlier" away). Every item mounted is paid for by every layout, and a
    long reply arriving in one batch mounts the whole window at once."""
    TRIM_STEP = 30
    """Fold this much more weight than needed at once, so trimming is not paid per line."""
    PAGE = 120
    """Weight of the items mounted again per press of the "earlier" line."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[_Item] = []
        self._replies: dict[str, _Reply] = {}
        self._tools: dict[str, _Item] = {}
        self._results: dict[str, tuple[str, str | None]] = {}
        """History's tool results whose call is on an earlier page, not drawn yet (pages come
        newest first): tool use id -> (state, result), given to the call when it comes."""
        self._asks: dict[str, _Item] = {}
        """The request lines by input id: an answer drops their "(a: inbox)"."""
        self._said = ""
        """The last reply or failure text drawn this turn. A failed turn's text comes up to
        four times (the CLI's own reply, the result, the error, the status): it is drawn
        once, and each later one only when it says more."""
        self._folded = 0
        """``_items[:_folded]`` have no widgets; everything after has."""
        self._earlier: Earlier | None = None
        self.can_focus = True

    def on_mount(self) -> None:
        self.anchor()

    # -- reading what is drawn (tests, the pane) -----------------------------------------

    @property
    def folded(self) -> int:
        """Items folded into the "earlier" line."""
        return self._folded

    @property
    def item_count(self) -> int:
        """Every item, mounted or folded."""
        return len(self._items)

    def text_of(self, message_id: str) -> str | None:
        """The newest text of an assistant message, drawn or folded."""
        reply = self._replies.get(message_id)
        return None if reply is None else reply.text

    @property
    def blocks(self) -> list[AssistantBlock]:
        """The mounted chunks of replies, oldest first."""
        return [c for c in self.children if isinstance(c, AssistantBlock)]

    # -- changes -------------------------------------------------------------------------

    def reset(self) -> AwaitRemove:
        """Forget everything drawn (another session is being shown); awaiting the result
        waits until the old widgets are gone."""
        self._items.clear()
        self._replies.clear()
        self._tools.clear()
        self._results.clear()
        self._asks.clear()
        self._said = ""
        self._folded = 0
        self._earlier = None
        removal = self.remove_children()
        # A new session starts at the bottom, following its output, whatever the user
        # scrolled to in the last one (a scroll releases Textual's anchor).
        self.anchor()
        return removal

    def note(self, text: str, *, classes: str = "") -> None:
        """Append a one-line note (e.g. what was skipped)."""
        self._append([_Item(_static(partial(Note, Content(text), classes=classes)))])

    def apply(self, events: Sequence[SessionEvent]) -> None:
        """Draw a batch of events, oldest first."""
        new: list[_Item] = []
        for event in events:
            new += self._apply_one(event)
        self._append(new)

    def history(self, messages: Sequence[TranscriptMessage]) -> None:
        """Draw messages of a past transcript above everything shown (an earlier page)."""
        new: list[_Item] = []
        for m in messages:
            if m.text.strip():
                if m.role == "user":
                    new.append(_Item(_static(partial(user_block, m.text, m.uuid))))
                else:
                    reply = self._replies[m.uuid] = _Reply()
                    new += self._reply_text(reply, m.text)
            for call in m.tool_calls:
                preview = call.input_preview
                # No result in the transcript (yet): it runs, or waits for a permission (a
                # session live elsewhere, or an attached window's before its events come), or
                # its session ended mid-call. Not a tick: that says it is done.
                state, result = self._results.pop(call.tool_use_id, ("running", None))
                item = _Item(
                    _tool,
                    {
                        "name": call.name,
                        "summary": fmt.one_line(preview, 60),
                        "detail": partial(Content, preview),
                        "state": state,
                        "result": result,
                    },
                )
                self._tools[call.tool_use_id] = item
                new.append(item)
            for tool_result in m.tool_results:
                state = "failed" if tool_result.is_error else "completed"
                owner = self._tools.get(tool_result.tool_use_id)
                if owner is not None:
                    self._set_tool(owner, state, tool_result.preview)
                else:
                    self._results[tool_result.tool_use_id] = (state, tool_result.preview)
        self._prepend(new)

    # -- the window of mounted items -----------------------------------------------------

    def _first_widget(self) -> Widget | None:
        return next((i.widget for i in self._items[self._folded :] if i.widget), None)

    def _append(self, new: list[_Item]) -> None:
        if not new:
            return
        self._items.extend(new)
        spare: list[AssistantBlock] = []
        if self.following():
            budget = self.window()
            weights = [i.weight for i in self._items[self._folded :]]
            if sum(weights) > budget + self.TRIM_STEP:
                # Keep the newest items up to the budget, and the one that crosses it (a long
                # chunk of reply that just ended is never folded away).
                keep, index = 0, len(self._items)
                for w in reversed(weights):
                    if keep >= budget:
                        break
                    keep += w
                    index -= 1
                spare = self._fold_to(index)
        first_new = max(self._folded, len(self._items) - len(new))
        self._place(self._items[first_new:], spare)

    def _place(self, items: list[_Item], spare: list[AssistantBlock]) -> None:
        """Give ``items`` widgets at the end. A chunk of reply takes over a chunk widget just
        folded away when there is one: moving it and drawing the new text happen at once,
        where a mount takes a few turns of the loop (its styles, its own message pump) and
        the screen is painted between them; a long reply folds and adds chunks every batch."""
        takers = sum(1 for item in items if item.make is _text)
        if len(spare) > takers:
            # Removed before anything is mounted, in the order a fold always took.
            self.remove_children(spare[takers:])
            del spare[takers:]
        mount: list[Widget] = []
        for item in items:
            if spare and item.make is _text:
                if mount:
                    self.mount_all(mount)
                    mount = []
                block = spare.pop()
                block.show(item.state["text"])
                item.widget = block
                self.move_child(block, after=self.children[-1])
            else:
                mount.append(self._make(item))
        if mount:
            self.mount_all(mount)

    def window(self) -> int:
        """The weight kept mounted while following the bottom."""
        rows = self.size.height
        if rows <= 0:  # not laid out yet
            return self.MAX_WEIGHT
        return min(self.MAX_WEIGHT, max(self.MIN_WEIGHT, int(self.SCREENS * rows)))

    def _prepend(self, new: list[_Item]) -> None:
        if not new:
            return
        self._items[0:0] = new
        if self._folded:
            self._folded += len(new)
            self._update_earlier()
            return
        anchor = self._first_widget()
        widgets = [self._make(i) for i in new]
        if anchor is not None:
            self.mount_all(widgets, before=anchor)
        else:
            self.mount_all(widgets)

    def _make(self, item: _Item) -> Widget:
        item.widget = item.make(item)
        return item.widget

    def following(self) -> bool:
        """The user has not scrolled up (so nothing they read disappears).

        Textual keeps this as the anchor's "released" flag (set when the user scrolls away
        from the bottom, cleared when they scroll back); the scroll offset itself lags
        behind the content while output streams in, so it cannot tell."""
        return self.is_anchored and not getattr(self, "_anchor_released", False)

    def _fold_to(self, index: int) -> list[AssistantBlock]:
        """Drop the widgets of ``_items[:index]``; the chunks of reply among them are
        returned, still mounted, for new chunks to take over (``_place``)."""
        gone = [i.widget for i in self._items[self._folded : index] if i.widget is not None]
        for item in self._items[self._folded : index]:
            item.widget = None
        self._folded = max(self._folded, index)
        spare = [w for w in gone if isinstance(w, AssistantBlock)]
        if spare and (selections := self.screen.selections).keys() & set(spare):
            # A selection belongs to the text it was made on, not to the widget.
            self.screen.selections = {w: s for w, s in selections.items() if w not in spare}
        gone = [w for w in gone if not isinstance(w, AssistantBlock)]
        if gone:
            self.remove_children(gone)
        self._update_earlier()
        return spare

    def _update_earlier(self) -> None:
        if self._folded and self._earlier is None:
            self._earlier = Earlier()
            anchor = self._first_widget()
            if anchor is not None:
                self.mount(self._earlier, before=anchor)
            else:
                self.mount(self._earlier)
        elif not self._folded and self._earlier is not None:
            self._earlier.remove()
            self._earlier = None
        if self._earlier is not None:
            self._earlier.set_count(self._folded)

    def show_earlier(self) -> None:
        """Mount the page of folded items just above the ones shown."""
        if not self._folded:
            return
        start, weight = self._folded, 0
        while start > 0 and weight < self.PAGE:
            start -= 1
            weight += self._items[start].weight
        anchor = self._first_widget()
        widgets = [self._make(i) for i in self._items[start : self._folded]]
        self._folded = start
        self.release_anchor()  # the user is reading back: new output must not pull them down
        if anchor is not None:
            self.mount_all(widgets, before=anchor)
            self.call_after_refresh(self.scroll_to_widget, anchor, animate=False, top=True)
        else:
            self.mount_all(widgets)
        self._update_earlier()

    @on(Button.Pressed, "Earlier")
    def _earlier_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.show_earlier()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value < 1 <= old_value and self._folded:
            self.call_later(self.show_earlier)  # scrolled to the top: there is more above

    # -- events -> items -----------------------------------------------------------------

    def _set_tool(self, item: _Item, state: str, result: str | None) -> None:
        item.state["state"], item.state["result"] = state, result
        if isinstance(item.widget, ToolCall):
            item.widget.set_state(state, result)

    def _apply_one(self, given: SessionEvent) -> list[_Item]:
        event = self._unrepeated(given)
        if event is None:
            return []
        if isinstance(event, AssistantTextEvent):
            self._said = event.text
            reply = self._replies.get(event.message_id)
            if reply is None:
                reply = self._replies[event.message_id] = _Reply()
            return self._reply_text(reply, event.text)
        if isinstance(event, ToolUseEvent):
            item = self._tools.get(event.tool_use_id)
            if item is None:
                name, data = event.name, event.input
                item = self._tools[event.tool_use_id] = _Item(
                    _tool,
                    {
                        "name": name,
                        "summary": fmt.tool_summary(name, data, 60),
                        "detail": partial(render.tool_input, name, data),
                        "state": event.state,
                        "result": event.result,
                    },
                )
                return [item]
            self._set_tool(item, event.state, event.result)
            return []
        if isinstance(event, UserMessageEvent):
            self._said = ""
            block = partial(user_block, event.text, event.prompt_id, event.prompt_index)
            return [_Item(_static(block))]
        if isinstance(event, InputRequestedEvent):
            ask = _Item(_ask, {"input": event.input, "answered": False})
            self._asks[event.input.id] = ask
            return [ask]
        if isinstance(event, InputResolvedEvent):
            asked = self._asks.pop(event.input_id, None)
            if asked is not None:
                asked.state["answered"] = True
                if isinstance(asked.widget, Note):
                    asked.widget.update(ask_line(asked.state["input"], answered=True))
        widget = event_widget(event)
        return [] if widget is None else [_Item(_static(widget))]

    def _unrepeated(self, event: SessionEvent) -> SessionEvent | None:
        """``event`` without the failure text drawn just before it (``None``: nothing left
        to draw); what it says that is new becomes what was said last."""
        if isinstance(event, ResultEvent) and event.is_error and event.result:
            if event.result == self._said:
                return event.model_copy(update={"result": None})
            self._said = event.result
        elif isinstance(event, ErrorEvent):
            if event.message == self._said:
                return None
            self._said = event.message
        elif isinstance(event, StatusChanged) and event.error and event.error == self._said:
            return event.model_copy(update={"error": None})
        return event

    def _reply_text(self, reply: _Reply, text: str) -> list[_Item]:
        """The reply is now ``text``: finished chunks are closed, new ones begin (returned,
        to be appended), the last one streams what it was given."""
        if not text.startswith(reply.text):
            # Not a continuation (rare): cut it again from the start, redrawing the first
            # chunk in place; the others are dropped.
            reply.chunker = Chunker(size=CHUNK_CHARS)
            for extra in reply.items[1:]:
                self._drop(extra)
            del reply.items[1:]
        reply.text = text
        start = reply.chunker.start
        cuts = reply.chunker.advance(text)
        new: list[_Item] = []
        if not reply.items:
            new.append(_Item(_text, {"text": ""}))
            reply.items.append(new[-1])
        for cut in cuts:
            self._set_text(reply.items[-1], text[start:cut])
            start = cut
            new.append(_Item(_text, {"text": ""}))
            reply.items.append(new[-1])
        self._set_text(reply.items[-1], text[start:])
        return new

    def _set_text(self, item: _Item, text: str) -> None:
        item.state["text"] = text
        if isinstance(item.widget, AssistantBlock):
            item.widget.show(text)

    def _drop(self, item: _Item) -> None:
        if item.widget is not None:
            item.widget.remove()
        if item in self._items:
            index = self._items.index(item)
            if index < self._folded:
                self._folded -= 1
            self._items.remove(item)
