"""Structured tool errors: ``{code, message, retryable, suggestion}``, never a traceback.

Tools raise ``CctuiError`` subclasses; the server turns every failure into a
``CallToolResult(is_error=True)`` whose ``structuredContent`` carries this shape and whose
text block is the same JSON, so a model reading either sees the code and what to do next.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, cast, get_args

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError

from cctui.errors import CctuiError
from cctui.redact import redact_text
from cctui.review.models import ErrorCode as ReviewErrorCode
from cctui.review.models import ReviewOut


class ToolErrorInfo(BaseModel):
    """What a client gets when a tool fails."""

    code: str
    message: str
    retryable: bool = False
    suggestion: str | None = None


def error_result(info: ToolErrorInfo) -> CallToolResult:
    """An is_error result carrying ``info`` as JSON text.

    Not as ``structuredContent``: that must match the tool's declared output schema, and
    clients such as MCP Inspector reject an error result whose structured part does not,
    hiding the error from their user. Claude Code hands the text to the model as is.
    """
    return CallToolResult(
        content=[TextContent(type="text", text=info.model_dump_json())],
        is_error=True,
    )


def from_cctui_error(exc: CctuiError) -> ToolErrorInfo:
    """Map a core error; its class carries the code and whether a retry can help."""
    return ToolErrorInfo(
        code=exc.code,
        message=redact_text(exc.message),
        retryable=exc.retryable,
        suggestion=redact_text(exc.suggestion) if exc.suggestion else None,
    )


def from_validation_error(tool: str, exc: ValidationError) -> ToolErrorInfo:
    """Name the bad fields, not the values (they are the caller's data)."""
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        problems.append(f"{where}: {err['msg']}")
    return ToolErrorInfo(
        code="validation_error",
        message=f"Invalid arguments for {tool}: " + "; ".join(problems),
        retryable=False,
        suggestion="Fix the listed arguments; the tool's input schema lists every field.",
    )


def unknown_arguments(
    tool: str, unknown: list[str], accepted: list[str], seed_names: list[str]
) -> ToolErrorInfo:
    """Arguments the tool does not take: refused, since dropping them would change the call's
    meaning without the caller knowing (a filter that filters nothing, a missing setting)."""
    names = ", ".join(unknown)
    takes = ", ".join(accepted) or "no arguments"
    return ToolErrorInfo(
        code="validation_error",
        message=f"{tool} does not take {names}. It takes: {takes}."
        + (f" Seed names it also takes: {', '.join(seed_names)}." if seed_names else ""),
        retryable=False,
        suggestion="Remove the unknown arguments or use the tool's names (tools/list shows "
        "each tool's input schema).",
    )


def message_too_long(tool: str, argument: str, length: int, limit: int) -> ToolErrorInfo:
    """A prompt or message over ``max_message_chars``: refused whole (a cut prompt would
    ask Claude something the caller did not write)."""
    return ToolErrorInfo(
        code="validation_error",
        message=f"{tool}: {argument} is {length:,} characters; the limit is {limit:,}.",
        retryable=False,
        suggestion="Send a shorter message, or put the text in a file and name the file "
        "(the limit is max_message_chars, MAX_MESSAGE_SIZE).",
    )


def unknown_tool(name: str) -> ToolErrorInfo:
    """A call to a tool this server does not have (or that the profile switched off)."""
    return ToolErrorInfo(
        code="unknown_tool",
        message=f"No tool named {name!r}.",
        suggestion="Call tools/list to see the available tools.",
    )


def not_in_profile(name: str, profile: str) -> ToolErrorInfo:
    """A call to a tool the server's ``--tools`` profile (or the config) does not serve."""
    return ToolErrorInfo(
        code="tool_not_available",
        message=f"{name!r} is not available: this server runs the {profile!r} tool profile.",
        suggestion="Call tools/list to see the tools this profile serves.",
    )


def internal(tool: str) -> ToolErrorInfo:
    """A crash: the details stay in cctui's log."""
    return ToolErrorInfo(
        code="internal_error",
        message=f"{tool} failed unexpectedly; the details are in cctui's log file.",
        retryable=True,
    )


# ---------------------------------------------------------------------------- seed 004

Seed004Code = Literal[
    "SESSION_NOT_FOUND",
    "SESSION_NOT_READY",
    "DOPPLER_ERROR",
    "PROCESS_ERROR",
    "VALIDATION_ERROR",
    "TIMEOUT_ERROR",
    "PERMISSION_ERROR",
]
"""Seed 004's ``ErrorCategory``."""

_SEED004_CODES: dict[str, Seed004Code] = {
    "session_not_found": "SESSION_NOT_FOUND",
    "input_not_found": "SESSION_NOT_FOUND",
    "team_not_found": "SESSION_NOT_FOUND",
    "session_not_ready": "SESSION_NOT_READY",
    "session_limit": "SESSION_NOT_READY",
    "validation_error": "VALIDATION_ERROR",
    "template_not_found": "VALIDATION_ERROR",
    "input_already_answered": "VALIDATION_ERROR",
    "unknown_tool": "VALIDATION_ERROR",
    "timeout": "TIMEOUT_ERROR",
    "tool_not_available": "PERMISSION_ERROR",
    "path_not_allowed": "PERMISSION_ERROR",
}


_SEED004_TOOL_NAMES = {
    "claude_create_session": "start_session",
    "claude_send_message": "send_message",
    "claude_kill_session": "kill_session",
    "claude_list_sessions": "list_sessions",
    "claude_sync_context": "sync_context",
    "claude_wait": "wait_for_completion",
    "claude_get_status": "stream_output",
}
_TOOL_NAME = re.compile(r"\b(" + "|".join(_SEED004_TOOL_NAMES) + r")\b")


def _seed004_words(text: str) -> str:
    """Advice naming cctui's tools, with seed 004's names where it has one."""
    return _TOOL_NAME.sub(lambda m: _SEED004_TOOL_NAMES[m.group(1)], text)


class Seed004Error(BaseModel):
    """The inside of seed 004's error envelope."""

    code: Seed004Code
    message: str
    details: dict[str, Any] | None = None
    """``cctui_code``: cctui's own code for the same error."""
    retryable: bool
    suggestion: str | None = None


class Seed004Envelope(BaseModel):
    """Seed 004's error response: ``{error: {code, message, details?, retryable,
    suggestion?}}``."""

    error: Seed004Error


def seed004_error(info: ToolErrorInfo) -> Seed004Envelope:
    """``info`` in seed 004's words: its upper-case category, cctui's code in ``details``.

    A launch prefix that cannot run is a ``DOPPLER_ERROR`` when it is Doppler's, else a
    ``PROCESS_ERROR``, as is anything else that kept a session from running.
    """
    if info.code == "launch_prefix_not_found":
        code: Seed004Code = "DOPPLER_ERROR" if "doppler" in info.message else "PROCESS_ERROR"
    else:
        code = _SEED004_CODES.get(info.code, "PROCESS_ERROR")
    return Seed004Envelope(
        error=Seed004Error(
            code=code,
            message=_seed004_words(info.message),
            details={"cctui_code": info.code},
            retryable=info.retryable,
            suggestion=_seed004_words(info.suggestion) if info.suggestion else None,
        )
    )


def seed004_result(info: ToolErrorInfo) -> CallToolResult:
    """An is_error result carrying ``info`` in seed 004's envelope (``None`` left out: the
    seed's optional fields are absent, never null)."""
    body = seed004_error(info).model_dump_json(exclude_none=True)
    return CallToolResult(content=[TextContent(type="text", text=body)], is_error=True)


def seed001_result(info: ToolErrorInfo, model: type[ReviewOut] = ReviewOut) -> CallToolResult:
    """A review tool's refused call as seed 001's result, not an MCP error: every tool of
    that seed answers ``{success, ...}`` JSON, and its clients branch on ``success`` and
    ``error_code`` (a bad path included)."""
    code = info.code if info.code in get_args(ReviewErrorCode) else "internal_error"
    out = model(
        success=False,
        error=code,
        error_code=cast(ReviewErrorCode, code),
        error_message=info.message,
        suggestion=info.suggestion,
        retryable=info.retryable,
    )
    body = out.model_dump(mode="json")
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body))], structured_content=body
    )
