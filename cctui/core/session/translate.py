"""A session's frames become its state and events: merged text, the tool table, results.

The owner task (``process.py``) feeds every frame here. Of the process exit only the text
still unsaid is this module's (``TEXT_PACE_S``): what the exit means depends on who stopped
the process, which the owner knows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from cctui.claude.frames import (
    DENIED_IN_RESULT,
    ApiRetry,
    AssistantText,
    Frame,
    Init,
    ModeChanged,
    PermissionDenied,
    ProcessExited,
    PromptAccepted,
    RateLimited,
    TextDelta,
    ToolCall,
    ToolOutcome,
    TurnResult,
)
from cctui.claude.hints import with_hint
from cctui.core.session.events import (
    ApiRetryEvent,
    AssistantTextEvent,
    ErrorEvent,
    ResultEvent,
    ToolUseEvent,
)
from cctui.core.session.models import ToolUseSummary
from cctui.core.session.process import TurnTimer
from cctui.core.session.session_state import SessionState
from cctui.core.session.states import SessionStatus
from cctui.redact import redact_text

S = SessionStatus
_TOOL_RESULT_MAX = 2000
# Tool calls remembered per session for status readers; the ring buffer holds the rest.
_TOOLS_KEPT = 200
TEXT_PACE_S = 0.02
"""Streamed text is published at most this often per session, and at once before anything
else the session says. The CLI sends a reply in deltas of a few characters (5,000 for 50 KB),
and each published event costs its readers (the ring buffer, every subscriber, the TUI's
bridge): no reader draws or polls faster than this."""


class FrameTranslator:
    """Turns one session's driver frames into state changes and events."""

    def __init__(self, state: SessionState, timer: TurnTimer) -> None:
        self._state = state
        self._timer = timer
        self.denied: set[str] = set()
        """tool_use ids denied and recorded (by the desk, its hook, or a ``permission_denied``
        frame), so their outcome reads ``denied``, not ``failed``."""
        self.on_refused: Callable[[PermissionDenied, dict[str, Any]], None] | None = None
        """Told when the CLI refused a call without asking (auto mode, a deny rule): the
        refusal and the call's input (the session's desk sets it)."""
        self.tools: dict[str, ToolUseEvent] = {}
        """The newest tool calls, by tool_use id, oldest first."""
        self._usage_limit: datetime | None = None
        """The reset time of the usage limit while the CLI's last ``rate_limit_event`` said
        ``rejected`` (None once one said otherwise). Kept across turns: the CLI reports the
        window only when it changes, so a second turn refused at the same limit brings no
        event of its own, only its error result (docs/dispatch.md)."""
        self._limit_this_turn = False
        """A ``rejected`` event came since the last result."""
        self._api_error: str | None = None
        """The API error this turn's reply was written for by the CLI, if any."""
        self._texts: dict[str, tuple[list[str], str]] = {}
        """Per message id: its finished text blocks, and the block still streaming."""
        self._unsaid: set[str] = set()
        """Message ids whose newest streamed text is not published yet (``TEXT_PACE_S``)."""
        self._pace: asyncio.TimerHandle | None = None

    def handle(self, frame: Frame) -> None:
        """Apply one frame; for ``ProcessExited`` only say what is still unsaid (the exit's
        meaning is the process owner's)."""
        session = self._state
        if isinstance(frame, TextDelta):
            done, current = self._texts.get(frame.message_id, ([], ""))
            self._texts[frame.message_id] = (done, current + frame.text)
            self._unsaid.add(frame.message_id)
            if self._pace is None:
                self._pace = asyncio.get_running_loop().call_later(TEXT_PACE_S, self.flush_text)
            return
        if isinstance(frame, AssistantText):
            self._unsaid.discard(frame.message_id)  # the whole block follows at once
        self.flush_text()
        if isinstance(frame, ProcessExited):
            return
        if isinstance(frame, ModeChanged):
            session.change_mode(frame.permission_mode)
        elif isinstance(frame, Init):
            if frame.permission_mode:
                session.change_mode(frame.permission_mode)
            if frame.model:
                session.model = frame.model
            if session.turns.init_seen():  # a turn we did not count (queued before an interrupt)
                session.set_status(S.RUNNING)
        elif isinstance(frame, AssistantText):
            if frame.api_error:
                self._api_error = frame.api_error
            done, _ = self._texts.get(frame.message_id, ([], ""))
            self._texts[frame.message_id] = ([*done, frame.text], "")
            self._publish_text(frame.message_id, complete=True)
        elif isinstance(frame, ToolCall):
            event = ToolUseEvent(
                session_id=session.id,
                tool_use_id=frame.tool_use_id,
                name=frame.name,
                input=frame.input,
            )
            self._remember_tool(event)
            session.publish(event)
        elif isinstance(frame, ToolOutcome):
            self._on_tool_outcome(frame)
        elif isinstance(frame, ApiRetry):
            session.publish(
                ApiRetryEvent(
                    session_id=session.id,
                    attempt=frame.attempt,
                    max_retries=frame.max_retries,
                    retry_delay_ms=frame.retry_delay_ms,
                    error_status=frame.error_status,
                    error=frame.error,
                )
            )
        elif isinstance(frame, PermissionDenied):
            call = self.tools.get(frame.tool_use_id or "")
            if frame.tool_use_id:
                self.denied.add(frame.tool_use_id)  # its error result marks it denied
            if self.on_refused is not None:
                self.on_refused(frame, dict(call.input) if call is not None else {})
        elif isinstance(frame, RateLimited):
            self._usage_limit = (
                datetime.fromtimestamp(frame.resets_at, UTC)
                if frame.status == "rejected" and frame.resets_at is not None
                else None
            )
            self._limit_this_turn = self._usage_limit is not None
        elif isinstance(frame, TurnResult):
            self._on_result(frame)
        elif isinstance(frame, PromptAccepted):
            session.prompts.accept(frame.prompt_id)

    def tool_summaries(self) -> list[ToolUseSummary]:
        """Tool calls of this session's current buffer lifetime, oldest first."""
        return [
            ToolUseSummary(
                tool_use_id=t.tool_use_id,
                name=t.name,
                state=t.state,
                input_preview=_preview(t.input),
            )
            for t in self.tools.values()
        ]

    def flush_text(self) -> None:
        """Publish the streamed text not published yet."""
        if self._pace is not None:
            self._pace.cancel()
            self._pace = None
        unsaid, self._unsaid = self._unsaid, set()
        for message_id in unsaid:
            if message_id in self._texts:
                self._publish_text(message_id, complete=False)

    def _publish_text(self, message_id: str, complete: bool) -> None:
        # The event carries the whole message so far; readers replace the earlier one.
        done, current = self._texts[message_id]
        text = "\n\n".join([*done, current] if current else done)
        self._state.publish(
            AssistantTextEvent(
                session_id=self._state.id, message_id=message_id, text=text, complete=complete
            ),
            merge_key="text:" + message_id,
        )

    def _on_tool_outcome(self, frame: ToolOutcome) -> None:
        call = self.tools.get(frame.tool_use_id)
        name, tool_input = (call.name, call.input) if call else ("?", {})
        if frame.tool_use_id in self.denied:
            state = "denied"
        elif frame.is_error:
            state = "failed"
        else:
            state = "completed"
        event = ToolUseEvent(
            session_id=self._state.id,
            tool_use_id=frame.tool_use_id,
            name=name,
            input=tool_input,
            state=state,
            result=frame.content[:_TOOL_RESULT_MAX],
        )
        self._remember_tool(event)
        self._state.publish(event)

    def _remember_tool(self, event: ToolUseEvent) -> None:
        """Keep the newest ``_TOOLS_KEPT`` calls so a long session's memory stays bounded."""
        self.tools[event.tool_use_id] = event  # an update keeps the call's place in order
        while len(self.tools) > _TOOLS_KEPT:
            del self.tools[next(iter(self.tools))]

    def _denied_unseen(self, frame: TurnResult) -> None:
        """The refusals the CLI reported only in the result's ``permission_denials``: a
        Read or Edit a path deny rule refused (it sends no ``permission_denied`` frame,
        only the error result), or a hook of its settings. Each becomes a refusal like the
        framed ones (recorded by the desk), and its tool line reads denied."""
        for denial in frame.permission_denials:
            tool_use_id = denial.get("tool_use_id")
            if not isinstance(tool_use_id, str) or tool_use_id in self.denied:
                continue
            self.denied.add(tool_use_id)
            call = self.tools.get(tool_use_id)
            tool_input = denial.get("tool_input")
            if call is not None and call.state == "failed":
                event = call.model_copy(update={"state": "denied"})
                self._remember_tool(event)
                self._state.publish(event)
            if self.on_refused is None:
                continue
            refusal = PermissionDenied(
                tool_name=str(denial.get("tool_name") or (call.name if call else "")),
                tool_use_id=tool_use_id,
                reason_type=DENIED_IN_RESULT,
                reason_code=None,
                reason="refused by Claude Code's own settings",
                message=call.result or "" if call is not None else "",
            )
            if isinstance(tool_input, dict):
                self.on_refused(refusal, dict(tool_input))
            else:
                self.on_refused(refusal, dict(call.input) if call is not None else {})

    def _on_result(self, frame: TurnResult) -> None:
        session = self._state
        self._denied_unseen(frame)
        session.turns.result(frame.total_cost_usd, frame.num_turns, frame.usage)
        session.last_result = frame.result
        self._texts.clear()
        self._timer.disarm()
        if session.turns.busy:
            self._timer.arm()
        interrupted, session.interrupting = session.interrupting, False
        # Refused at the usage limit: an error turn (a 429, or one the rejection came in:
        # a CLI older than api_error_status) while the window is rejected.
        fresh, self._limit_this_turn = self._limit_this_turn, False
        refused = frame.is_error and (frame.api_error_status == 429 or fresh)
        limit = self._usage_limit if refused else None
        session.publish(
            ResultEvent(
                session_id=session.id,
                is_error=frame.is_error,
                result=frame.result,
                num_turns=frame.num_turns,
                total_cost_usd=session.turns.total_cost,
                duration_ms=frame.duration_ms,
                terminal_reason=frame.terminal_reason,
                usage=dict(frame.usage),
                interrupted=interrupted,
                usage_limit_resets_at=limit,
            )
        )
        api_error, self._api_error = self._api_error, None
        if frame.is_error and not interrupted:
            message = redact_text(frame.result or "; ".join(frame.errors) or frame.subtype)
            message = with_hint(message, api_error)
            session.publish(ErrorEvent(session_id=session.id, message=message))
            if not session.turns.busy:
                session.set_status(S.ERROR, error=message)
                return
        if session.turns.busy:
            session.set_status(S.RUNNING)
        else:
            session.set_status(S.INTERRUPTED if interrupted else S.IDLE)


def _preview(tool_input: dict[str, object]) -> str:
    for key in ("command", "file_path", "path", "pattern", "url", "description"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value[:120]
    return str(tool_input)[:120]
