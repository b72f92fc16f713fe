"""The one-line widgets of a transcript: a prompt, a status ending, an approval asked and
answered, a change of mode or model, a turn's result, an error (what ``Transcript`` mounts
for each such event)."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.widget import Widget

from cctui.core import (
    ErrorEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    SettingChangedEvent,
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
    if isinstance(event, SettingChangedEvent):
        setting = setting_line(event)
        return lambda: Note(setting, classes="setting")
    if isinstance(event, ErrorEvent):
        message = f"✗ {event.message}"
        return lambda: Note(Content(message), classes="error")
    return None


def setting_line(event: SettingChangedEvent) -> Content:
    """``◇ mode default → plan · claude confirmed it``: what changed and when it took effect."""
    what = "mode" if event.setting == "permission_mode" else "model"
    before, after = event.previous or "default", event.value or "default"
    if event.applies == "next_start":
        when = "from the next start"
    elif event.setting == "permission_mode":
        when = "claude confirmed it"
    else:
        when = "from the next request"
    return Content.assemble(
        ("◇ ", "$text-accent"),
        (f"{what} ", "bold"),
        f"{before} → ",
        (after, "bold"),
        (f" · {when}", "$text-muted"),
    )


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
