"""A session's events in the shape of the Claude Agent SDK's messages (seed 003).

Seed 003 returns ``messages: SDKMessage[]`` and notifies each ``message: SDKMessage``: a
client reads ``type`` (``assistant`` | ``user`` | ``result`` | ``system``), the assistant's
and user's ``message.content`` blocks, and the result's ``subtype``. cctui's core keeps
events, not SDK objects (nothing above ``claude/`` sees an SDK type), so this module words
each event as the SDK message it came from, in the SDK's field names; cctui's own one-line
rendering rides along as extra fields (``eventSeq``, ``kind``, ``text``, ``timestamp``;
a run numbers its messages in ``seq``).
cctui's notices (a decision asked or answered, an error) are ``system`` messages with a
``cctui_*`` subtype, which ``includeSystemMessages: false`` leaves out.
"""

from __future__ import annotations

from typing import Any

from cctui.core import SessionEvent
from cctui.core.session.events import (
    ApiRetryEvent,
    AssistantTextEvent,
    ResultEvent,
    StatusChanged,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.mcp_server.render import event_text


def sdk_messages(ev: SessionEvent, called: set[str] | None = None) -> list[dict[str, Any]]:
    """The SDK message(s) an event stands for; none for a status change.

    A tool call is published when it starts and again when it ends: ``called`` holds the
    tool_use ids already worded, so the start is the ``tool_use`` and the end only its
    ``tool_result`` (a call first seen finished gets both)."""
    sid = ev.session_id
    extra = {"eventSeq": ev.seq, "kind": ev.kind, "text": event_text(ev), "timestamp": _z(ev)}
    if isinstance(ev, AssistantTextEvent):
        return [_assistant(sid, [{"type": "text", "text": ev.text}], ev.message_id, extra)]
    if isinstance(ev, UserMessageEvent):
        return [_user(sid, [{"type": "text", "text": ev.text}], extra)]
    if isinstance(ev, ToolUseEvent):
        call = {"type": "tool_use", "id": ev.tool_use_id, "name": ev.name, "input": ev.input}
        seen = called is not None and ev.tool_use_id in called
        out = [] if seen else [_assistant(sid, [call], None, extra)]
        if called is not None:
            called.add(ev.tool_use_id)
        if ev.state != "running":
            block = {
                "type": "tool_result",
                "tool_use_id": ev.tool_use_id,
                "content": ev.result or "",
                "is_error": ev.state in ("denied", "failed"),
            }
            out.append(_user(sid, [block], extra))
        return out
    if isinstance(ev, ResultEvent):
        return [
            {
                "type": "result",
                "subtype": "error_during_execution" if ev.is_error else "success",
                "is_error": ev.is_error,
                "result": ev.result,
                "num_turns": ev.num_turns,
                "total_cost_usd": ev.total_cost_usd,
                "duration_ms": ev.duration_ms,
                "usage": ev.usage,
                "session_id": sid,
                **extra,
            }
        ]
    if isinstance(ev, ApiRetryEvent):  # the SDK's own system message
        return [
            {
                "type": "system",
                "subtype": "api_retry",
                "attempt": ev.attempt,
                "max_retries": ev.max_retries,
                "retry_delay_ms": ev.retry_delay_ms,
                "error_status": ev.error_status,
                "error": ev.error,
                "session_id": sid,
                **extra,
            }
        ]
    if isinstance(ev, StatusChanged):
        return []
    # cctui's own notices (a decision asked or answered, an error, files rewound).
    return [{"type": "system", "subtype": f"cctui_{ev.kind}", "session_id": sid, **extra}]


def is_system(message: dict[str, Any]) -> bool:
    """A ``system`` message (seed 003's ``includeSystemMessages`` filters these)."""
    return bool(message.get("type") == "system")


def _assistant(
    sid: str, content: list[dict[str, Any]], message_id: str | None, extra: dict[str, Any]
) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": content,
        **({"id": message_id} if message_id else {}),
    }
    return {
        "type": "assistant",
        "message": message,
        "parent_tool_use_id": None,
        "session_id": sid,
        **extra,
    }


def _user(sid: str, content: list[dict[str, Any]], extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": sid,
        **extra,
    }


def _z(ev: SessionEvent) -> str:
    return ev.at.isoformat().replace("+00:00", "Z")
