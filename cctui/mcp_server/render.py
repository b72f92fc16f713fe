"""One-line renderings of core events, for ``sinceSeq`` readers and query notifications."""

from __future__ import annotations

import json

from cctui.core import (
    SETTING_NAMES,
    ApiRetryEvent,
    AssistantTextEvent,
    ChangesEvent,
    ErrorEvent,
    FilesRewoundEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    SettingChangedEvent,
    StatusChanged,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.mcp_server.schemas.sessions import EventOut, ToolUseOut


def _short(value: object, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def event_text(ev: SessionEvent) -> str:
    """A short human/model-readable line for one event."""
    match ev:
        case AssistantTextEvent():
            return ev.text
        case UserMessageEvent():
            return f"> {ev.text}"
        case ToolUseEvent():
            tail = f" -> {_short(ev.result, 200)}" if ev.result else ""
            return f"[{ev.state}] {ev.name} {_short(ev.input)}{tail}"
        case InputRequestedEvent():
            item = ev.input
            shown = _short(item.tool_input)
            return f"[needs {item.kind}] {item.tool_name} {shown} (inputId {item.id})"
        case InputResolvedEvent():
            return f"[{ev.decision} by {ev.decided_by}] input {ev.input_id} {ev.message}".rstrip()
        case ResultEvent():
            state = "error" if ev.is_error else "done"
            return f"[turn {state}] {ev.result or ''}".rstrip()
        case StatusChanged():
            return f"[status] {ev.status}" + (f": {ev.error}" if ev.error else "")
        case ChangesEvent():
            return f"[changes] {ev.summary}"
        case SettingChangedEvent():
            what = SETTING_NAMES[ev.setting]
            when = "" if ev.applies == "now" else " (at the next start)"
            return f"[{what}] {ev.previous or 'default'} -> {ev.value or 'default'}{when}"
        case FilesRewoundEvent():
            where = f"prompt {ev.prompt_index}" if ev.prompt_index is not None else ev.prompt_id
            return (
                f"[files rewound to before {where} by {ev.by}] {len(ev.files)} file(s) "
                f"+{ev.insertions} -{ev.deletions}"
            )
        case ErrorEvent():
            return f"[error] {ev.message}"
        case ApiRetryEvent():
            why = ev.error_status or ev.error or "error"
            return f"[api retry {ev.attempt}] {why}; retrying in {ev.retry_delay_ms or 0} ms"


def event_out(ev: SessionEvent) -> EventOut:
    """The wire form of one buffered event."""
    return EventOut(seq=ev.seq, kind=ev.kind, text=event_text(ev), data=ev.model_dump(mode="json"))


def output_lines(events: list[SessionEvent], limit: int) -> list[str]:
    """The last ``limit`` lines of assistant text (merged messages, newest last)."""
    # From the newest message back, so a poll splits only what it returns.
    lines: list[str] = []
    for ev in reversed(events):
        if len(lines) >= limit:
            break
        if isinstance(ev, AssistantTextEvent):
            lines[:0] = ev.text.splitlines() or [""]
    return lines[-limit:] if limit > 0 else []


def tool_uses(events: list[SessionEvent]) -> list[ToolUseOut]:
    """Every tool call in the buffer, in its latest state."""
    latest: dict[str, ToolUseOut] = {}
    for ev in events:
        if isinstance(ev, ToolUseEvent):
            latest[ev.tool_use_id] = ToolUseOut(
                tool_use_id=ev.tool_use_id,
                tool_name=ev.name,
                status="completed" if ev.state == "failed" else ev.state,
                failed=ev.state == "failed",
                input=ev.input,
            )
    return list(latest.values())
