"""The MCP server: cctui's tools over the session core, structured errors, an audit trail."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import TextContent
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as MCPTool
from pydantic import ValidationError

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.errors import CctuiError
from cctui.mcp_server import compat, errors, tools
from cctui.mcp_server.asking.decisions import client_label
from cctui.mcp_server.asking.idle_notices import IdleNotices
from cctui.mcp_server.history_view import HistoryView
from cctui.mcp_server.schemas import seed004
from cctui.mcp_server.schemas.common import HOST_TOOLS
from cctui.mcp_server.schemas.flat import flatten
from cctui.mcp_server.tools.health import SERVER_VERSION
from cctui.owner import KEYED_TOOLS
from cctui.redact import redact_text
from cctui.remote.client import hosts_from
from cctui.remote.hosts import Hosts
from cctui.services import Services

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
cctui drives real Claude Code sessions. Start one with claude_create_session (returns at \
once), then claude_wait until it needs a decision or finishes; claude_send_message continues \
any session (ended ones are resumed). Decisions (tool permissions, plan reviews, questions) \
are asked by elicitation when your client supports it; otherwise answer them with \
claude_respond using the inputId from claude_wait or claude_get_status. claude_query runs \
one task to completion in a single call."""

MENU_INSTRUCTIONS = """\
cctui's review menu: fixed-prompt reviews by Claude with read-only tools. You pass paths \
(inside a registered project or a configured review root), never instructions. \
claude_judge_review (also named claude_review) judges a TASK_CONTRACT.json and writes \
JUDGE_REPORT.md/.json; \
claude_validate_proposal, claude_security_audit and claude_resolve_conflict answer in JSON. \
Call claude_health first to check that Claude Code is available."""

MESSAGE_ARGUMENTS = ("prompt", "message", "task")
"""The arguments that carry text for Claude, on every tool that takes them (after the seeds'
names became cctui's)."""

CLIENT_WINDOW_S = 600.0
"""A client counts as connected for the status line if it called a tool this recently."""


class CctuiMCPServer(MCPServer):
    """MCPServer whose every tool failure is ``{code, message, retryable, suggestion}``."""

    def __init__(self, manager: SessionManager, profile: str = "full", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.manager = manager
        self.profile = profile
        """The ``--tools`` profile; a call to a tool outside it is refused."""
        self.router = manager.decisions.router
        """Who is asked about each pending input (the core's router, shared by every server
        on this manager)."""
        self.clients_seen: dict[str, float] = {}
        self.hosts: Hosts | None = None
        """The ``[[hosts]]``: a call with ``host`` goes to that machine's cctui."""
        self.hidden: set[str] = set()
        """Tools callable by name but left out of ``tools/list`` (seed 004's eight names when
        ``compat_tools`` is off: ``--tools full,nocompat``)."""
        self.idle_notices = IdleNotices(manager)
        """Seed 004's ``notifyIdle``: a teammate whose turn ended is told to the clients."""

    async def list_tools(self) -> list[MCPTool]:
        """The tools, less the hidden aliases."""
        return [t for t in await super().list_tools() if t.name not in self.hidden]

    def flatten_output_schemas(self) -> None:
        """Every registered tool's ``outputSchema`` as ``schemas.flat.flatten`` writes it (the
        same rules, quicker for a client to check on every call)."""
        for tool in self._tool_manager.list_tools():
            if tool.fn_metadata.output_schema is not None:  # the SDK reads it live
                tool.fn_metadata.output_schema = flatten(tool.fn_metadata.output_schema)

    async def serve_streams(self, read_stream: Any, write_stream: Any) -> None:
        """Serve one client on a transport's two streams, as ``run_stdio_async`` serves the
        SDK's own stdio streams (``transport.stdio`` brings quicker ones)."""
        server = self._lowlevel_server
        await server.run(read_stream, write_stream, server.create_initialization_options())

    def client_count(self) -> int:
        """Distinct clients that called a tool in the last ten minutes."""
        cutoff = time.monotonic() - CLIENT_WINDOW_S
        return sum(1 for t in self.clients_seen.values() if t >= cutoff)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Run, map every failure to a structured error result, and record the call.

        Seed argument names become cctui's (``compat``); any other argument the tool does
        not take is refused (the SDK would drop it silently).
        """
        result = await self._call_tool(name, arguments, context)
        if isinstance(result, CallToolResult) and result.is_error:
            if name in seed004.TOOLS:
                return _seed004_error(result)
            if name in tools.review.OUTPUTS:
                return errors.seed001_result(_error_info(result), tools.review.OUTPUTS[name])
        return result

    async def _call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> CallToolResult | InputRequiredResult:
        label = client_label(context) if context is not None else "direct"
        self.clients_seen[label] = time.monotonic()
        if context is not None:
            self.idle_notices.keep(label, context)
        # An elicitation retry carries the same arguments as the round that asked: it is
        # that call continuing, recorded as a retry rather than as another call.
        retry = context is not None and context.input_responses is not None
        started = time.perf_counter()
        outcome = "internal_error"
        try:
            try:
                args = compat.translate(name, arguments or {})
            except CctuiError as exc:
                outcome = exc.code
                return errors.error_result(errors.from_cctui_error(exc))
            host = args.get("host") if name in HOST_TOOLS else None
            if isinstance(host, str) and host not in ("", "local"):
                forwarded = await self._on_host(name, host, args)
                outcome = _outcome(forwarded)
                return forwarded
            refused = self._unknown_arguments(name, args) or self._oversized(name, args)
            if refused is not None:
                outcome = refused.code
                return errors.error_result(refused)
            result = await super().call_tool(name, args, context)
            if isinstance(result, InputRequiredResult):
                outcome = "input_required"
            else:
                outcome = _outcome(result)
            return result
        except ToolError as exc:
            info = self._describe(name, exc)
            outcome = info.code
            return errors.error_result(info)
        except (asyncio.CancelledError, anyio.get_cancelled_exc_class()):
            outcome = "cancelled"
            raise
        finally:
            self._record(label, name, arguments, outcome, started, retry)

    async def _on_host(self, name: str, host: str, args: dict[str, Any]) -> CallToolResult:
        """The call, sent as it is to ``host``'s cctui (``remote.hosts.Host.call``); its
        answer as it came, or its refusal with the host's own code."""
        if self.hosts is None:
            return errors.error_result(
                errors.ToolErrorInfo(
                    code="unknown_host",
                    message=f"No host named {host!r}: no [[hosts]] are configured here.",
                    suggestion="omit host for this machine, or add the host to cctui's config",
                )
            )
        forwarded = {k: v for k, v in args.items() if k != "host"}
        try:
            out = await self.hosts.get(host).call(name, forwarded)
        except CctuiError as exc:
            return errors.error_result(errors.from_cctui_error(exc))
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(out))], structured_content=out
        )

    def _unknown_arguments(self, name: str, args: dict[str, Any]) -> errors.ToolErrorInfo | None:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return None  # the SDK reports the unknown tool
        accepted = sorted(tool.parameters.get("properties", {}))
        unknown = sorted(set(args) - set(accepted))
        if not unknown:
            return None
        return errors.unknown_arguments(
            name, unknown, accepted, sorted(compat.ALIASES.get(name, {}))
        )

    def _oversized(self, name: str, args: dict[str, Any]) -> errors.ToolErrorInfo | None:
        """A prompt or message longer than ``max_message_chars`` (seed 004's
        ``MAX_MESSAGE_SIZE``), on any tool that sends Claude text."""
        limit = self.manager.settings.max_message_chars
        for key in MESSAGE_ARGUMENTS:
            value = args.get(key)
            if isinstance(value, str) and len(value) > limit:
                return errors.message_too_long(name, key, len(value), limit)
        return None

    def _record(
        self,
        label: str,
        name: str,
        arguments: dict[str, Any],
        outcome: str,
        started: float,
        retry: bool,
    ) -> None:
        try:
            self.manager.record_tool_call(
                f"mcp:{label}",
                name,
                dict(arguments),
                outcome=outcome,
                duration_ms=(time.perf_counter() - started) * 1000,
                retry=retry,
            )
        except Exception:  # recording must never break a call
            log.exception("recording the call of %s failed", name)

    def _describe(self, name: str, exc: ToolError) -> errors.ToolErrorInfo:
        cause = exc.__cause__
        # A CctuiError may sit under one or two SDK wrappers (tool, then resolver).
        while isinstance(cause, ToolError) and cause.__cause__ is not None:
            cause = cause.__cause__
        if isinstance(cause, CctuiError):
            return errors.from_cctui_error(cause)
        if isinstance(cause, ValidationError):
            return errors.from_validation_error(name, cause)
        if str(exc).startswith("Unknown tool"):
            if self.profile != "full":
                return errors.not_in_profile(name, self.profile)
            return errors.unknown_tool(name)
        if cause is None or isinstance(cause, ToolError):
            # An anticipated SDK failure (e.g. a resolver's elicitation went wrong).
            text = str(exc).removeprefix(f"Error executing tool {name}: ")
            return errors.ToolErrorInfo(
                code="tool_error", message=redact_text(text), retryable=True
            )
        log.error("tool %s crashed", name, exc_info=cause)
        return errors.internal(name)


def _error_info(result: CallToolResult) -> errors.ToolErrorInfo:
    """The ``{code, message, ...}`` of a failed call's result."""
    block = result.content[0] if result.content else None
    try:
        text = block.text if isinstance(block, TextContent) else ""
        return errors.ToolErrorInfo.model_validate_json(text)
    except ValidationError:
        return errors.ToolErrorInfo(code="internal_error", message="The call failed.")


def _seed004_error(result: CallToolResult) -> CallToolResult:
    """A failed call of one of seed 004's tools, in that seed's envelope."""
    return errors.seed004_result(_error_info(result))


def _outcome(result: CallToolResult) -> str:
    if result.is_error:
        return "error"
    body = result.structured_content or {}
    # A failed review is a normal result in seed 001's shape ({success: false, error}), but
    # the audit log and the metrics must count it as the failure it is.
    if body.get("success") is False:
        return str(body.get("error_code") or "error")
    return "ok"


def _instructions(groups: frozenset[str]) -> str:
    if "sessions" in groups:
        return INSTRUCTIONS
    if "review" in groups:
        return MENU_INSTRUCTIONS
    return "cctui: claude_health reports whether Claude Code can run here."


def build_server(
    manager: SessionManager,
    settings: Settings,
    *,
    services: Services | None = None,
    hosts: Hosts | None = None,
) -> CctuiMCPServer:
    """The server for ``settings.tools_profile`` and the ``[tools]`` switches.

    Groups: ``sessions`` (session, query, history and team tools), ``projects`` (seed 000:
    project tools, invoke, resources, prompts), ``review`` (the review menu). ``claude_health``
    is always there. On the ``menu`` profile only the review menu and health exist: no
    session tool, resource or prompt through which a client could send Claude a free-form
    prompt. ``services``: the ones the composition root shares with the TUI; without them
    (tests, benchmarks) the server gets its own over ``manager``. ``hosts``: the TUI's (one
    link per host for the window and the tools); without them, the configured hosts, each
    connected on its first call.
    """
    if services is None:
        services = Services.build(settings, manager)
    if services.manager is not manager:
        raise ValueError("build_server: services run over another session manager")
    groups = settings.tool_groups
    root = logging.getLogger()
    # MCPServer calls logging.basicConfig with a Rich stderr handler when the root logger
    # has none; a placeholder makes that a no-op so stdout/stderr/the TUI stay clean.
    placeholder = logging.NullHandler() if not root.handlers else None
    if placeholder is not None:
        root.addHandler(placeholder)
    try:
        server = CctuiMCPServer(
            manager,
            profile=settings.tools_profile,
            name="cctui",
            title="cctui: Claude Code control room",
            instructions=_instructions(groups),
            version=SERVER_VERSION,
            log_level=settings.log_level,
            warn_on_duplicate_tools=False,
        )
    finally:
        if placeholder is not None:
            root.removeHandler(placeholder)
    router = server.router
    if "sessions" in groups:
        server.hosts = (
            hosts if hosts is not None else (hosts_from(settings) if settings.hosts else None)
        )
        tools.sessions.register(server, manager, router, settings)
        tools.steering.register(server, manager)
        tools.rules.register(server, manager, services.registry)
        tools.query.register(server, manager, router)
        # One view, so one index: the TUI's live one, or under `serve` one built on first use.
        history = HistoryView(settings, manager, services.history)
        tools.history.register(server, manager, settings, history)
        tools.team.register(server, manager, router)
        tools.metrics.register(server, manager)
        tools.worktrees.register(server, manager)
        tools.dispatch.register(server, manager)
        tools.seed004.register(server, manager, router, settings, history)
        if not settings.compat_tools:
            server.hidden |= set(seed004.TOOLS)
        tools.rewind.register(server, manager)
    tools.health.register(server, manager, settings)
    if "sessions" in groups:
        tools.window.register(server, manager, settings)
        tools.follow.register(server, manager)
        server.hidden |= {*KEYED_TOOLS, tools.follow.TOOL}  # the window tools, internal
    if "projects" in groups:
        services.projects.start()  # registered projects' trees, built in the background
        tools.projects.register(server, manager, services.projects)
        tools.invoke.register(server, manager, services.projects, router)
        tools.resources.register(server, services.projects)
        tools.prompts.register(server, services.projects)
    if "review" in groups:
        tools.review.register(server, services.review)
    server.flatten_output_schemas()
    return server
