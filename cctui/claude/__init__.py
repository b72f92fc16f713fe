"""The adapter over claude-agent-sdk: launch options in, cctui frames out.

Owns: turning a ``LaunchSpec`` into ``ClaudeAgentOptions``, SDK messages into ``frames``,
the SDK's ``can_use_tool`` callback into a ``PermissionAsk``/``PermissionAnswer`` exchange,
and process lifetime (graceful, then forced). Must not import core, front ends or UI.
"""

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
