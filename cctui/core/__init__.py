"""Sessions: state machine, event ring buffer, decisions, manager, records, audit log.

Imports the ``claude`` adapter, ``history`` and ``config``; never textual or mcp.

The names below are imported when first used (PEP 562): a one-shot command that needs one
room of the core (``cctui sessions`` reads the catalog) no longer pays for the manager, the
decisions service and the claude driver at start (~0.3 s of CPU).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cctui.claude.frames import ModelOption, PermissionModeName
    from cctui.core.buffer import EventBuffer, Page
    from cctui.core.decisions.allowances import call_detail
    from cctui.core.decisions.requests import OTHER_PREFIX
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
    from cctui.core.inputs import Decision, PendingInput, Question, QuestionOption, Resolution
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

_WHERE = {
    "ModelOption": "cctui.claude.frames",
    "PermissionModeName": "cctui.claude.frames",
    "EventBuffer": "cctui.core.buffer",
    "Page": "cctui.core.buffer",
    "call_detail": "cctui.core.decisions.allowances",
    "OTHER_PREFIX": "cctui.core.decisions.requests",
    "Decision": "cctui.core.inputs",
    "PendingInput": "cctui.core.inputs",
    "Question": "cctui.core.inputs",
    "QuestionOption": "cctui.core.inputs",
    "Resolution": "cctui.core.inputs",
    "ELICIT_BOUND_S": "cctui.core.decisions.routing",
    "Router": "cctui.core.decisions.routing",
    "Decisions": "cctui.core.decisions.service",
    "DiffFile": "cctui.core.diffs",
    "SessionDiff": "cctui.core.diffs",
    "SETTING_NAMES": "cctui.core.events",
    "ApiRetryEvent": "cctui.core.events",
    "AssistantTextEvent": "cctui.core.events",
    "ChangesEvent": "cctui.core.events",
    "ErrorEvent": "cctui.core.events",
    "FilesRewoundEvent": "cctui.core.events",
    "InputRequestedEvent": "cctui.core.events",
    "InputResolvedEvent": "cctui.core.events",
    "LiveSetting": "cctui.core.events",
    "ResultEvent": "cctui.core.events",
    "SessionEvent": "cctui.core.events",
    "SettingChangedEvent": "cctui.core.events",
    "StatusChanged": "cctui.core.events",
    "ToolUseEvent": "cctui.core.events",
    "UserMessageEvent": "cctui.core.events",
    "Listener": "cctui.core.manager",
    "SessionManager": "cctui.core.manager",
    "WaitOutcome": "cctui.core.manager",
    "PromptMark": "cctui.core.models",
    "SessionConfig": "cctui.core.models",
    "SessionInfo": "cctui.core.models",
    "SessionRecord": "cctui.core.models",
    "ToolUseSummary": "cctui.core.models",
    "WorktreeInfo": "cctui.core.models",
    "RewindResult": "cctui.core.rewind",
    "BUSY": "cctui.core.states",
    "LIVE": "cctui.core.states",
    "SessionStatus": "cctui.core.states",
    "FinishPreview": "cctui.core.worktrees",
    "FinishResult": "cctui.core.worktrees",
    "MergeConflict": "cctui.core.worktrees",
    "NoWorktree": "cctui.core.worktrees",
    "WorktreeGone": "cctui.core.worktrees",
    "WorktreeRefused": "cctui.core.worktrees",
}
"""Which module each exported name lives in."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
