"""The real driver: one ``claude`` process through claude-agent-sdk's ``ClaudeSDKClient``.

What the SDK does (spawn, stream-json, control protocol, ``can_use_tool``, interrupt,
resume/fork flags) stays in the SDK. This adds what cctui needs on top: frames instead
of SDK messages, a fast and bounded shutdown (the SDK's disconnect waits 5 s after
closing stdin, and a busy CLI keeps working meanwhile), an exit frame with the reason
when the CLI dies, and the CLI's stderr in the log instead of on a terminal.

File checkpoints (rewind): ``enable_file_checkpointing`` makes the SDK set
``CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`` for the CLI, which in SDK mode snapshots files
only then. Each prompt goes out with a uuid of cctui's own (the CLI keeps it, and it names
the checkpoint), and ``--replay-user-messages`` makes the CLI echo every prompt it takes in.
The SDK's ``rewind_files`` throws the CLI's answer away and cannot ask for a dry run, so
``rewind_files`` here sends the same control request through the SDK's own sender
(``_control``), with ``dry_run``, and keeps the answer.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import json
import logging
import os
import shutil
import signal
import warnings
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from claude_agent_sdk import (
    CanUseToolShadowedWarning,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookContext,
    HookInput,
    HookJSONOutput,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_agent_sdk.types import HookEvent, PermissionResult, SystemPromptPreset

from cctui.claude.binary import find_cli, launcher
from cctui.claude.convert import FrameConverter
from cctui.claude.frames import (
    Frame,
    LaunchSpec,
    ModelOption,
    PermissionAsk,
    PermissionHandler,
    PermissionModeName,
    ProcessExited,
    RewindAnswer,
    ToolAbout,
    ToolGuard,
    TurnResult,
)
from cctui.claude.reaper import descendants
from cctui.claude.stdout import CoalescingTransport
from cctui.errors import CliNotFound, SettingRefused
from cctui.redact import redact_text

log = logging.getLogger(__name__)
cli_log = logging.getLogger("cctui.claude.stderr")

# An idle CLI exits 35-65 ms after stdin closes; give it this long before SIGTERM.
_IDLE_EXIT_S = 0.5
START_TIMEOUT_S = 30.0
"""A CLI that has not answered the initialize request by then is given up on (it takes ~0.5 s)."""
_DISCONNECT_S = 10.0
CONTROL_TIMEOUT_S = 15.0
"""A live change (mode, model) the CLI has not answered by then is reported as failed (the
SDK alone would wait 60 s)."""
_STDERR_TAIL = 20
REWIND_TIMEOUT_S = 60.0
"""How long a rewind may take to answer (it copies every tracked file back)."""
_SPAWN_TRIES = 4
"""Attempts to spawn the CLI when exec finds its launcher busy (``_text_file_busy``)."""
GUARD_TIMEOUT_S = 10.0
"""How long the CLI waits for cctui's ``PreToolUse`` check; past it (or if the check fails)
the call is blocked (``on_failure="block"``), never let through."""


class SdkDriver:
    """``Driver`` over ``ClaudeSDKClient``; connect and close in the same task."""

    def __init__(
        self,
        spec: LaunchSpec,
        on_permission: PermissionHandler,
        on_tool: ToolGuard | None = None,
    ) -> None:
        self.spec = spec
        self._on_permission = on_permission
        self._on_tool = on_tool
        self._client: ClaudeSDKClient | None = None
        self._cli_pid: int | None = None
        self._outstanding = 0
        self._closing = False
        self._closed = False
        self._wrapper: Any = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL)
        self._models: tuple[ModelOption, ...] = ()

    # ------------------------------------------------------------------ options

    def _options(self) -> ClaudeAgentOptions:
        spec = self.spec
        self._wrapper = launcher(spec.launch_prefix, find_cli(spec.cli_path))
        cli = self._wrapper
        system: SystemPromptPreset = {"type": "preset", "preset": "claude_code"}
        if spec.append_system_prompt:
            system["append"] = spec.append_system_prompt
        return ClaudeAgentOptions(
            cwd=spec.cwd,
            cli_path=cli,
            session_id=spec.session_id,
            resume=spec.resume,
            fork_session=spec.fork,
            model=spec.model,
            permission_mode="bypassPermissions" if spec.skip_permissions else spec.permission_mode,
            allowed_tools=list(spec.allowed_tools),
            disallowed_tools=list(spec.disallowed_tools),
            max_turns=spec.max_turns,
            max_budget_usd=spec.max_budget_usd,
            system_prompt=system,
            include_partial_messages=True,
            can_use_tool=self._can_use_tool,
            hooks=self._hooks(),
            stderr=self._on_stderr,
            env=dict(spec.env),
            enable_file_checkpointing=spec.file_checkpointing,
            extra_args=_extra_args(spec),
            settings=_settings(spec),
        )

    # ------------------------------------------------------------------ Driver

    async def connect(self) -> None:
        """Spawn the CLI and complete the SDK's initialize handshake.

        Raises:
            CliNotFound: the binary is missing, or the CLI exited during start-up.
        """
        # The SDK warns (CanUseToolShadowedWarning & co.) through `warnings`; keep them
        # out of the terminal the TUI owns and off `serve --stdio`'s stderr.
        logging.captureWarnings(True)
        if self._on_tool is not None:
            # In bypassPermissions the SDK warns that can_use_tool will not be called and that
            # a PreToolUse hook is the way to gate every call: this session has that hook
            # (``_hooks``), so the warning would only mislead the log. (Set at each connect:
            # idempotent, and it outlives a caller's catch_warnings.)
            warnings.filterwarnings(
                "ignore",
                message="can_use_tool will not be invoked: permission_mode 'bypassPermissions'",
                category=CanUseToolShadowedWarning,
            )
        options = self._options()
        client = _client(options)
        self._client = client  # lets the watchdog find the process while connect runs
        # The SDK waits at least 60 s for the initialize reply, and when cancelled it spends
        # another 5 s closing; a CLI that hangs at start would hold an MCP call or the
        # new-session form far longer than anyone waits. Kill it instead: connect then fails
        # at once, and the SDK's own clean-up finds nothing left to wait for.
        timed_out = False

        async def watchdog() -> None:
            nonlocal timed_out
            await asyncio.sleep(START_TIMEOUT_S)
            proc = self._process()
            if proc is not None and proc.returncode is None:
                timed_out = True
                self._signal(proc, signal.SIGKILL)

        guard = asyncio.create_task(watchdog())
        try:
            for attempt in range(1, _SPAWN_TRIES + 1):
                try:
                    await client.connect()
                    break
                except Exception as exc:
                    if attempt == _SPAWN_TRIES or not _text_file_busy(exc):
                        raise
                    # Our launcher script was just written, and a process forked meanwhile
                    # (another session's spawn, a git call) still held it open for writing:
                    # exec refuses a file open for writing (ETXTBSY) until that child execs.
                    log.info("claude's launcher was busy (attempt %d); starting again", attempt)
                    await asyncio.sleep(0.05 * attempt)
                    client = self._client = _client(options)
        except Exception as exc:
            self._client = None
            self._cleanup_wrapper()
            reason = (
                f"no answer to initialize within {START_TIMEOUT_S:g} s" if timed_out else str(exc)
            )
            tail = self._stderr_tail()
            raise CliNotFound(
                redact_text(f"claude did not start: {reason}" + (f" ({tail})" if tail else "")),
                suggestion="Check CLAUDE_CODE_PATH and the session's options.",
                stderr=redact_text(tail) if tail else None,
            ) from None
        finally:
            guard.cancel()
        with contextlib.suppress(Exception):
            info = await client.get_server_info()
            if info and isinstance(info.get("pid"), int):
                self._cli_pid = info["pid"]
            self._models = _models(info)
        log.info(
            "claude started (pid %s, session %s, resume %s)",
            self.pid,
            self.spec.session_id,
            self.spec.resume,
        )

    async def send(self, text: str, prompt_id: str | None = None) -> None:
        """Write a user message; the CLI queues it as its own turn.

        With ``prompt_id`` the message carries it as its uuid (the CLI keeps a host's uuid:
        its echo, the turn's result and the file checkpoint all use it).
        """
        client = self._require()
        self._outstanding += 1
        if prompt_id is None:
            await client.query(text)
            return

        async def message() -> AsyncIterator[dict[str, Any]]:
            yield {
                "type": "user",
                "message": {"role": "user", "content": text},
                "parent_tool_use_id": None,
                "uuid": prompt_id,
            }

        await client.query(message())

    async def rewind_files(self, prompt_id: str, *, dry_run: bool) -> RewindAnswer:
        """The control request ``rewind_files`` with ``dry_run``, and the CLI's answer.

        A dry run answers ``{canRewind, error?, filesChanged?, insertions?, deletions?}``; a
        real run ``{canRewind, skippedLinks?}``, or a control error ``Failed to rewind: …``
        (CLI 2.1.332), which becomes an answer with ``can_rewind`` false.
        """
        request = {"subtype": "rewind_files", "user_message_id": prompt_id, "dry_run": dry_run}
        try:
            reply = await self._control(request, REWIND_TIMEOUT_S)
        except CliNotFound:
            raise
        except Exception as exc:  # the SDK raises a bare Exception for a control error
            return RewindAnswer(can_rewind=False, error=redact_text(str(exc)))
        files = reply.get("filesChanged")
        error = reply.get("error")
        return RewindAnswer(
            can_rewind=reply.get("canRewind") is True,
            error=str(error) if error is not None else None,
            files_changed=tuple(str(f) for f in files) if isinstance(files, list) else (),
            insertions=_count(reply.get("insertions")),
            deletions=_count(reply.get("deletions")),
            skipped_links=_count(reply.get("skippedLinks")),
        )

    async def interrupt(self) -> None:
        """The control request ``interrupt``: the turn stops, the process lives."""
        await self._require().interrupt()

    async def set_permission_mode(self, mode: PermissionModeName) -> None:
        """The control request ``set_permission_mode``; the CLI confirms the new mode with a
        ``system/status`` frame (``ModeChanged``), which is what the core trusts.

        Raises:
            SettingRefused: the CLI refused it, in its own words.
        """
        client = self._require()
        await self._change(client.set_permission_mode(mode), f"permission mode {mode!r}")

    async def set_model(self, model: str | None) -> None:
        """The control request ``set_model`` (None: the default model).

        Raises:
            SettingRefused: the CLI refused it, in its own words.
        """
        client = self._require()
        await self._change(client.set_model(model), f"model {model!r}")

    @property
    def models(self) -> tuple[ModelOption, ...]:
        """The models the CLI offered in its initialize reply."""
        return self._models

    async def _change(self, request: Any, what: str) -> None:
        """Await one of the SDK's live-change requests, bounded; a refusal in the CLI's words."""
        try:
            await asyncio.wait_for(request, CONTROL_TIMEOUT_S)
        except TimeoutError:
            raise SettingRefused(
                f"claude did not answer the change of {what} within {CONTROL_TIMEOUT_S:g} s.",
                suggestion="The session may be stuck; interrupt it or try again.",
            ) from None
        except Exception as exc:  # the SDK raises a bare Exception with the CLI's error text
            raise SettingRefused(redact_text(str(exc) or type(exc).__name__)) from None

    async def frames(self) -> AsyncIterator[Frame]:
        """Frames until the process ends; the last one is ``ProcessExited``."""
        client = self._require()
        converter = FrameConverter()
        error: str | None = None
        try:
            async for message in client.receive_messages():
                for frame in converter.convert(message):
                    if isinstance(frame, TurnResult):
                        self._outstanding = max(0, self._outstanding - 1)
                    yield frame
        except Exception as exc:
            if not self._closing:
                error = str(exc)
        code = await self._exit_code()
        if error is None and not self._closing and code not in (0, None):
            error = f"claude exited with code {code}"
        if error is not None:
            tail = self._stderr_tail()
            error = redact_text(error + (f": {tail}" if tail else ""))
            log.warning("claude (pid %s) ended: %s", self.pid, error)
        yield ProcessExited(exit_code=code, error=error)

    async def close(self, grace_s: float = 2.0) -> None:
        """End the process: stdin EOF if idle, then SIGTERM, then SIGKILL after ``grace_s``.

        Idempotent; bounded (about ``grace_s`` + 2.5 s at worst).
        """
        if self._closed:
            return
        self._closing = True
        self._closed = True
        client = self._client
        proc = self._process()
        try:
            if proc is not None and proc.returncode is None:
                if self._outstanding == 0:
                    # Idle: EOF lets the CLI flush its transcript and exit on its own.
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self._transport().end_input(), 0.5)
                    await _wait_exit(proc, min(_IDLE_EXIT_S, grace_s))
                if proc.returncode is None:
                    self._signal(proc, signal.SIGTERM)
                    await _wait_exit(proc, grace_s)
                if proc.returncode is None:
                    self._signal(proc, signal.SIGKILL)
                    await _wait_exit(proc, 2.0)
            if client is not None:
                try:
                    await asyncio.wait_for(client.disconnect(), _DISCONNECT_S)
                except Exception:
                    log.exception("disconnecting from claude (pid %s) failed", self.pid)
        finally:
            self._cleanup_wrapper()

    @property
    def pid(self) -> int | None:
        """The CLI's pid (from the initialize reply; else the spawned process)."""
        if self._cli_pid is not None:
            return self._cli_pid
        proc = self._process()
        return proc.pid if proc is not None else None

    # ------------------------------------------------------------------ callbacks

    async def _can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        ask = PermissionAsk(
            tool_name=tool_name,
            input=dict(tool_input),
            tool_use_id=context.tool_use_id,
            description=context.description,
            title=context.title,
            blocked_path=context.blocked_path,
            suggestions=tuple(s.to_dict() for s in context.suggestions),
        )
        answer = await self._on_permission(ask)
        if self._closing or self._exited():
            # No reply can be written to a dead CLI; the SDK cancels this handler when
            # the client disconnects, so wait for that instead of raising in its task.
            await asyncio.Event().wait()
        if not answer.allow:
            return PermissionResultDeny(
                message=answer.message or "Denied.", interrupt=answer.interrupt
            )
        updated = answer.updated_input if answer.updated_input is not None else tool_input
        return PermissionResultAllow(
            updated_input=updated,
            # Only what the user allowed for the project goes to the project's local
            # settings file (the CLI writes it); everything else is kept for this session,
            # whatever destination the CLI suggested. The destination is always explicit.
            updated_permissions=[
                replace(
                    context.suggestions[i],
                    destination="localSettings" if i in answer.persist else "session",
                )
                for i in answer.suggestions
                if 0 <= i < len(context.suggestions)
            ]
            if answer.always and answer.suggestions
            else None,
        )

    def _hooks(self) -> dict[HookEvent, list[HookMatcher]] | None:
        """A ``PreToolUse`` hook on every tool when there is a guard.

        ``can_use_tool`` is called only when the CLI would ask: not for what its allow
        rules, ``acceptEdits``, ``bypassPermissions`` or auto mode's classifier let through
        (in ``bypassPermissions`` the SDK says so at connect with a
        ``CanUseToolShadowedWarning`` naming this hook as the way to gate every call; that
        one is silenced in ``connect``). The hook runs before any of them, in every mode,
        also after a live mode change. It only ever refuses or has no opinion: an allow
        from a hook would skip the ask, and a failure or a timeout blocks the call.
        """
        if self._on_tool is None:
            return None
        matcher = HookMatcher(
            matcher=None, hooks=[self._pre_tool_use], timeout=GUARD_TIMEOUT_S, on_failure="block"
        )
        return {"PreToolUse": [matcher]}

    async def _pre_tool_use(
        self, data: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        guard = self._on_tool
        if guard is None or data["hook_event_name"] != "PreToolUse":
            return {}
        tool_input = data["tool_input"]
        reason = await guard(
            ToolAbout(
                tool_name=data["tool_name"],
                input=dict(tool_input) if isinstance(tool_input, dict) else {},
                tool_use_id=data.get("tool_use_id") or tool_use_id,
            )
        )
        if reason is None:
            return {}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }

    def _on_stderr(self, line: str) -> None:
        line = redact_text(line.rstrip())
        if line:
            self._stderr.append(line)
            cli_log.debug("[%s] %s", self.pid, line)

    # ------------------------------------------------------------------ helpers

    def _require(self) -> ClaudeSDKClient:
        if self._client is None:
            raise CliNotFound("claude is not running (connect first).")
        return self._client

    async def _control(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send a control request through the SDK's own sender and return the CLI's answer.

        ``ClaudeSDKClient`` wraps a few control requests and drops what some of them answer
        (``rewind_files`` returns None). ``Query._send_control_request`` is what those
        wrappers call: it numbers the request, writes it and waits for the matching
        response. It is private, so this is the one place that reaches it
        (``tests/claude/test_sdk_rewind.py`` pins that it exists); swap it for a public call
        once the SDK returns the answer.
        """
        query = getattr(self._require(), "_query", None)
        send = getattr(query, "_send_control_request", None)
        if send is None:
            raise CliNotFound(
                "this claude-agent-sdk has no control-request sender cctui knows "
                "(Query._send_control_request).",
                suggestion="Install the claude-agent-sdk version cctui pins.",
            )
        reply = await send(request, timeout=timeout_s)
        return reply if isinstance(reply, dict) else {}

    def _transport(self) -> Any:
        # The SDK has no public accessor for its process; the transport is the one place.
        return getattr(self._client, "_transport", None)

    def _process(self) -> Any:
        return getattr(self._transport(), "_process", None)

    def _exited(self) -> bool:
        proc = self._process()
        return proc is not None and proc.returncode is not None

    async def _exit_code(self) -> int | None:
        proc = self._process()
        if proc is None:
            return None
        await _wait_exit(proc, 1.0)
        code = proc.returncode
        return code if isinstance(code, int) else None

    def _signal(self, proc: Any, sig: signal.Signals) -> None:
        pids = {proc.pid}
        if self._cli_pid is not None:
            pids.add(self._cli_pid)  # behind the launcher the CLI is a grandchild
        if sig == signal.SIGKILL:
            # The reaper cannot clean up after a SIGKILL of its own: take the tree with it.
            pids.update(descendants(proc.pid))
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def _stderr_tail(self) -> str:
        return " | ".join(list(self._stderr)[-3:])

    def _cleanup_wrapper(self) -> None:
        if self._wrapper is not None:
            shutil.rmtree(self._wrapper.parent, ignore_errors=True)
            self._wrapper = None


def _client(options: ClaudeAgentOptions) -> ClaudeSDKClient:
    """A client whose CLI's stdout is read in batches (``stdout.CoalescingTransport``)."""
    return ClaudeSDKClient(options, transport=CoalescingTransport(options))


def _models(info: dict[str, Any] | None) -> tuple[ModelOption, ...]:
    """The initialize reply's ``models[]`` as options (malformed entries are skipped)."""
    raw = (info or {}).get("models")
    out: list[ModelOption] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict) and isinstance(item.get("value"), str):
            out.append(
                ModelOption(
                    value=item["value"],
                    display_name=str(item.get("displayName") or item["value"]),
                    description=str(item.get("description") or ""),
                )
            )
    return tuple(out)


def _text_file_busy(exc: BaseException) -> bool:
    """``exc`` (or what caused it) is exec's ETXTBSY."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno == errno.ETXTBSY:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


async def _wait_exit(proc: Any, timeout_s: float) -> None:
    """Poll ``proc.returncode`` (the SDK's own reader task owns ``wait()``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while proc.returncode is None and loop.time() < deadline:  # noqa: ASYNC110 (no exit event to await: the SDK owns wait())
        await asyncio.sleep(0.02)


def _extra_args(spec: LaunchSpec) -> dict[str, str | None]:
    """CLI flags the SDK has no option for."""
    extra: dict[str, str | None] = {}
    if spec.file_checkpointing:
        # The CLI echoes each prompt it takes in (a PromptAccepted frame).
        extra["replay-user-messages"] = None
    if spec.worktree is not None:
        extra["worktree"] = spec.worktree  # the CLI's own --worktree <name>
    return extra


def _settings(spec: LaunchSpec) -> str | None:
    """Flag settings (``--settings``, the CLI's highest-precedence settings file).

    - A worktree branches from the local HEAD: the CLI's default (``worktree.baseRef:
      fresh``) would branch from ``origin/<default branch>``, not from what the person has
      checked out, which is what the session's diff and merge assume.
    - cctui's hard denies are deny rules: a deny rule wins over every allow rule and every
      mode, bypassPermissions included, so the CLI refuses them even where it would not ask
      cctui at all (checked against the bundled CLI: tests/mcp/test_ladder_e2e.py); and
      ``blockWritesOutsideWorkingDirectories`` is its own "writes outside the project".
    """
    flags: dict[str, object] = {}
    if spec.worktree is not None:
        flags["worktree"] = {"baseRef": "head"}
    permissions: dict[str, object] = {}
    if spec.deny_rules:
        permissions["deny"] = list(spec.deny_rules)
    if spec.block_writes_outside:
        permissions["blockWritesOutsideWorkingDirectories"] = True
    if permissions:
        flags["permissions"] = permissions
    return json.dumps(flags) if flags else None
