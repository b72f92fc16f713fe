"""Structured tool errors: ``{code, message, retryable, suggestion}``, never a traceback.

Tools raise ``CctuiError`` subclasses; the server turns every failure into a
``CallToolResult(is_error=True)`` whose ``structuredContent`` carries this shape and whose
text block is the same JSON, so a model reading either sees the code and what to do next.
"""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError

from cctui.errors import CctuiError
from cctui.redact import redact_text


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
