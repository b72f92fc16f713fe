"""One-line renderings of core events, for ``sinceSeq`` readers and query notifications."""

from __future__ import annotations

from cctui.core import (
    AssistantTextEvent,
    SessionEvent,
    ToolUseEvent,
)
from cctui.core.session.event_text import event_text
from cctui.mcp_server.schemas.sessions import EventOut, ToolUseOut

__all__ = ["event_out", "event_text", "output_lines", "tool_uses"]


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
