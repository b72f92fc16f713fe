"""Domain events: what a session tells its readers, each with a sequence number.

Every event lands in the session's ring buffer (``buffer.EventBuffer``) and is fanned out
to subscribers. Text is merged per message: an ``AssistantTextEvent`` always carries the
whole text of its message so far, and a reader replaces earlier ones with the same
``message_id``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.core.session.inputs import PendingInput
from cctui.core.session.states import SessionStatus


def _now() -> datetime:
    return datetime.now(UTC)


class _Event(BaseModel):
    # defer_build: each kind's validator is built when the first such event is made, not at
    # import (the TUI's first frame makes none; the dozen kinds cost ~15 ms to build).
    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    """The session this event belongs to."""
    seq: int = 0
    """Position in the session's buffer; set by the buffer, strictly increasing."""
    at: datetime = Field(default_factory=_now)
    """When it happened (UTC)."""


class StatusChanged(_Event):
    """The session moved to a new state."""

    kind: Literal["status"] = "status"
    status: SessionStatus
    previous: SessionStatus | None = None
    error: str | None = None
    """Why, when the new state is ``error``."""
    ended: bool = False
    """The session's process ended with this change (a kill, an exit, its owner gone): an
    ``interrupted`` turn whose process still runs and one whose process is gone read
    differently ("interrupted" / "stopped")."""


class UserMessageEvent(_Event):
    """A message was sent to the session (by the TUI, an MCP client, or as the first prompt)."""

    kind: Literal["user"] = "user"
    text: str
    prompt_id: str | None = None
    """The uuid it was sent with (its file checkpoint's name; ``rewind_files`` takes it)."""
    prompt_index: int | None = None
    """Its place among the session's prompts, from 0 (``promptIndex``)."""


class AssistantTextEvent(_Event):
    """The whole text of one assistant message so far (deltas merged)."""

    kind: Literal["text"] = "text"
    message_id: str
    text: str
    complete: bool = False
    """False while deltas still stream in."""


class ToolUseEvent(_Event):
    """A tool call and where it stands; a later event with the same id supersedes it."""

    kind: Literal["tool"] = "tool"
    tool_use_id: str
    name: str
    input: dict[str, Any]
    state: Literal["running", "completed", "denied", "failed"] = "running"
    result: str | None = None
    """The tool's output (truncated), once known."""


class InputRequestedEvent(_Event):
    """A pending input (permission, plan review, question) needs an answer."""

    kind: Literal["input_requested"] = "input_requested"
    input: PendingInput


class InputResolvedEvent(_Event):
    """A pending input was answered, timed out or withdrawn."""

    kind: Literal["input_resolved"] = "input_resolved"
    input_id: str
    decision: Literal["allow", "deny", "withdrawn"]
    decided_by: str
    """``tui``, ``mcp:<client>``, ``timeout`` or ``session-ended``."""
    message: str = ""
    why: str = ""
    """The ladder's words for who decided and on what basis (``rule Bash(npm test*) in
    .claude/cctui-policy.toml``, ``delegate ci-bot (grant: Bash(npm test*))``)."""
    tool_name: str = ""
    """The tool asked about, for a decision no pending input was opened for (a policy
    rule decided at once)."""


class ResultEvent(_Event):
    """A turn ended."""

    kind: Literal["result"] = "result"
    is_error: bool
    result: str | None
    num_turns: int
    total_cost_usd: float | None
    duration_ms: int
    terminal_reason: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    """The CLI's token usage for the turn (input/output/cache tokens), as it reports it."""
    usage_limit_resets_at: datetime | None = None
    """The turn was refused at the plan's usage limit (the CLI's ``rate_limit_event`` said
    ``rejected`` before this result); the limit resets then (``core.dispatch``)."""
    interrupted: bool = False
    """The turn ended because it was interrupted (the user, an MCP client or the turn time
    limit asked). The CLI reports such a turn as an error (``error_during_execution``,
    ``terminal_reason`` ``aborted_streaming`` or ``aborted_tools``); this says why."""


class ApiRetryEvent(_Event):
    """The CLI retries a transient API failure (overloaded, 5xx, network) after a back-off."""

    kind: Literal["api_retry"] = "api_retry"
    attempt: int
    """Which retry this is (1 = the first retry)."""
    max_retries: int | None = None
    retry_delay_ms: int | None = None
    """The back-off before this retry (it grows exponentially)."""
    error_status: int | None = None
    """The HTTP status that failed (e.g. 529 overloaded), when there was one."""
    error: str | None = None


class ChangesEvent(_Event):
    """What a turn changed in the session's git work tree (after its ``ResultEvent``)."""

    kind: Literal["changes"] = "changes"
    files: int
    added: int
    """Lines added (binary files count none)."""
    removed: int
    paths: list[str] = Field(default_factory=list)
    """The changed files (at most 50)."""

    @property
    def summary(self) -> str:
        """``3 files +45 −12``."""
        noun = "file" if self.files == 1 else "files"
        return f"{self.files} {noun} +{self.added} \u2212{self.removed}"


LiveSetting = Literal["permission_mode", "model"]
"""What can change in a running session (``shift+tab`` and ``M``, ``claude_set_*``)."""

SETTING_NAMES: dict[LiveSetting, str] = {"permission_mode": "mode", "model": "model"}
"""Each live setting's word in a line of output (the TUI's pane, the MCP output lines)."""


class SettingChangedEvent(_Event):
    """The session's permission mode or model changed (by cctui, or by the CLI itself, as
    when a plan is approved), or was kept for the next start of an ended session."""

    kind: Literal["setting"] = "setting"
    setting: LiveSetting
    value: str | None
    """The new mode; the new model (None: the CLI's default)."""
    previous: str | None = None
    applies: Literal["now", "next_start"] = "now"
    """``now``: the live process took it (the mode is confirmed by the CLI, a model applies
    to its next request); ``next_start``: no process runs, the next resume starts with it."""


class FilesRewoundEvent(_Event):
    """Files were put back as they were just before a prompt (the conversation was not)."""

    kind: Literal["files_rewound"] = "files_rewound"
    prompt_id: str
    prompt_index: int | None = None
    files: tuple[str, ...] = ()
    """The files the rewind changed, as the CLI's dry run listed them (absolute paths)."""
    insertions: int = 0
    deletions: int = 0
    by: str = ""
    """Who asked: ``tui`` or ``mcp:<client>``."""


class ErrorEvent(_Event):
    """Something went wrong that the reader should see (CLI crash, API error, bad resume)."""

    kind: Literal["error"] = "error"
    message: str


SessionEvent = Annotated[
    StatusChanged
    | UserMessageEvent
    | AssistantTextEvent
    | ToolUseEvent
    | InputRequestedEvent
    | InputResolvedEvent
    | ResultEvent
    | ApiRetryEvent
    | ChangesEvent
    | SettingChangedEvent
    | FilesRewoundEvent
    | ErrorEvent,
    Field(discriminator="kind"),
]
