"""A session's output as widgets: prompts, markdown replies, one collapsible line per tool call.

Events are applied in seq order. A newer ``AssistantTextEvent`` for the same message and a
newer ``ToolUseEvent`` for the same call replace what an older one drew, so re-reading events
(after a coalesced batch, or a merge in the ring buffer) is always safe.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

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
    """One assistant message, re-rendered as its text grows."""


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


class Transcript(VerticalScroll):
    """Scrolling output of one session; sticks to the bottom while the user has not scrolled up."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._texts: dict[str, AssistantBlock] = {}
        self._tools: dict[str, ToolCall] = {}
        self.can_focus = True

    def on_mount(self) -> None:
        self.anchor()

    def reset(self) -> None:
        """Forget everything drawn (another session is being shown)."""
        self._texts.clear()
        self._tools.clear()
        self.remove_children()
        # A new session starts at the bottom, following its output, whatever the user
        # scrolled to in the last one (a scroll releases Textual's anchor).
        self.anchor()

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
        if isinstance(event, AssistantTextEvent):
            block = self._texts.get(event.message_id)
            if block is None:
                block = self._texts[event.message_id] = AssistantBlock(event.text)
                return block
            if event.text != block.source:
                block.update(event.text)
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
