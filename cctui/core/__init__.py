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
from cctui.core.diffs import DiffFile, SessionDiff
from cctui.core.events import (
    SETTING_NAMES,
    ApiRetryEvent,
    AssistantTextEvent,
    ChangesEvent,
    ErrorEvent,
    FilesRewoundEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    LiveSetting,
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
    WorktreeInfo,
)
from cctui.core.rewind import RewindResult
from cctui.core.states import BUSY, LIVE, SessionStatus
from cctui.core.worktrees import (
    FinishPreview,
    FinishResult,
    MergeConflict,
    NoWorktree,
    WorktreeGone,
    WorktreeRefused,
)

__all__ = [
    "BUSY",
    "ELICIT_BOUND_S",
    "LIVE",
    "OTHER_PREFIX",
    "SETTING_NAMES",
    "ApiRetryEvent",
    "AssistantTextEvent",
    "ChangesEvent",
    "Decision",
    "Decisions",
    "DiffFile",
    "ErrorEvent",
    "EventBuffer",
    "FilesRewoundEvent",
    "FinishPreview",
    "FinishResult",
    "InputRequestedEvent",
    "InputResolvedEvent",
    "Listener",
    "LiveSetting",
    "MergeConflict",
    "ModelOption",
    "NoWorktree",
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
    "SessionDiff",
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
    "WorktreeGone",
    "WorktreeInfo",
    "WorktreeRefused",
    "call_detail",
]
