"""Sessions: state machine, event ring buffer, pending inputs, manager, registry, audit log.

Imports the ``claude`` adapter, ``history`` and ``config``; never textual or mcp.
"""

from cctui.claude.frames import PermissionModeName
from cctui.core.buffer import EventBuffer, Page
from cctui.core.events import (
    AssistantTextEvent,
    ErrorEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.core.manager import InputRouter, Listener, SessionManager, WaitOutcome
from cctui.core.models import SessionConfig, SessionInfo, SessionRecord, ToolUseSummary
from cctui.core.pending import Decision, PendingInput, Question, QuestionOption, Resolution
from cctui.core.states import LIVE, SessionStatus

__all__ = [
    "LIVE",
    "AssistantTextEvent",
    "Decision",
    "ErrorEvent",
    "EventBuffer",
    "InputRequestedEvent",
    "InputResolvedEvent",
    "InputRouter",
    "Listener",
    "Page",
    "PendingInput",
    "PermissionModeName",
    "Question",
    "QuestionOption",
    "Resolution",
    "ResultEvent",
    "SessionConfig",
    "SessionEvent",
    "SessionInfo",
    "SessionManager",
    "SessionRecord",
    "SessionStatus",
    "StatusChanged",
    "ToolUseEvent",
    "ToolUseSummary",
    "UserMessageEvent",
    "WaitOutcome",
]
