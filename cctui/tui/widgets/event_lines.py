"""The one-line widgets of a transcript: a prompt, a status ending, an approval asked and
answered, a turn's result and what it changed, an error (what ``Transcript`` mounts for
each such event)."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.widget import Widget

from cctui.core import (
    ChangesEvent,
    ErrorEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
)
from cctui.tui import format as fmt
from cctui.tui.widgets.blocks import Note, ResultBlock, UserBlock

_NOTED_STATUSES = frozenset({"completed", "interrupted", "error"})
_KIND_LABEL = {
    "permission": "permission",
    "plan_review": "plan review",
    "user_question": "question",
}


def user_block(text: str) -> UserBlock:
    return UserBlock(Content.assemble(("❯ ", "bold $text-primary"), text))


def event_widget(event: SessionEvent) -> Callable[[], Widget] | None:
    """A factory for the one-line widget of a status, approval, result or error event."""
    if isinstance(event, StatusChanged):
        if event.status.value not in _NOTED_STATUSES:
            return None  # the header shows the live status; notes are for endings
        glyph, label, _ = fmt.badge(event.status.value)
        text = f"{glyph} {label}" + (f": {event.error}" if event.error else "")
        status = event.status.value
        return lambda: Note(Content(text), classes=f"status -{status}")
    if isinstance(event, InputRequestedEvent):
        item = event.input
        who = item.route_label if item.route == "client" else "you"
        what = _KIND_LABEL.get(item.kind, item.kind)
        line = f"◆ asks {who}: {what} for {item.tool_name} (a: inbox)"
        return lambda: Note(Content(line), classes="input")
    if isinstance(event, InputResolvedEvent):
        verb = {"allow": "allowed", "deny": "denied"}.get(event.decision, event.decision)
        extra = f": {event.message}" if event.message else ""
        line = f"  {verb} by {event.decided_by}{extra}"
        return lambda: Note(Content(line), classes="input")
    if isinstance(event, ResultEvent):
        content, classes = _result_line(event), "-error" if event.is_error else ""
        return lambda: ResultBlock(content, classes=classes)
    if isinstance(event, ChangesEvent):
        if not event.files:
            return None
        changed = Content.assemble(
            ("  ± ", "$text-muted"),
            (event.summary, "bold"),
            ("  this turn · d: the session's diff", "$text-muted"),
        )
        return lambda: Note(changed, classes="changes")
    if isinstance(event, ErrorEvent):
        message = f"✗ {event.message}"
        return lambda: Note(Content(message), classes="error")
    return None


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
