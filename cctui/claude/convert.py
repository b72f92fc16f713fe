"""claude-agent-sdk messages -> cctui frames (pure; one converter per process).

Facts this relies on (CLI 2.1.330, see research/cli-protocol.md §5): ``system/init``
repeats at every turn; ``assistant`` lines carry one content block each and share the
message id; ``stream_event`` carries raw SSE events whose ``message_start`` names the
message the following text deltas belong to; a ``result`` may be ``success`` and still
``is_error`` (API errors); with ``--replay-user-messages`` each prompt the CLI takes in comes
back as a ``user`` message with the prompt's uuid (tool results never look like that).
"""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    RateLimitEvent,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from cctui.claude.frames import (
    ApiRetry,
    AssistantText,
    Frame,
    Init,
    ModeChanged,
    PermissionDenied,
    PromptAccepted,
    RateLimited,
    TextDelta,
    ToolCall,
    ToolOutcome,
    TurnResult,
)


class FrameConverter:
    """Keeps the little state conversion needs (the message a delta stream belongs to)."""

    def __init__(self) -> None:
        self._stream_message_id: str | None = None

    def convert(self, message: object) -> list[Frame]:
        """Frames for one SDK message (often none)."""
        if isinstance(message, StreamEvent):
            return self._stream(message)
        if isinstance(message, AssistantMessage):
            return self._assistant(message)
        if isinstance(message, UserMessage):
            return self._user(message)
        if isinstance(message, ResultMessage):
            return [_result(message)]
        if isinstance(message, SystemMessage):
            return _system(message)
        if isinstance(message, RateLimitEvent):
            info = message.rate_limit_info
            return [RateLimited(info.status, info.resets_at, info.rate_limit_type)]
        return []

    def _stream(self, message: StreamEvent) -> list[Frame]:
        if message.parent_tool_use_id is not None:  # a subagent's stream
            return []
        event = message.event
        kind = event.get("type")
        if kind == "message_start":
            self._stream_message_id = (event.get("message") or {}).get("id")
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta" and self._stream_message_id:
                return [TextDelta(self._stream_message_id, str(delta.get("text", "")))]
        return []

    def _assistant(self, message: AssistantMessage) -> list[Frame]:
        if message.parent_tool_use_id is not None:
            return []
        mid = message.message_id or self._stream_message_id or "msg_unknown"
        frames: list[Frame] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                frames.append(AssistantText(mid, block.text, message.error))
            elif isinstance(block, ToolUseBlock):
                frames.append(ToolCall(mid, block.id, block.name, dict(block.input)))
        return frames

    def _user(self, message: UserMessage) -> list[Frame]:
        if message.parent_tool_use_id is not None:
            return []
        if isinstance(message.content, str) or not any(
            isinstance(b, ToolResultBlock) for b in message.content
        ):
            # A prompt the CLI echoes (replay); the core ignores ids it did not send.
            return [PromptAccepted(message.uuid)] if message.uuid else []
        return [
            ToolOutcome(b.tool_use_id, _content_text(b.content), bool(b.is_error))
            for b in message.content
            if isinstance(b, ToolResultBlock)
        ]


def _system(message: SystemMessage) -> list[Frame]:
    data = message.data
    if message.subtype == "init":
        return [
            Init(
                session_id=str(data.get("session_id", "")),
                model=data.get("model"),
                cwd=data.get("cwd"),
                permission_mode=data.get("permissionMode"),
                tools=tuple(data.get("tools") or ()),
            )
        ]
    if message.subtype == "status" and isinstance(data.get("permissionMode"), str):
        return [ModeChanged(data["permissionMode"])]
    if message.subtype == "permission_denied":
        return [
            PermissionDenied(
                tool_name=str(data.get("tool_name") or ""),
                tool_use_id=str(data["tool_use_id"]) if data.get("tool_use_id") else None,
                reason_type=_str(data.get("decision_reason_type")),
                reason_code=_str(data.get("decision_reason_code")),
                reason=str(data.get("decision_reason") or data.get("message") or "denied"),
                message=str(data.get("message") or ""),
            )
        ]
    if message.subtype == "api_retry":
        return [
            ApiRetry(
                attempt=_int(data.get("attempt")) or 1,
                max_retries=_int(data.get("max_retries")),
                retry_delay_ms=_int(data.get("retry_delay_ms")),
                error_status=_int(data.get("error_status")),
                error=str(data["error"]) if data.get("error") is not None else None,
            )
        ]
    return []


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _result(message: ResultMessage) -> TurnResult:
    return TurnResult(
        session_id=message.session_id,
        is_error=message.is_error,
        subtype=message.subtype,
        result=message.result,
        num_turns=message.num_turns,
        duration_ms=message.duration_ms,
        total_cost_usd=message.total_cost_usd,
        terminal_reason=message.terminal_reason,
        errors=tuple(message.errors or ()),
        permission_denials=tuple(
            d for d in message.permission_denials or () if isinstance(d, dict)
        ),
        usage=dict(message.usage or {}),
        api_error_status=message.api_error_status,
    )


def _content_text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(json.dumps(block, default=str))
    return "\n".join(parts)
