"""What the project tools return (seed 000's fields, camelCase on the wire; extras are fine)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cctui.mcp_server.schemas import Out


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
    message: str
    root_path: str
    overwritten: bool = False
    decided_by: str | None = None
    """Who confirmed an overwrite (``mcp:<client>`` or ``tui``)."""


class ProjectItem(Out):
    """One row of ``list_projects``."""

    id: str
    name: str
    root_path: str
    active: bool
    last_accessed: str | None = None
    """Relative, like ``2 hours ago``."""
    last_accessed_at: str | None = None
    """The same as an ISO timestamp."""
    has_claude_state: bool
    spec_paths: list[str] = Field(default_factory=list)


class ProjectListOut(Out):
    """``list_projects``'s result."""

    projects: list[ProjectItem]
    registry_path: str


class WriteOut(Out):
    """``write_to_project``'s result."""

    success: bool
    full_path: str
    action: Literal["created", "overwritten", "appended"]
    bytes: int
    decided_by: str | None = None
    """Who chose overwrite/append for an existing file, when someone was asked."""


class ReadOut(Out):
    """``read_from_project``'s result: a line range of a text file."""

    project_id: str
    file_path: str
    full_path: str
    content: str
    start_line: int
    end_line: int
    total_lines: int | None = None
    """Known when the read reached the end of the file."""
    size: int
    truncated: bool
    """The size cap cut the range short; ask for a smaller range."""
    has_more: bool


class CheckpointOut(Out):
    """``create_checkpoint``'s result."""

    success: bool
    state_file: str
    timestamp: str
    checkpoints: int
    message: str


class TaskItem(Out):
    """One Claude Code task in ``get_project_status``."""

    task_id: str
    status: str
    summary: str | None = None
    command: str
    completed_at: str | None = None
    session_id: str | None = None


class GitStatusOut(Out):
    """Branch and uncommitted count."""

    branch: str | None
    uncommitted: int


class ProjectStatusOut(Out):
    """``get_project_status``'s result."""

    project_id: str
    name: str
    root_path: str
    checkpoints: int
    last_checkpoint: str | None = None
    next_actions: list[str] = Field(default_factory=list)
    claude_code_tasks: list[TaskItem]
    recent_files: list[str]
    git_status: GitStatusOut | None = None
    state_file: str


class ProgressUpdate(Out):
    """One progress line of ``invoke_claude_code``."""

    time: str
    message: str


class InvokeOut(Out):
    """``invoke_claude_code``'s result."""

    status: Literal["completed", "failed", "timeout", "cancelled", "waiting_for_input"]
    task_id: str
    session_id: str
    duration: float
    """Seconds."""
    files_modified: list[str]
    files_created: list[str]
    files_deleted: list[str] = Field(default_factory=list)
    summary: str | None = None
    exit_code: int
    """0 completed, 1 failed, 124 timed out (like ``timeout(1)``), 130 cancelled."""
    updates: list[ProgressUpdate] = Field(default_factory=list)
    cost_usd: float = 0.0
    note: str | None = None
