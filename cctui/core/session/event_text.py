"""One line of text for each core event: what the MCP output lines, the seeds' messages and a
session's log file (seed 004's ``log_file``) say of it, written once."""

from __future__ import annotations

import json

from cctui.core.session.events import (
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
