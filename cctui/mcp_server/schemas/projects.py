"""What the project tools return (seed 000's fields, camelCase on the wire; extras are fine)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.sessions import PendingInputOut


class ChoiceForm(BaseModel):
    """Elicitation form for an existing file (flat, as elicitation requires)."""

    choice: Literal["overwrite", "append", "cancel"] = Field(
        description="overwrite replaces the file, append adds to its end, cancel leaves it"
    )


class OverwriteForm(BaseModel):
    """Elicitation form for a project id that is already registered."""

    choice: Literal["overwrite", "cancel"] = Field(
        description="overwrite replaces the registered project with this one; cancel keeps it"
    )


class RegisterOut(Out):
    """``register_project``'s result."""

    success: bool
    project_id: str
    """The id every other project tool takes."""
    message: str
    root_path: str
    """The resolved absolute root."""
    overwritten: bool = False
    """An existing project with this id was replaced (confirmed)."""
    decided_by: str | None = None
    """Who confirmed an overwrite (``mcp:<client>`` or ``tui``)."""


class ProjectItem(Out):
    """One row of ``list_projects``."""

    id: str
    name: str
    root_path: str
    active: bool
    """Inactive projects are listed only with includeInactive."""
    last_accessed: str | None = None
    """Relative, like ``2 hours ago``."""
    last_accessed_at: str | None = None
    """The same as an ISO timestamp."""
    has_claude_state: bool
    """The project has a ``.claude/`` directory."""
    spec_paths: list[str] = Field(default_factory=list)


class ProjectListOut(Out):
    """``list_projects``'s result."""

    projects: list[ProjectItem]
    registry_path: str
    """The registry file these came from."""


class WriteOut(Out):
    """``write_to_project``'s result."""

    success: bool
    full_path: str
    """Absolute path of the file written."""
    action: Literal["created", "overwritten", "appended"]
    bytes: int
    """Bytes this call wrote (for an append: the appended part)."""
    decided_by: str | None = None
    """Who chose overwrite/append for an existing file, when someone was asked."""
    note: str | None = None
    """Set when the file was written but something around it was not (e.g. the session
    state could not record it)."""
    coalesced: int = 1
    """Rapid saves of this file that this one write covered (seed 000's debounce): more
    than 1 means newer content saved within moments was written in its place."""


class ReadOut(Out):
    """``read_from_project``'s result: a line range of a text file."""

    project_id: str
    file_path: str
    full_path: str
    content: str
    """The lines, newlines included."""
    start_line: int
    end_line: int
    """Last line returned (``startLine - 1`` when none was)."""
    total_lines: int | None = None
    """Known when the read reached the end of the file."""
    size: int
    """The file's size in bytes."""
    truncated: bool
    """The size cap cut the range short; ask for a smaller range."""
    has_more: bool
    """Lines exist after endLine."""
    note: str | None = None
    """Set when startLine is past the end of the file: nothing was returned, and the note
    gives the file's line count (also in totalLines)."""


class CheckpointOut(Out):
    """``create_checkpoint``'s result."""

    success: bool
    state_file: str
    """Where the checkpoint was saved (``{root}/.claude/session_state.json``)."""
    timestamp: str
    checkpoints: int
    """How many checkpoints the project has now."""
    message: str


class TaskItem(Out):
    """One Claude Code task in ``get_project_status``."""

    task_id: str
    status: str
    summary: str | None = None
    command: str
    """The task as given."""
    completed_at: str | None = None
    """Relative, like ``1 hour ago``."""
    session_id: str | None = None
    """The Claude Code session that did it (claude_send_message continues it)."""


class GitStatusOut(Out):
    """Branch and uncommitted count."""

    branch: str | None
    """None on a detached HEAD."""
    uncommitted: int
    """Changed, staged and untracked entries (a new directory counts once)."""


class ProjectStatusOut(Out):
    """``get_project_status``'s result."""

    project_id: str
    name: str
    root_path: str
    checkpoints: int
    """How many checkpoints were saved."""
    last_checkpoint: str | None = None
    """``2 hours ago: <summary>``."""
    next_actions: list[str] = Field(default_factory=list)
    """The last checkpoint's next actions."""
    claude_code_tasks: list[TaskItem]
    """Newest first (at most 20)."""
    recent_files: list[str]
    """Files written through cctui and by Claude Code tasks, newest first."""
    git_status: GitStatusOut | None = None
    state_file: str


class ProgressUpdate(Out):
    """One progress line of ``invoke_claude_code``."""

    time: str
    """Local ``HH:MM:SS``."""
    message: str


class InvokeOut(Out):
    """``invoke_claude_code``'s result."""

    status: Literal["completed", "failed", "timeout", "cancelled", "waiting_for_input"]
    """``waiting_for_input``: the task waits for a decision nobody here can be asked
    (``pendingInputs``); answer with claude_respond, then claude_wait on the session."""
    task_id: str
    session_id: str
    """The Claude Code session; claude_send_message continues it."""
    duration: float
    """Seconds."""
    files_modified: list[str]
    files_created: list[str]
    files_deleted: list[str] = Field(default_factory=list)
    summary: str | None = None
    """Claude's final reply (prefixed with the timeout notice on a timeout)."""
    exit_code: int | None
    """0 completed, 1 failed, 124 timed out (like ``timeout(1)``), 130 cancelled; None
    while the task still runs (``waiting_for_input``)."""
    updates: list[ProgressUpdate] = Field(default_factory=list)
    """The progress lines that were streamed (the last 200)."""
    cost_usd: float = 0.0
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)
    """With ``waiting_for_input``: the decisions the task waits for."""
    note: str | None = None
    """Decisions left open, errors, anything else worth knowing."""
