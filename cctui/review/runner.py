"""One review run: a read-only Claude session through the session core, its JSON answer,
one retry when the answer is not the required JSON, and the process ended afterwards.

The session is an ordinary cctui session (it shows in the TUI, tagged ``review``), but
locked down: permission mode ``dontAsk`` (the CLI denies whatever is not pre-approved and
asks nobody), only Read, Grep and Glob pre-approved and only inside the project (not the
settings' allowed tools), and the tools that change things disallowed outright (a deny rule
beats any allow rule in the user's own settings).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel

from cctui.claude.binary import find_cli
from cctui.config import Settings
from cctui.core import (
    Decision,
    InputRequestedEvent,
    SessionConfig,
    SessionEvent,
    SessionManager,
    SessionStatus,
    ToolUseEvent,
    launch,
)
from cctui.core.runs import Run
from cctui.errors import (
    CctuiError,
    CliNotFound,
    LaunchPrefixNotFound,
    SessionLimitReached,
    SessionNotFound,
)
from cctui.redact import redact_text
from cctui.review.answers import AnswerError, parse_answer
from cctui.review.templates import retry_prompt

log = logging.getLogger(__name__)

READ_ONLY_TOOLS = ("Read", "Grep", "Glob")
"""The only tools a review session may use."""
WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash")
"""Never available to a review session, whatever else is configured."""
DECIDED_BY = "review"
"""``decided_by`` of the denials the runner gives if the CLI ever asks anyway."""

PROGRESS_EVERY_S = 10.0
"""A running review reports progress this often (clients reset their call timeouts on it)."""

A = TypeVar("A", bound=BaseModel)

Progress = Callable[[str], Awaitable[None]]
"""Told how a run is going (the MCP tool turns it into progress notifications)."""


class ReviewFailed(CctuiError):
    """A review run did not produce an answer; ``code`` says why.

    Codes: ``cli_missing``, ``cli_crash``, ``claude_error``, ``timeout``, ``parse_error``,
    ``session_limit``.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        suggestion: str | None = None,
        retryable: bool = False,
        timed_out: bool = False,
        session_id: str | None = None,
        stderr: str | None = None,
    ) -> None:
        super().__init__(redact_text(message), suggestion=suggestion)
        self.code = code
        self.retryable = retryable
        self.timed_out = timed_out
        self.session_id = session_id
        self.stderr = redact_text(stderr) if stderr else None
        self.attempts = 0
        """Prompts sent before it failed (set by the runner)."""
        self.cost_usd = 0.0
        """What the turns before the failure cost: a failed run is paid for too (runner)."""
        self.tokens_used: int | None = None
        """Tokens those turns used, when the CLI reported them (set by the runner)."""
        self.refused_tools: list[str] = []
        """Tools Claude tried before the failure that were refused (set by the runner)."""


@dataclass
class RunResult(Generic[A]):
    """A parsed answer and what it took."""

    answer: A
    session_id: str
    attempts: int
    """1, or 2 when the first answer was not the required JSON."""
    cost_usd: float
    tokens_used: int | None = None
    """Tokens the turns used (input, output, cache), or None if the CLI reported none."""
    refused_tools: list[str] = field(default_factory=list)
    """Tools Claude tried that the review session refused (anything not read-only)."""


def read_rules(root: Path) -> tuple[str, ...]:
    """Read, Grep and Glob allowed inside ``root`` only: a blanket ``Read`` would let a
    prompt injected through a reviewed document read any file on the machine.

    A root whose path the rule syntax cannot carry gets no rules: the CLI still lets the
    read-only tools see the working directory, and ``dontAsk`` denies the rest.
    """
    text = str(root)
    if any(ch in text for ch in "()*?[]{},"):
        return ()
    return tuple(f"{tool}(/{text}/**)" for tool in READ_ONLY_TOOLS)


def review_config(settings: Settings, cwd: Path, kind: str, title: str) -> SessionConfig:
    """The locked-down session config of a review (with the project's launch prefix, which
    may be what puts the API key in the CLI's environment)."""
    return SessionConfig(
        cwd=cwd,
        launch_prefix=launch.prefix_for(settings, cwd),
        permission_mode="dontAsk",
        allowed_tools=read_rules(cwd),
        exact_tools=True,
        disallowed_tools=WRITE_TOOLS,
        skip_permissions=False,
        title=title,
        tags=("review", kind),
    )


class _Watch:
    """Follows a review's run: its tool calls, and asks the runner must refuse."""

    def __init__(self, run: Run, progress: Progress | None = None) -> None:
        self.run = run
        self.progress = progress
        self.tool_calls = 0
        self.refused: list[str] = []
        """Tools whose calls were refused: never allowed here, or denied by the CLI."""

    async def report(self, stage: str) -> None:
        """Tell the caller how long the run has been going; never fails the run."""
        if self.progress is None:
            return
        elapsed = int(self.run.elapsed_s)
        try:
            await self.progress(
                f"{stage}: {elapsed} s, {self.tool_calls} tool call(s), session {self.run.sid}"
            )
        except Exception:
            log.debug("progress report failed", exc_info=True)

    def __call__(self, event: SessionEvent) -> None:
        if isinstance(event, ToolUseEvent):
            if event.state == "running":
                self.tool_calls += 1
            elif event.state != "completed" and (
                event.name not in READ_ONLY_TOOLS
                or event.state == "denied"
                or "denied" in (event.result or "")
            ):
                self.refused.append(event.name)
        elif isinstance(event, InputRequestedEvent):
            # dontAsk means the CLI should never ask; if it does, nobody is bothered. Soon,
            # not now: the other listeners must see the request before its resolution.
            asyncio.get_running_loop().call_soon(self.deny, event.input.id)

    def deny(self, input_id: str) -> None:
        with contextlib.suppress(CctuiError):
            self.run.manager.respond(
                input_id,
                Decision(behavior="deny", message="Review sessions are read-only."),
                DECIDED_BY,
            )


class ReviewRunner:
    """Runs fixed prompts in read-only sessions and parses their answers."""

    def __init__(self, manager: SessionManager, settings: Settings) -> None:
        self.manager = manager
        self.settings = settings

    async def run(
        self,
        *,
        kind: str,
        title: str,
        prompt: str,
        cwd: Path,
        answer: type[A],
        schema: str,
        timeout_s: float,
        progress: Progress | None = None,
    ) -> RunResult[A]:
        """Ask, wait, parse (retrying once), and end the process in every case.

        Raises:
            ReviewFailed: with the reason; on timeout the process has been killed.
        """
        try:
            await asyncio.to_thread(find_cli, self.settings.claude_code_path)
        except CliNotFound as exc:
            raise ReviewFailed(
                "cli_missing",
                f"Claude Code CLI not available: {exc.message}",
                suggestion=exc.suggestion or "Install Claude Code or set CLAUDE_CODE_PATH.",
            ) from None
        run = Run(self.manager, timeout_s)
        watch = _Watch(run, progress)
        config = review_config(self.settings, cwd, kind, title)
        unlisten = run.listen(watch)
        kill = False  # killed on timeout or cancellation; otherwise closed gently
        attempts = 0
        try:
            await self._create(run, prompt, config)
            attempts = 1
            try:
                async with asyncio.timeout_at(run.deadline):
                    text = await self._turn(watch)
                    try:
                        parsed = parse_answer(text, answer)
                    except AnswerError as first:
                        attempts = 2
                        run.last_result = None
                        await self.manager.send(run.sid, retry_prompt(first.reason, schema))
                        text = await self._turn(watch, "Asking again for valid JSON")
                        parsed = self._parse_again(text, answer, run.sid)
            except TimeoutError:
                kill = True
                raise ReviewFailed(
                    "timeout",
                    f"The review did not finish within {timeout_s:g} s; its process was killed.",
                    suggestion="Retry with a larger timeout_seconds.",
                    retryable=True,
                    timed_out=True,
                    session_id=run.sid,
                ) from None
        except ReviewFailed as exc:
            exc.attempts = attempts
            exc.cost_usd, exc.tokens_used = self._spent(run.sid)
            exc.refused_tools = watch.refused
            raise
        except asyncio.CancelledError:
            kill = True
            raise
        finally:
            unlisten()
            await run.close(kill=kill)  # the process ends in every case, even if cancelled
        cost, tokens = self._spent(run.sid)
        return RunResult(
            answer=parsed,
            session_id=run.sid,
            attempts=attempts,
            cost_usd=cost,
            tokens_used=tokens,
            refused_tools=watch.refused,
        )

    def _spent(self, sid: str) -> tuple[float, int | None]:
        """The session's cost and tokens so far (0 and None if it never started)."""
        try:
            info = self.manager.get(sid)
        except SessionNotFound:
            return 0.0, None
        return info.total_cost_usd, info.tokens_used

    @staticmethod
    def _parse_again(text: str | None, answer: type[A], sid: str) -> A:
        try:
            return parse_answer(text, answer)
        except AnswerError as second:
            raise ReviewFailed(
                "parse_error",
                "Claude's answer was not the required JSON after one retry: " + second.reason,
                suggestion="Retry the call; the answer is in the review session's transcript.",
                retryable=True,
                session_id=sid,
            ) from None

    @staticmethod
    async def _create(run: Run, prompt: str, config: SessionConfig) -> None:
        # A create cancelled half-way is ended by the manager; the caller's deadline
        # covers the turns, the driver's start watchdog the start.
        try:
            await run.start(prompt, config)
        except CliNotFound as exc:
            raise ReviewFailed(
                "cli_crash",
                exc.message,
                suggestion="Run claude_health; check the CLI and its settings.",
                retryable=True,
                stderr=exc.stderr or exc.message,
            ) from None
        except LaunchPrefixNotFound as exc:
            raise ReviewFailed(
                "cli_missing", exc.message, suggestion=exc.suggestion, retryable=False
            ) from None
        except SessionLimitReached as exc:
            raise ReviewFailed(
                "session_limit", exc.message, suggestion=exc.suggestion, retryable=True
            ) from None

    async def _turn(self, watch: _Watch, stage: str = "Claude is reviewing") -> str | None:
        """Wait for the turn's result text; deny any ask on the way."""
        sid = watch.run.sid
        await watch.report(stage)
        while True:
            outcome = await self.manager.wait(sid, PROGRESS_EVERY_S)
            if outcome.reason == "input_needed":
                for item in outcome.pending:
                    watch.deny(item.id)
                await asyncio.sleep(0)
                continue
            if outcome.reason == "timeout":
                await watch.report("Still reviewing")
                continue
            info = outcome.session
            result = watch.run.last_result
            if outcome.reason == "turn_ended" and result is not None:
                if result.is_error:
                    raise ReviewFailed(
                        "claude_error",
                        f"Claude's turn failed: {result.result or info.error or 'no detail'}",
                        retryable=True,
                        session_id=sid,
                    )
                return result.result
            if outcome.reason == "turn_ended":
                await asyncio.sleep(0.05)  # idle, but the result event is not in yet
                continue
            if info.status == SessionStatus.ERROR or result is None:
                detail = info.error or "claude exited before answering"
                raise ReviewFailed(
                    "cli_crash",
                    f"Claude Code stopped: {detail}",
                    suggestion="Run claude_health; the details are in cctui's log.",
                    retryable=True,
                    session_id=sid,
                    stderr=detail,
                )
            return result.result
