"""An MCP client of another cctui, reached by running a command and speaking MCP on its stdio.

The command is the host's ``command`` from the config (``ssh NAME cctui bridge --start``);
SSH does the authentication, and nothing of this machine's token or state goes into it.
Every call is one of cctui's own tools (``claude_list_sessions``, ``claude_get_status``,
``claude_respond`` ...); results come back as the core's models (``CatalogEntry``,
``SessionEvent``, ``PendingInput``, ``SearchHit``, ``UsageReport``), rebuilt from the JSON
the tools return, so whoever reads them never sees an MCP type.

The mcp SDK's ``stdio_client`` runs the command (and ends it, with its children, on close);
its stderr goes to a temporary file, read back when the connection fails: "command not
found" there is what tells a missing cctui from an unreachable machine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation
from pydantic import TypeAdapter, ValidationError

from cctui import __version__
from cctui.config import Settings
from cctui.core import Decision, PendingInput, SessionEvent, SessionStatus
from cctui.core.catalog import CatalogEntry
from cctui.core.session.inputs import Question
from cctui.errors import CctuiError
from cctui.history.models import (
    SearchHit,
    TokenCounts,
    TranscriptMessage,
    TranscriptPage,
    UsageReport,
    UsageRow,
)
from cctui.redact import redact_text
from cctui.remote.hosts import Hosts
from cctui.remote.models import (
    Answered,
    ConnectFailed,
    Followed,
    HostUnreachable,
    RemoteError,
    StatusPage,
    client_name,
)
from cctui.remote.terminal import reach_of

log = logging.getLogger(__name__)

REQUIRED_TOOLS = frozenset(
    {
        "claude_health",
        "claude_list_sessions",
        "claude_get_status",
        "claude_respond",
        "claude_create_session",
        "claude_send_message",
    }
)
"""What a host's cctui must serve for this one to show it (its ``full`` or ``sessions``
profile does). Search and usage are optional: a host without them is left out of those."""

CALL_TIMEOUT_S = 70.0
"""A call that gets no answer in this long counts as a dropped link (``claude_wait`` returns
within 55 s)."""

LOCATION_VARS = (
    "CLAUDE_CONFIG_DIR",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "STATE_DIR",
    "CCTUI_HTTP_PORT",
    "MCP_PORT",
    "CCTUI_PROJECTS_CONFIG",
)
"""Where this machine's cctui and Claude Code keep their state: not handed to the command, so
a command that runs the other cctui on this machine (another user, a container, a test's
other HOME) finds its own. ``ssh`` passes none of the environment on anyway."""

_EVENT = TypeAdapter[SessionEvent](SessionEvent)
_MISSING = re.compile(
    r"command not found|: not found|No such file or directory|No module named cctui|"
    r"is not recognized as",
    re.IGNORECASE,
)
_OLD = re.compile(r"invalid choice: 'bridge'|unrecognized arguments: --start", re.IGNORECASE)
# ssh's two first-time refusals. The command runs with no terminal (the SDK starts it in a
# session of its own), so ssh cannot ask to accept a new host key or for a password: it
# refuses at once, and what to do is not what "check the command" suggests.
_HOST_KEY = re.compile(r"Host key verification failed", re.IGNORECASE)
_LOGIN = re.compile(r"Permission denied \((publickey|password|keyboard-interactive)", re.IGNORECASE)


def command_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the host's command runs with: this one's, minus ``LOCATION_VARS``."""
    env = dict(os.environ if base is None else base)
    for name in LOCATION_VARS:
        env.pop(name, None)
    return env


FOLLOW_TOOL = "cctui_follow"
"""The host's internal (unlisted) tool that answers when its sessions change."""
FOLLOW_HOLD_MS = 25_000
"""How long one ``cctui_follow`` call is held open when nothing changes."""

ANSWER_AS_WINDOW = "cctui_answer_as_window"
"""The host's internal (unlisted) tool for its human's answer."""
UNLISTED_TOOLS = (FOLLOW_TOOL, ANSWER_AS_WINDOW, "cctui_attach_window")
"""The internal tools a cctui calls on another, left out of its ``tools/list``."""


class CctuiClient:
    """One MCP connection to a cctui, made by running ``argv``.

    Use as ``async with CctuiClient(name, argv) as c:``; enter and leave it in one task (the
    SDK's task groups require it); calls may come from any task of the same loop.
    """

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        if not argv:
            raise CctuiError(f"host {name}: the command is empty")
        self.name = name
        self.argv = list(argv)
        self._env = command_env(env)
        self._timeout_s = timeout_s
        self._stack: AsyncExitStack | None = None
        self._client: Client | None = None
        self._stderr: TextIO | None = None
        self.version: str | None = None
        """The host's cctui version, once connected."""
        self.tools: frozenset[str] = frozenset()
        """The tools the host serves, once connected."""
        self.closed = False
        self._as_window: bool | None = None
        """Whether the bridge there vouches for this link as its machine's human (``bridge
        --window``); None until the first answer finds out."""
        """The link broke (a call failed for want of a connection): make a new client."""

    # -- connecting ------------------------------------------------------------------------

    async def __aenter__(self) -> CctuiClient:
        await self.connect()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Run the command and shake hands; raises ``ConnectFailed`` saying why not."""
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        params = StdioServerParameters(command=self.argv[0], args=self.argv[1:], env=self._env)
        stack = AsyncExitStack()
        client = Client(
            stdio_client(params, errlog=self._stderr),
            client_info=Implementation(name=client_name(), version=__version__),
            mode="legacy",
            read_timeout_seconds=self._timeout_s,
        )
        try:
            await stack.enter_async_context(client)
            info = client.session.server_info
            listed = await client.list_tools()
        except (OSError, ValueError) as exc:
            await self._unwind(stack)
            raise self._spawn_failed(exc) from None
        except Exception as exc:
            await self._unwind(stack)
            raise self._failed(exc) from None
        except BaseException:
            # Cancelled mid-handshake (a window closing, a call that gave up waiting on a slow
            # host): the command ends with it. A stack left open kept it (ssh) running, and at
            # the loop's close the transport's reader waited on its stdout for ever.
            await self._unwind(stack)
            raise
        self._stack, self._client = stack, client
        # The SDK checks a result against the tool's listed output schema; for a tool left
        # out of tools/list it lists the tools again on every call and logs a warning. These
        # internal tools' results are read field by field here: nothing to check them with.
        schemas = getattr(client.session, "_tool_output_schemas", None)
        if isinstance(schemas, dict):
            for tool in UNLISTED_TOOLS:
                schemas.setdefault(tool, None)
        self.version = info.version if info is not None else None
        self.tools = frozenset(t.name for t in listed.tools)
        name = info.name if info is not None else "?"
        missing = sorted(REQUIRED_TOOLS - self.tools)
        if name != "cctui" or missing:
            await self.close()
            what = (
                f"the command reaches an MCP server named {name!r}, not cctui"
                if name != "cctui"
                else f"cctui {self.version} there lacks {', '.join(missing)}"
            )
            raise ConnectFailed(
                "incompatible",
                f"{self.name}: {what}",
                suggestion=f"install cctui {__version__} or newer on {self.name} "
                "(pipx upgrade cctui) and serve its full tool profile",
            )
        # No claude_health here: it runs `claude --version` and `claude auth status` there
        # (~0.3 s of CPU) on every connect and reconnect, and under load it held the first
        # connection past what a tool call waits for it. The host asks it when a take-over
        # needs its claude (hosts.Host.claude).

    async def _unwind(self, stack: AsyncExitStack) -> None:
        with contextlib.suppress(Exception):
            await stack.aclose()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.flush()
            self._stderr.seek(0)
            lines = [line.strip() for line in self._stderr.read()[-4000:].splitlines()]
            return redact_text(next((line for line in reversed(lines) if line), ""))
        return ""

    def _spawn_failed(self, exc: BaseException) -> ConnectFailed:
        what = self.argv[0]
        if isinstance(exc, FileNotFoundError):
            message = f"{self.name}: the command {what!r} is not found on this machine"
        else:
            message = f"{self.name}: the command {what!r} could not run ({exc})"
        return ConnectFailed(
            "offline",
            message,
            suggestion=f"install it, or fix `command` of [[hosts]] {self.name} in the config",
        )

    def _failed(self, exc: BaseException) -> ConnectFailed:
        said = self._stderr_tail()
        if _MISSING.search(said):
            return ConnectFailed(
                "missing",
                f"{self.name}: cctui is not installed there, or not on the PATH of a "
                f"non-interactive shell (it said: {said})",
                suggestion=f"install cctui on {self.name} (pipx install cctui), or give its "
                f'full path: command = ["ssh", "{self.name}", "~/.local/bin/cctui", "bridge", '
                '"--start", "--window"]',
            )
        if _OLD.search(said):
            return ConnectFailed(
                "incompatible",
                f"{self.name}: its cctui is too old for `bridge --start` (it said: {said})",
                suggestion=f"upgrade cctui on {self.name} to {__version__} or newer "
                "(pipx upgrade cctui)",
            )
        if _HOST_KEY.search(said):
            return ConnectFailed(
                "offline",
                f"{self.name}: ssh does not know this machine's host key yet, or it changed, "
                f"and cannot ask here (it said: {said})",
                suggestion=f"run `{self._reach()}` once in a terminal and answer its question "
                "about the host key; cctui connects again by itself",
            )
        if _LOGIN.search(said):
            return ConnectFailed(
                "offline",
                f"{self.name}: ssh could not log in without asking for a password or "
                f"passphrase, which it cannot do here (it said: {said})",
                suggestion="put your key on that machine (ssh-copy-id) or load it into "
                f"ssh-agent (ssh-add), so that `{self._reach()}` logs in without a prompt",
            )
        detail = said or f"{type(exc).__name__}: {exc}".rstrip(": ")
        return ConnectFailed(
            "offline",
            f"{self.name}: no connection ({detail})",
            suggestion=f"check that `{' '.join(self.argv)}` works in a terminal",
        )

    def _reach(self) -> str:
        """How the machine is reached: the command's words before its cctui."""
        try:
            return shlex.join(reach_of(self.argv)) or " ".join(self.argv)
        except CctuiError:
            return " ".join(self.argv)

    async def close(self) -> None:
        """End the connection and the command (idempotent)."""
        stack, self._stack, self._client = self._stack, None, None
        self.closed = True
        if stack is not None:
            await self._unwind(stack)
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None

    # -- calling ---------------------------------------------------------------------------

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Call one of the host's tools; its structured result.

        Raises:
            RemoteError: the host refused it (its own code and message).
            HostUnreachable: no connection, or it broke during the call.
        """
        client = self._client
        if client is None or self.closed:
            raise HostUnreachable(self.name, "not connected")
        args = {k: v for k, v in arguments.items() if v is not None}
        try:
            result = await client.call_tool(tool, args)
        except CctuiError:
            raise
        except Exception as exc:
            self.closed = True
            raise HostUnreachable(
                self.name, f"the link dropped during {tool} ({type(exc).__name__})"
            ) from None
        if result.is_error:
            raise _refusal(self.name, tool, result.content)
        out = result.structured_content
        if not isinstance(out, dict):
            raise RemoteError(self.name, f"{tool} returned no structured result")
        return out

    async def health(self) -> dict[str, Any]:
        """``claude_health`` there: can its cctui run Claude Code (``ok``, ``problem``), and
        which ``claude`` it drives (``path``). Not asked on connecting: ``Host.claude``."""
        return await self.call("claude_health")

    async def list_sessions(self, *, limit: int = 200, offset: int = 0) -> list[CatalogEntry]:
        """Its session list, newest first (its cctui's sessions and Claude Code's on disk),
        ``limit`` of them after the first ``offset``."""
        out = await self.call("claude_list_sessions", limit=limit, offset=offset or None)
        entries = []
        for row in out.get("sessions", []):
            try:
                entries.append(_entry(row))
            except (ValueError, ValidationError, KeyError):
                log.warning("host %s: a session row not understood: %r", self.name, row)
        return entries

    async def status(self, session_id: str, *, since_seq: int = 0, limit: int = 200) -> StatusPage:
        """The session's events after ``since_seq`` and its open pending inputs."""
        out = await self.call(
            "claude_get_status",
            sessionId=session_id,
            sinceSeq=since_seq,
            outputLines=0,
            limit=limit,
        )
        return _status_page(self.name, session_id, out, since_seq)

    async def follow(
        self,
        cursors: Mapping[str, tuple[str, int]],
        *,
        timeout_ms: int = FOLLOW_HOLD_MS,
        settle_ms: int = 100,
    ) -> list[Followed]:
        """What changed since ``cursors`` (session id -> (epoch, next seq)) in those sessions
        or any live one there, as soon as something did (``cctui_follow``, held up to
        ``timeout_ms``); empty when nothing did.

        Raises:
            RemoteError: code ``unknown_tool``: its cctui predates the tool (poll instead).
        """
        out = await self.call(
            FOLLOW_TOOL,
            cursors=[
                {"sessionId": sid, "epoch": epoch, "sinceSeq": seq}
                for sid, (epoch, seq) in cursors.items()
            ],
            timeoutMs=timeout_ms,
            settleMs=settle_ms,
        )
        found: list[Followed] = []
        for item in out.get("sessions", []):
            sid = str(item.get("sessionId", ""))
            if item.get("gone"):
                found.append(Followed(page=None, entry=None, session_id=sid))
                continue
            since = 0 if item.get("missed") else cursors.get(sid, ("", 0))[1]
            entry = None
            if item.get("row"):
                try:
                    entry = _entry(item["row"])
                except (ValueError, ValidationError, KeyError):
                    log.warning("host %s: a session row not understood", self.name)
            page = _status_page(self.name, sid, item, since)
            found.append(Followed(page=page, entry=entry, session_id=sid))
        return found

    async def transcript(
        self, session_id: str, *, offset: int = 0, limit: int = 50
    ) -> TranscriptPage:
        """A page of a session's past conversation there (``claude_get_transcript``)."""
        out = await self.call(
            "claude_get_transcript", sessionId=session_id, offset=offset, limit=min(limit, 200)
        )
        messages = []
        for item in out.get("messages", []):
            try:
                messages.append(TranscriptMessage.model_validate(item["data"]))
            except (KeyError, TypeError, ValidationError):  # a cctui that sends text only
                role = "user" if item.get("role") == "user" else "assistant"
                messages.append(
                    TranscriptMessage(
                        index=int(item.get("index", len(messages))),
                        uuid=f"{session_id}:{item.get('index', len(messages))}",
                        role=role,
                        text=str(item.get("text", "")),
                        timestamp=_when(item.get("timestamp")),
                    )
                )
        return TranscriptPage(
            session_id=session_id,
            offset=int(out.get("offset", offset)),
            limit=max(1, limit),
            total=int(out.get("total", len(messages))),
            messages=tuple(messages),
            has_more=out.get("nextOffset") is not None,
        )

    async def wait(self, session_id: str, *, timeout_ms: int = 30_000) -> str:
        """Wait until the session needs a decision or ends its turn; why it returned."""
        out = await self.call("claude_wait", sessionId=session_id, timeoutMs=timeout_ms)
        return str(out.get("reason", ""))

    async def respond(self, session_id: str, input_id: str, decision: Decision) -> Answered:
        """Answer a pending input there, by its id (the host applies the first answer only).

        Through ``bridge --window`` (the default host command) the answer is the host's
        human's (``cctui_answer_as_window``, the key put in by that bridge: any session
        there, as the window at that machine would); through a bridge without it, the
        window tool refuses the empty key once and the answer is an MCP client's from then
        on, bounded by the host's policy (by default, the sessions this link created).
        """
        if self._as_window is not False:
            try:
                done = await self.call(
                    ANSWER_AS_WINDOW,
                    windowKey="",  # the bridge there puts in its machine's key
                    via=client_name(),  # decided_by tui:cctui@HERE: this window's answer
                    sessionId=session_id,
                    inputId=input_id,
                    decision=decision.model_dump(mode="json", exclude_none=True),
                )
            except RemoteError as exc:
                if exc.code != "unknown_tool" and "window key" not in exc.message:
                    raise  # the answer itself was refused (answered already, ...)
                self._as_window = False  # not vouched for: answer as a client
            else:
                self._as_window = True
                return Answered(
                    input_id=input_id, decided_by=str(done.get("decidedBy", "")), state="answered"
                )
        out = await self.call(
            "claude_respond",
            sessionId=session_id,
            inputId=input_id,
            decision=decision.behavior,
            reason=decision.message or None,
            updatedInput=decision.updated_input,
            answers=decision.answers,
            allowForSession=decision.always or None,
            allowForProject=decision.for_project or None,
        )
        return Answered(
            input_id=input_id, decided_by=str(out.get("decidedBy", "")), state=str(out["state"])
        )

    async def create(
        self,
        prompt: str | None,
        *,
        cwd: str | None = None,
        model: str | None = None,
        permission_mode: str | None = None,
        title: str | None = None,
    ) -> str:
        """Start a session there; its id."""
        out = await self.call(
            "claude_create_session",
            prompt=prompt,
            workingDirectory=cwd,
            model=model,
            permissionMode=permission_mode,
            title=title,
        )
        return str(out["sessionId"])

    async def send(self, session_id: str, text: str) -> None:
        """Send a message (an ended session is resumed there)."""
        await self.call("claude_send_message", sessionId=session_id, message=text)

    async def interrupt(self, session_id: str) -> None:
        """Stop the session's current turn."""
        await self.call("claude_interrupt", sessionId=session_id)

    async def kill(self, session_id: str) -> None:
        """End the session's process (a later message resumes it)."""
        await self.call("claude_kill_session", sessionId=session_id)

    async def search(self, query: str, *, limit: int = 20) -> list[SearchHit]:
        """Its transcripts searched (``claude_search_transcripts``), best first."""
        out = await self.call("claude_search_transcripts", query=query, limit=min(limit, 50))
        return [_hit(h) for h in out.get("hits", [])]

    async def usage(self, period: str = "daily", *, since: str | None = None) -> UsageReport:
        """Its usage report (``claude_usage``)."""
        out = await self.call("claude_usage", period=period, since=since)
        return UsageReport(
            period=str(out.get("period", period)),
            rows=[_usage_row(line) for line in out.get("lines", [])],
            total=_usage_row(out["total"]),
            group_by=out.get("groupBy"),
            pricing=str(out.get("pricing", "")),
        )


def hosts_from(settings: Settings) -> Hosts:
    """The configured hosts, each reached by its command through this client."""
    return Hosts(
        settings.hosts,
        lambda config: CctuiClient(config.name, config.argv),
        me=f"mcp:{client_name()}",
    )


def _status_page(host: str, session_id: str, out: Mapping[str, Any], since: int) -> StatusPage:
    """A ``claude_get_status`` answer (or one session of ``cctui_follow``'s) as a page."""
    events: list[SessionEvent] = []
    for item in out.get("events", []):
        try:
            events.append(_EVENT.validate_python(item.get("data")))
        except ValidationError:
            log.debug("host %s: an event of a newer kind: %r", host, item.get("kind"))
    requested = {
        ev.input.id: ev.input
        for ev in events
        if ev.kind == "input_requested"  # the full record, with when it was asked
    }
    session = out.get("session") or {}
    return StatusPage(
        session_id=session_id,
        state=str(out.get("state") or ""),
        events=events,
        next_seq=int(out.get("nextSeq", since)),
        missed=bool(out.get("missed")),
        epoch=str(out.get("epoch", "")),
        has_more=bool(out.get("hasMore")),
        pending=[
            _pending(session_id, p, requested.get(p.get("inputId", "")))
            for p in out.get("pendingInputs", [])
        ],
        last_seq=int(session.get("lastSeq", 0)),
    )


def _refusal(host: str, tool: str, content: Sequence[Any]) -> RemoteError:
    """A tool's error result (``{code, message, retryable, suggestion}`` as JSON text)."""
    text = next((getattr(c, "text", "") for c in content if getattr(c, "text", "")), "")
    try:
        body = json.loads(text)
    except ValueError:
        return RemoteError(host, f"{tool} failed: {text[:300]}")
    if not isinstance(body, dict):
        return RemoteError(host, f"{tool} failed: {text[:300]}")
    return RemoteError(
        host,
        str(body.get("message", f"{tool} failed")),
        code=str(body.get("code") or "remote_error"),
        suggestion=body.get("suggestion") or None,
    )


def _when(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _entry(row: Mapping[str, Any]) -> CatalogEntry:
    """A ``claude_list_sessions`` row as the core's catalog entry."""
    last = _when(row.get("last_active")) or _when(row.get("timestamp"))
    return CatalogEntry(
        session_id=str(row["sessionId"]),
        status=SessionStatus(str(row.get("state", "completed"))),
        is_active=bool(row.get("isActive")),
        started_by_cctui=bool(row.get("startedByCctui")),
        cwd=row.get("projectDirectory") or row.get("cwd"),
        title=row.get("displayText"),
        last_activity=last or datetime.now(UTC),
        created_at=_when(row.get("created_at")),
        total_cost_usd=row.get("costUsd"),
        team=row.get("team"),
        teammate=row.get("teammate"),
        pid=row.get("pid"),
        has_past=bool(row.get("hasPast")),
        dispatch_note=row.get("dispatchNote"),
        model=row.get("modelInUse") or row.get("model"),
        permission_mode=row.get("permissionMode"),
    )


def _pending(session_id: str, item: Mapping[str, Any], full: PendingInput | None) -> PendingInput:
    """A ``pendingInputs`` item as the core's record: the event's full one when the page
    held it (when it was asked, when it expires), else one built from the item."""
    if full is not None:
        return full.model_copy(update={"route": item.get("asked", full.route)})
    project = item.get("allowForProject") or {}
    return PendingInput(
        id=str(item["inputId"]),
        session_id=session_id,
        kind=item.get("type", "permission"),
        tool_name=str(item.get("toolName", "")),
        tool_input=dict(item.get("toolInput") or {}),
        description=item.get("description"),
        plan=item.get("plan"),
        questions=tuple(Question.model_validate(q) for q in item.get("questions", [])),
        route=item.get("asked", "human"),
        allow_for_session=item.get("allowForSession"),
        allow_for_project=project.get("description"),
        project_rules=tuple(project.get("rules", ())),
        project_file=project.get("file"),
    )


_MARK = re.compile("«(.*?)»", re.DOTALL)


def _hit(item: Mapping[str, Any]) -> SearchHit:
    """A ``claude_search_transcripts`` hit; the « » around matched words become spans."""
    marked = str(item.get("snippet", ""))
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = length = 0
    for match in _MARK.finditer(marked):
        before = marked[pos : match.start()]
        plain.append(before)
        length += len(before)
        spans.append((length, length + len(match.group(1))))
        plain.append(match.group(1))
        length += len(match.group(1))
        pos = match.end()
    plain.append(marked[pos:])
    return SearchHit(
        session_id=str(item["sessionId"]),
        cwd=item.get("cwd"),
        title=item.get("title"),
        timestamp=_when(item.get("timestamp")),
        role=item.get("role", "assistant"),
        message_uuid=item.get("messageUuid"),
        snippet="".join(plain),
        highlights=spans,
        score=float(item.get("score", 0.0)),
        matches=int(item.get("matches", 1)),
        matched_words=item.get("matchedWords"),
        clipped=bool(item.get("clipped")),
        sidechain=bool(item.get("sidechain")),
    )


def _usage_row(line: Mapping[str, Any]) -> UsageRow:
    tokens = line.get("tokens") or {}
    return UsageRow(
        key=str(line.get("key", "")),
        group=line.get("group"),
        label=line.get("label"),
        start=_when(line.get("start")),
        end=_when(line.get("end")),
        active=bool(line.get("active")),
        tokens=TokenCounts(
            input=int(tokens.get("input", 0)),
            output=int(tokens.get("output", 0)),
            cache_write_5m=int(tokens.get("cacheWrite5M", 0)),
            cache_write_1h=int(tokens.get("cacheWrite1H", 0)),
            cache_read=int(tokens.get("cacheRead", 0)),
            replies=int(tokens.get("replies", 0)),
        ),
        cost_usd=line.get("costUsd"),
        unpriced_replies=int(line.get("unpricedReplies", 0)),
        models=list(line.get("models", [])),
        sessions=int(line.get("sessions", 0)),
    )
