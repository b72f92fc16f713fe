"""cctui's own view of what a ``claude`` process says and asks.

The SDK's message classes stay inside the adapter; the core only ever sees these frames,
which is also what the fake driver in ``tests/fakes`` produces.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cctui.claude.modes import PERMISSION_MODES as PERMISSION_MODES
from cctui.claude.modes import PermissionModeName as PermissionModeName


class LaunchSpec(BaseModel):
    """Everything needed to start (or resume) one ``claude`` process."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    cwd: Path
    """Working directory of the CLI (the session's project)."""
    session_id: str | None = None
    """Pre-assigned id for a new session (``--session-id``); must be unused."""
    resume: str | None = None
    """Resume this existing session (``--resume``); the id stays the same unless ``fork``."""
    fork: bool = False
    """With ``resume``: continue under a new session id (``--fork-session``)."""
    model: str | None = None
    """Model name passed to the CLI."""
    permission_mode: PermissionModeName | None = None
    """The CLI's permission mode; ``plan`` makes it ask for a plan review first; ``None``
    passes no flag, so the user's configured default mode applies."""
    allowed_tools: tuple[str, ...] = ()
    """Tools that run without asking."""
    disallowed_tools: tuple[str, ...] = ()
    """Tools the model may not use at all."""
    max_turns: int | None = Field(default=None, ge=1)
    """Cap on agentic turns per message."""
    max_budget_usd: float | None = Field(default=None, gt=0)
    """Cap on spend per process."""
    append_system_prompt: str | None = None
    """Appended to Claude Code's system prompt."""
    skip_permissions: bool = False
    """``bypassPermissions``: only when the caller asked for it explicitly."""
    cli_path: Path | None = None
    """The ``claude`` binary; ``None`` uses the SDK's bundled one."""
    launch_prefix: tuple[str, ...] = ()
    """Command words run before ``claude`` (e.g. ``doppler run --``)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for the CLI."""
    file_checkpointing: bool = False
    """Claude Code keeps a copy of the files its edit tools change, taken before each prompt,
    so they can be put back (``rewind_files``); the CLI echoes each prompt it takes in."""
    worktree: str | None = None
    """Start in a new git worktree of this name (``--worktree``), branched from HEAD."""
    deny_rules: tuple[str, ...] = ()
    """Deny rules passed in the flag settings (``--settings``): cctui's hard denies, which
    the CLI then enforces in every permission mode, before its own allow rules, acceptEdits,
    bypassPermissions or auto mode (docs/policy.md#where-each-part-is-enforced)."""
    block_writes_outside: bool = False
    """``permissions.blockWritesOutsideWorkingDirectories`` in the flag settings: the CLI
    refuses Write, Edit and NotebookEdit outside its working directories in every mode
    (except the files it keeps for the session: plans, scratchpad, memory)."""


@dataclass(frozen=True)
class Init:
    """The CLI started a turn; repeated every turn, so not a 'new session' signal."""

    session_id: str
    model: str | None
    cwd: str | None
    permission_mode: str | None
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextDelta:
    """A piece of assistant text as it streams (``--include-partial-messages``)."""

    message_id: str
    text: str


@dataclass(frozen=True)
class AssistantText:
    """A complete assistant text block; authoritative over the deltas that preceded it."""

    message_id: str
    text: str
    api_error: str | None = None
    """Set when the CLI wrote this reply itself for a failed API call (the SDK's
    ``AssistantMessage.error``: ``authentication_failed``, ``billing_error``, …)."""


@dataclass(frozen=True)
class ToolCall:
    """The model asked to run a tool."""

    message_id: str
    tool_use_id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolOutcome:
    """A tool's result came back (or its denial / interruption)."""

    tool_use_id: str
    content: str
    is_error: bool


@dataclass(frozen=True)
class ModeChanged:
    """The CLI's permission mode changed (e.g. after a plan was approved)."""

    permission_mode: str


@dataclass(frozen=True)
class ApiRetry:
    """The CLI retries a failed API request after a back-off (its ``system``/``api_retry``)."""

    attempt: int
    max_retries: int | None
    retry_delay_ms: int | None
    error_status: int | None
    error: str | None


@dataclass(frozen=True)
class PermissionDenied:
    """The CLI refused a tool call without asking anyone (its ``system``/``permission_denied``):
    auto mode's classifier said no or could not run (``reason_type`` ``classifier``), or a
    deny rule refused a Bash command (``rule``, ``subcommandResults``; docs/auto-mode.md)."""

    tool_name: str
    tool_use_id: str | None
    reason_type: str | None
    """Who refused: ``classifier`` for auto mode; ``rule`` or ``subcommandResults`` (a
    compound or single Bash command) for a deny rule; ``mode`` for ``dontAsk``;
    ``DENIED_IN_RESULT`` for one only the turn's result reported."""
    reason_code: str | None
    """Why, as a closed-set code (``auto_mode_no_check_in_session``: no classifier)."""
    reason: str
    """The CLI's short reason (``Classifier unavailable``)."""
    message: str
    """What the model was told."""

    @property
    def by_auto_mode(self) -> bool:
        """Auto mode's classifier refused it (else a rule or the mode did)."""
        return self.reason_type == "classifier"


@dataclass(frozen=True)
class RateLimited:
    """The CLI's ``rate_limit_event``: the plan's usage window changed state. ``rejected``
    means the usage limit is hit; ``resets_at`` (epoch seconds) is when it resets."""

    status: str
    resets_at: int | None
    limit_type: str | None


@dataclass(frozen=True)
class TurnResult:
    """End of a turn. ``total_cost_usd`` is cumulative for the process, as the CLI reports it."""

    session_id: str
    is_error: bool
    subtype: str
    result: str | None
    num_turns: int
    duration_ms: int
    total_cost_usd: float | None
    terminal_reason: str | None = None
    errors: tuple[str, ...] = ()
    permission_denials: tuple[dict[str, Any], ...] = ()
    usage: dict[str, Any] = field(default_factory=dict)
    api_error_status: int | None = None
    """The HTTP status of the failing API call of an error turn (429 at the usage limit)."""


@dataclass(frozen=True)
class PromptAccepted:
    """The CLI took in the prompt sent with this id (its echo of the user message, which it
    sends when file checkpointing is on); the id names the prompt's file checkpoint."""

    prompt_id: str


@dataclass(frozen=True)
class ProcessExited:
    """The CLI process ended; the last frame a driver yields. ``error`` is None on a clean exit."""

    exit_code: int | None
    error: str | None = None


Frame = (
    Init
    | TextDelta
    | AssistantText
    | ToolCall
    | ToolOutcome
    | ModeChanged
    | ApiRetry
    | PermissionDenied
    | RateLimited
    | TurnResult
    | PromptAccepted
    | ProcessExited
)


@dataclass(frozen=True)
class PermissionAsk:
    """The CLI asks whether a tool may run (also ExitPlanMode and AskUserQuestion)."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    description: str | None = None
    title: str | None = None
    blocked_path: str | None = None
    suggestions: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class PermissionAnswer:
    """The host's reply. With ``always``, the CLI's suggestions at the indices in
    ``suggestions`` go back as permission updates: those also in ``persist`` with the
    destination ``localSettings`` (the CLI writes them to the project's
    ``.claude/settings.local.json``), every other one for this session only."""

    allow: bool
    updated_input: dict[str, Any] | None = None
    message: str = ""
    always: bool = False
    suggestions: tuple[int, ...] = ()
    persist: tuple[int, ...] = ()
    interrupt: bool = False


@dataclass(frozen=True)
class ModelOption:
    """A model the CLI offers (its initialize reply's ``models[]``)."""

    value: str
    """What ``set_model`` / ``--model`` takes (``sonnet``, ``opus``, ``default``, ...)."""
    display_name: str
    description: str = ""


@dataclass(frozen=True)
class RewindAnswer:
    """The CLI's answer to ``rewind_files`` (a dry run says what would change).

    ``files_changed``, ``insertions`` and ``deletions`` come with a successful dry run;
    ``skipped_links`` with a successful real one; ``error`` when it cannot rewind.
    """

    can_rewind: bool
    error: str | None = None
    files_changed: tuple[str, ...] = ()
    insertions: int = 0
    deletions: int = 0
    skipped_links: int = 0


PermissionHandler = Callable[[PermissionAsk], Awaitable[PermissionAnswer]]


@dataclass(frozen=True)
class ToolAbout:
    """The CLI is about to run a tool (its ``PreToolUse`` hook), in every permission mode:
    also where it would not ask (its own allow rules, ``acceptEdits``, ``bypassPermissions``,
    what auto mode's classifier allows)."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None


ToolGuard = Callable[[ToolAbout], Awaitable[str | None]]
"""Checks a tool call before it runs: the reason to refuse it (the model reads it), or None
to let the CLI's own permission flow go on (never an allow: that would skip asking)."""

DENIED_IN_RESULT = "result"
"""``PermissionDenied.reason_type`` of a refusal the CLI reported only in its turn result's
``permission_denials`` (no ``permission_denied`` frame): a Read or Edit refused by a path
deny rule, or a hook in its settings (bundled CLI 2.1.332)."""
