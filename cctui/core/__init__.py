"""Sessions: state machine, event ring buffer, decisions, manager, records, audit log.

Imports the ``claude`` adapter, ``history`` and ``config``; never textual or mcp.

The names below are imported when first used (PEP 562): a one-shot command that needs one
room of the core (``cctui sessions`` reads the catalog) no longer pays for the manager, the
decisions service and the claude driver at start (~0.3 s of CPU).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cctui.lazy import lazy_exports

if TYPE_CHECKING:
    from cctui.claude.frames import ModelOption, PermissionModeName
    from cctui.core.decisions.allowances import call_detail
    from cctui.core.decisions.requests import OTHER_PREFIX
    from cctui.core.decisions.routing import ELICIT_BOUND_S, Router
    from cctui.core.decisions.service import Decisions
    from cctui.core.diffs import DiffFile, SessionDiff
    from cctui.core.manager import Listener, SessionManager, WaitOutcome
    from cctui.core.rewind import RewindResult
    from cctui.core.session.buffer import EventBuffer, Page
    from cctui.core.session.events import (
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
    from cctui.core.session.inputs import (
        Decision,
        PendingInput,
        Question,
        QuestionOption,
        Resolution,
    )
    from cctui.core.session.models import (
        PromptMark,
        SessionConfig,
        SessionInfo,
        SessionRecord,
        ToolUseSummary,
        WorktreeInfo,
    )
    from cctui.core.session.states import BUSY, LIVE, SessionStatus
    from cctui.core.worktrees import (
        FinishPreview,
        FinishResult,
        MergeConflict,
        NoWorktree,
        WorktreeGone,
        WorktreeRefused,
    )

_WHERE = {
    "ModelOption": "cctui.claude.frames",
    "PermissionModeName": "cctui.claude.frames",
    "EventBuffer": "cctui.core.session.buffer",
    "Page": "cctui.core.session.buffer",
    "call_detail": "cctui.core.decisions.allowances",
    "OTHER_PREFIX": "cctui.core.decisions.requests",
    "Decision": "cctui.core.session.inputs",
    "PendingInput": "cctui.core.session.inputs",
    "Question": "cctui.core.session.inputs",
    "QuestionOption": "cctui.core.session.inputs",
    "Resolution": "cctui.core.session.inputs",
    "ELICIT_BOUND_S": "cctui.core.decisions.routing",
    "Router": "cctui.core.decisions.routing",
    "Decisions": "cctui.core.decisions.service",
    "DiffFile": "cctui.core.diffs",
    "SessionDiff": "cctui.core.diffs",
    "SETTING_NAMES": "cctui.core.session.events",
    "ApiRetryEvent": "cctui.core.session.events",
    "AssistantTextEvent": "cctui.core.session.events",
    "ChangesEvent": "cctui.core.session.events",
    "ErrorEvent": "cctui.core.session.events",
    "FilesRewoundEvent": "cctui.core.session.events",
    "InputRequestedEvent": "cctui.core.session.events",
    "InputResolvedEvent": "cctui.core.session.events",
    "LiveSetting": "cctui.core.session.events",
    "ResultEvent": "cctui.core.session.events",
    "SessionEvent": "cctui.core.session.events",
    "SettingChangedEvent": "cctui.core.session.events",
    "StatusChanged": "cctui.core.session.events",
    "ToolUseEvent": "cctui.core.session.events",
    "UserMessageEvent": "cctui.core.session.events",
    "Listener": "cctui.core.manager",
    "SessionManager": "cctui.core.manager",
    "WaitOutcome": "cctui.core.manager",
    "PromptMark": "cctui.core.session.models",
    "SessionConfig": "cctui.core.session.models",
    "SessionInfo": "cctui.core.session.models",
    "SessionRecord": "cctui.core.session.models",
    "ToolUseSummary": "cctui.core.session.models",
    "WorktreeInfo": "cctui.core.session.models",
    "RewindResult": "cctui.core.rewind",
    "BUSY": "cctui.core.session.states",
    "LIVE": "cctui.core.session.states",
    "SessionStatus": "cctui.core.session.states",
    "FinishPreview": "cctui.core.worktrees",
    "FinishResult": "cctui.core.worktrees",
    "MergeConflict": "cctui.core.worktrees",
    "NoWorktree": "cctui.core.worktrees",
    "WorktreeGone": "cctui.core.worktrees",
    "WorktreeRefused": "cctui.core.worktrees",
}
"""Which module each exported name lives in."""


__getattr__ = lazy_exports(__name__, _WHERE, globals())


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
