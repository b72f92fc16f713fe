"""A session's output as widgets: prompts, markdown replies, one collapsible line per tool call.

Events are applied in seq order. A newer ``AssistantTextEvent`` for the same message and a
newer ``ToolUseEvent`` for the same call replace what an older one drew, so re-reading events
(after a coalesced batch, or a merge in the ring buffer) is always safe.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from cctui.core import (
    AssistantTextEvent,
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

_TOOL_STATE = {
    "running": ("◌", "$text-accent"),
    "completed": ("✓", "$text-success"),
    "denied": ("⊘", "$text-warning"),
    "failed": ("✗", "$text-error"),
}
_NOTED_STATUSES = frozenset({"completed", "interrupted", "error"})
_KIND_LABEL = {
    "permission": "permission",
    "plan_review": "plan review",
    "user_question": "question",
}


class UserBlock(Static):
    """A message sent to the session."""


class AssistantBlock(Markdown):
    """One assistant message, drawn incrementally as its text grows.

    Streaming sends the whole message so far, 20 times a second. Re-parsing and re-mounting
    all of it each time is quadratic over a long reply, so a text that extends what is drawn
    only appends its tail (Textual re-parses from the last top-level block on). One drawing
    runs at a time, at most every ``DRAW_GAP_S``; texts arriving meanwhile coalesce.

    The last block carries ``-last`` (no bottom margin). A ``:last-child`` rule would do the
    same, but Textual restyles every child with an order-dependent rule on each mount, which
    is quadratic over a long message.
    """

    DRAW_GAP_S = 0.2
    """Least time between two drawings of a growing message (each one costs a layout)."""

    def __init__(self, markdown: str) -> None:
        super().__init__(markdown)
        self._target = markdown
        self._ready = False
        self._drawing = False
        self._drawn_at = 0.0
        self._last: Widget | None = None

    @property
    def settled(self) -> bool:
        """True when the newest text given is on screen (no drawing pending)."""
        return self._ready and not self._drawing and self._target == self.source

    def show(self, text: str) -> None:
        """Draw ``text``, the whole message so far."""
        self._target = text
        self._kick()

    def on_mount(self) -> None:
        # Markdown's own mount handler (which draws the initial text) runs after this one.
        self.call_next(self._mounted)

    def _mounted(self) -> None:
        self._ready = True
        self._mark_last()
        self._kick()

    def _mark_last(self) -> None:
        last = next((c for c in reversed(self.children) if isinstance(c, MarkdownBlock)), None)
        if last is not self._last:
            if self._last is not None:
                self._last.remove_class("-last")
            if last is not None:
                last.add_class("-last")
            self._last = last

    def _kick(self) -> None:
        if self._ready and not self._drawing and self._target != self.source:
            self._drawing = True
            self.run_worker(self._draw(), group="draw", exit_on_error=False)

    async def _draw(self) -> None:
        try:
            while (target := self._target) != (drawn := self.source):
                wait = self._drawn_at + self.DRAW_GAP_S - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue  # more text may have come
                self._drawn_at = time.monotonic()
                with self.app.batch_update():
                    if drawn and target.startswith(drawn):
                        await self.append(target[len(drawn) :])
                    else:
                        await self.update(target)
                    self._mark_last()
        finally:
            self._drawing = False


class ToolCall(Collapsible):
    """One tool call: a one-line title; input and result when expanded."""

    def __init__(self, name: str, summary: str, detail: Content) -> None:
        self._body = Static(classes="tool-body")
        self._tool_name, self._summary, self._detail = name, summary, detail
        super().__init__(
            self._body,
            title=_tool_title("running", name, summary),
            collapsed=True,
            collapsed_symbol="▸",
            expanded_symbol="▾",
        )

    @classmethod
    def from_event(cls, event: ToolUseEvent) -> ToolCall:
        """A live call; ``update`` redraws it as it progresses."""
        call = cls(
            event.name,
            fmt.tool_summary(event.name, event.input, 60),
            render.tool_input(event.name, event.input),
        )
        call.update(event)
        return call

    def update(self, event: ToolUseEvent) -> None:
        """Redraw from a newer event for the same call."""
        self.set_state(event.state, event.result)

    def set_state(self, state: str, result: str | None) -> None:
        """Show where the call stands and, once known, its output."""
        self.title = _tool_title(state, self._tool_name, self._summary)
        self.set_class(state == "failed", "-failed")
        self.set_class(state == "denied", "-denied")
        parts = [self._detail]
        if result is not None:
            parts += [Content.styled("result", "bold $text-muted"), render.result_text(result)]
        self._body.update(Content("\n").join(parts))


class Note(Static):
    """A one-line status change, approval note or error."""


class ResultBlock(Static):
    """The end of a turn: outcome, turns, cost, time."""


def _tool_title(state: str, name: str, summary: str) -> str:
    glyph, _ = _TOOL_STATE.get(state, ("?", ""))
    return f"{glyph} {name}  {summary}".replace("[", r"\[")


class Trimmed(Static):
    """Stands for the live output that no longer has widgets (see ``Transcript.MAX_ITEMS``)."""


_TRIMMABLE = (UserBlock, AssistantBlock, ToolCall, Note, ResultBlock)


class Transcript(VerticalScroll):
    """Scrolling output of one session; sticks to the bottom while the user has not scrolled up."""

    MAX_ITEMS = 150
    """Live output widgets kept; older ones give way to one "… N earlier" line. Every layout
    walks every mounted item, so a session with hundreds of tool calls would otherwise make
    each new line slower to draw than the last."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._texts: dict[str, AssistantBlock] = {}
        self._tools: dict[str, ToolCall] = {}
        self._trimmed_ids: set[str] = set()
        self._trimmed = 0
        self.can_focus = True

    def on_mount(self) -> None:
        self.anchor()

    def reset(self) -> None:
        """Forget everything drawn (another session is being shown)."""
        self._texts.clear()
        self._tools.clear()
        self._trimmed_ids.clear()
        self._trimmed = 0
        self.remove_children()

    def note(self, text: str, *, classes: str = "") -> None:
        """Append a one-line note (e.g. what was skipped)."""
        self.mount(Note(Content(text), classes=classes))

    def apply(self, events: list[SessionEvent]) -> None:
        """Draw a batch of events, oldest first."""
        new: list[Widget] = []
        for event in events:
            widget = self._apply_one(event)
            if widget is not None:
                new.append(widget)
        if new:
            self.mount_all(new)
            self._trim()

    def _trim(self) -> None:
        items = [c for c in self.children if isinstance(c, _TRIMMABLE)]
        excess = len(items) - self.MAX_ITEMS
        if excess <= 0:
            return
        gone = items[:excess]
        ids = {id(w) for w in gone}
        for key, block in list(self._texts.items()):
            if id(block) in ids:
                del self._texts[key]
                self._trimmed_ids.add(key)
        for key, call in list(self._tools.items()):
            if id(call) in ids:
                del self._tools[key]
                self._trimmed_ids.add(key)
        self._trimmed += excess
        label = Content.styled(
            f"… {self._trimmed} earlier item(s) not shown (the session's transcript has them)",
            "$text-muted",
        )
        marker = next(iter(self.query_children(Trimmed)), None)
        if marker is None:
            self.mount(Trimmed(label, classes="muted"), before=gone[0])
        else:
            marker.update(label)
        self.remove_children(gone)

    def history(
        self, messages: Sequence[TranscriptMessage], *, before: Widget | None = None
    ) -> None:
        """Draw messages of a past transcript (``before`` a widget when loading earlier pages)."""
        new: list[Widget] = []
        for m in messages:
            if m.text.strip():
                if m.role == "user":
                    new.append(UserBlock(Content.assemble(("❯ ", "bold $text-primary"), m.text)))
                else:
                    block = AssistantBlock(m.text)
                    self._texts[m.uuid] = block
                    new.append(block)
            for call in m.tool_calls:
                widget = ToolCall(
                    call.name, fmt.one_line(call.input_preview, 60), Content(call.input_preview)
                )
                widget.set_state("completed", None)
                self._tools[call.tool_use_id] = widget
                new.append(widget)
            for result in m.tool_results:
                owner = self._tools.get(result.tool_use_id)
                if owner is not None:
                    owner.set_state("failed" if result.is_error else "completed", result.preview)
        if new:
            if before is not None:
                self.mount_all(new, before=before)
            else:
                self.mount_all(new)

    def _apply_one(self, event: SessionEvent) -> Widget | None:
        if isinstance(event, (AssistantTextEvent, ToolUseEvent)):
            key = event.message_id if isinstance(event, AssistantTextEvent) else event.tool_use_id
            if key in self._trimmed_ids:
                return None  # its widget gave way to newer output
        if isinstance(event, AssistantTextEvent):
            block = self._texts.get(event.message_id)
            if block is None:
                block = self._texts[event.message_id] = AssistantBlock(event.text)
                return block
            block.show(event.text)
            return None
        if isinstance(event, ToolUseEvent):
            call = self._tools.get(event.tool_use_id)
            if call is None:
                call = self._tools[event.tool_use_id] = ToolCall.from_event(event)
                return call
            call.update(event)
            return None
        if isinstance(event, UserMessageEvent):
            return UserBlock(Content.assemble(("❯ ", "bold $text-primary"), event.text))
        if isinstance(event, StatusChanged):
            if event.status.value not in _NOTED_STATUSES:
                return None  # the header shows the live status; notes are for endings
            glyph, label, _ = fmt.badge(event.status.value)
            text = f"{glyph} {label}" + (f": {event.error}" if event.error else "")
            return Note(Content(text), classes=f"status -{event.status.value}")
        if isinstance(event, InputRequestedEvent):
            item = event.input
            who = item.route_label if item.route == "client" else "you"
            what = _KIND_LABEL.get(item.kind, item.kind)
            return Note(
                Content(f"◆ asks {who}: {what} for {item.tool_name} (a: inbox)"), classes="input"
            )
        if isinstance(event, InputResolvedEvent):
            verb = {"allow": "allowed", "deny": "denied"}.get(event.decision, event.decision)
            extra = f": {event.message}" if event.message else ""
            return Note(Content(f"  {verb} by {event.decided_by}{extra}"), classes="input")
        if isinstance(event, ResultEvent):
            return ResultBlock(_result_line(event), classes="-error" if event.is_error else "")
        return Note(Content(f"✗ {event.message}"), classes="error")  # ErrorEvent


def _result_line(event: ResultEvent) -> Content:
    head = "✗ turn failed" if event.is_error else "✓ turn complete"
    bits = [f"{event.num_turns} turn{'s' if event.num_turns != 1 else ''}"]
    if event.total_cost_usd:
        bits.append(fmt.cost(event.total_cost_usd))
    bits.append(fmt.duration(event.duration_ms))
    if event.terminal_reason and event.terminal_reason != "completed":
        bits.append(event.terminal_reason)
    line = Content.assemble((head, "bold"), ("  " + " · ".join(bits), "$text-muted"))
    if event.is_error and event.result:
        line = Content("\n").join([line, Content(event.result)])
    return line
