"""The adapter over claude-agent-sdk: launch options in, cctui frames out.

Owns: turning a ``LaunchSpec`` into ``ClaudeAgentOptions``, SDK messages into ``frames``,
the SDK's ``can_use_tool`` callback into a ``PermissionAsk``/``PermissionAnswer`` exchange,
and process lifetime (graceful, then forced). Must not import core, front ends or UI.

The names below are imported when first used (PEP 562): the core's models need only
``cctui.claude.modes``, and a one-shot command (``cctui sessions``) then skips the frames and
the driver (~0.03 s of CPU).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cctui.lazy import lazy_exports

if TYPE_CHECKING:
    from cctui.claude.driver import ClaudeDriver, Driver, DriverFactory
    from cctui.claude.frames import (
        AssistantText,
        Frame,
        Init,
        LaunchSpec,
        ModeChanged,
        PermissionAnswer,
        PermissionAsk,
        PermissionHandler,
        ProcessExited,
        PromptAccepted,
        RewindAnswer,
        TextDelta,
        ToolCall,
        ToolOutcome,
        TurnResult,
    )

_WHERE = {
    "ClaudeDriver": "cctui.claude.driver",
    "Driver": "cctui.claude.driver",
    "DriverFactory": "cctui.claude.driver",
    "AssistantText": "cctui.claude.frames",
    "Frame": "cctui.claude.frames",
    "Init": "cctui.claude.frames",
    "LaunchSpec": "cctui.claude.frames",
    "ModeChanged": "cctui.claude.frames",
    "PermissionAnswer": "cctui.claude.frames",
    "PermissionAsk": "cctui.claude.frames",
    "PermissionHandler": "cctui.claude.frames",
    "ProcessExited": "cctui.claude.frames",
    "PromptAccepted": "cctui.claude.frames",
    "RewindAnswer": "cctui.claude.frames",
    "TextDelta": "cctui.claude.frames",
    "ToolCall": "cctui.claude.frames",
    "ToolOutcome": "cctui.claude.frames",
    "TurnResult": "cctui.claude.frames",
}
"""Which module each exported name lives in."""


__getattr__ = lazy_exports(__name__, _WHERE, globals())


__all__ = [
    "AssistantText",
    "ClaudeDriver",
    "Driver",
    "DriverFactory",
    "Frame",
    "Init",
    "LaunchSpec",
    "ModeChanged",
    "PermissionAnswer",
    "PermissionAsk",
    "PermissionHandler",
    "ProcessExited",
    "PromptAccepted",
    "RewindAnswer",
    "TextDelta",
    "ToolCall",
    "ToolOutcome",
    "TurnResult",
]
