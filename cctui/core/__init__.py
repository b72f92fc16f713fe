"""Sessions: state machine, event ring buffer, decisions, manager, registry, audit log.

Imports the ``claude`` adapter, ``history`` and ``config``; never textual or mcp.
"""

from cctui.claude.frames import ModelOption, PermissionModeName
from cctui.core.buffer import EventBuffer, Page
from cctui.core.decisions.allowances import call_detail
from cctui.core.decisions.requests import (
    OTHER_PREFIX,
    Decision,
    PendingInput,
    Question,
    QuestionOption,
    Resolution,
)
from cctui.core.decisions.routing import ELICIT_BOUND_S, Router
from cctui.core.decisions.service import Decisions
from cctui.core.events import (
    AssistantTextEvent,
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
from cctui.core.manager import Listener, SessionManager, WaitOutcome
from cctui.core.models import (
    PromptMark,
    SessionConfig,
    SessionInfo,
    SessionRecord,
    ToolUseSummary,
)
from cctui.core.rewind import RewindResult
from cctui.core.states import LIVE, SessionStatus

__all__ = [
    "ELICIT_BOUND_S",
    "LIVE",
    "OTHER_PREFIX",
    "AssistantTextEvent",
    "Decision",
    "Decisions",
    "ErrorEvent",
    "EventBuffer",
    "FilesRewoundEvent",
    "InputRequestedEvent",
    "InputResolvedEvent",
    "Listener",
    "ModelOption",
    "Page",
    "PendingInput",
    "PermissionModeName",
    "PromptMark",
    "Question",
    "QuestionOption",
    "Resolution",
    "ResultEvent",
    "RewindResult",
    "Router",
    "SessionConfig",
    "SessionEvent",
    "SessionInfo",
    "SessionManager",
    "SessionRecord",
    "SessionStatus",
    "SettingChangedEvent",
    "StatusChanged",
    "ToolUseEvent",
    "ToolUseSummary",
    "UserMessageEvent",
    "WaitOutcome",
    "call_detail",
]
