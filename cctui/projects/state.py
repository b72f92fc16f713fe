"""``{project}/.claude/session_state.json``: checkpoints, Claude Code tasks and artifacts.

Seed 000's format (camelCase): ``sessionId``, ``desktopConversationId``, ``checkpoints``
(timestamp, source, summary, artifacts, nextActions), ``claudeCodeTasks`` (taskId, status,
command, startTime, endTime, filesModified, ...). cctui adds ``artifacts`` (files written
through ``write_to_project``, newest last). Unknown keys are kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from cctui.fs.safepath import fold_name, resolve_inside
from cctui.projects.errors import CorruptFile
from cctui.projects.jsonfile import Data, JsonFile
from cctui.timestamps import now_iso

STATE_FILE = "session_state.json"
MAX_ARTIFACTS = 200
MAX_TASKS = 200


def owned_by_cctui(name: str) -> bool:
    """``name`` (in the state directory) is a file cctui's state writes manage: the state
    file, its lock, its ``.corrupt-*`` backups or a temp file of an atomic write."""
    name = fold_name(name)
    return name == STATE_FILE or name.startswith((f"{STATE_FILE}.", f".{STATE_FILE}."))


class _Camel(BaseModel):
    # Built at the first state file read, not at import: the TUI's first frame reads none.
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", defer_build=True
    )


class Checkpoint(_Camel):
    """One saved state, for pickup in another interface."""

    timestamp: str = Field(default_factory=now_iso)
    """UTC, ``2025-01-20T14:30:00Z``."""
    source: str = "mcp"
    """Who saved it: the MCP client's name (``desktop`` in the seed)."""
    summary: str
    artifacts: list[str] = Field(default_factory=list)
    """Files this state refers to (relative paths, as the caller gave them)."""
    next_actions: list[str] = Field(default_factory=list)
    """Suggested next steps for whoever picks this up."""
    conversation_id: str | None = None
    """The caller's conversation/session id, when it told us one."""


class TaskRecord(_Camel):
    """One ``invoke_claude_code`` run."""

    task_id: str
    status: Literal["running", "completed", "failed", "timeout", "cancelled"]
    command: str
    """The task as given."""
    start_time: str
    end_time: str | None = None
    """Unset while running (or when cctui stopped during the task)."""
    session_id: str | None = None
    """The Claude Code session that did the work (resumable with claude_send_message)."""
    files_modified: list[str] = Field(default_factory=list)
    files_created: list[str] = Field(default_factory=list)
    summary: str | None = None
    """Claude's final reply."""
    exit_code: int | None = None
    """0 completed, 1 failed, 124 timed out, 130 cancelled."""


class Artifact(_Camel):
    """A file written into the project through cctui."""

    path: str
    """Relative to the project root."""
    action: str
    """``created``, ``overwritten`` or ``appended``."""
    at: str = Field(default_factory=now_iso)


class ProjectState(_Camel):
    """The whole file."""

    session_id: str | None = None
    """The Claude Code session the project's work continues in: the newest task's, written
    when a task records one (seed 000)."""
    desktop_conversation_id: str | None = None
    """The desktop conversation that last checkpointed, when the client named it (a
    checkpoint's ``conversationId``; seed 000)."""
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    """Oldest first."""
    claude_code_tasks: list[TaskRecord] = Field(default_factory=list)
    """Oldest first (the newest ``MAX_TASKS`` are kept)."""
    artifacts: list[Artifact] = Field(default_factory=list)
    """Files written through cctui, newest last (the newest ``MAX_ARTIFACTS``)."""

    def current_session_id(self) -> str | None:
        """The state's own ``sessionId``, else the Claude Code session of the newest task
        that recorded one (a task still starting has none yet): the session to resume."""
        if self.session_id:
            return self.session_id
        return next((t.session_id for t in reversed(self.claude_code_tasks) if t.session_id), None)


class StateFile:
    """A project's session state, updated atomically under a lock."""

    def __init__(self, root: Path, state_dir: str = ".claude/") -> None:
        rel = state_dir.rstrip("/") + "/" + STATE_FILE
        path, _ = resolve_inside(root, rel)  # .claude may not be a link out of the project
        self.file = JsonFile(path, what="session state")

    @property
    def path(self) -> Path:
        """The state file."""
        return self.file.path

    def read(self) -> ProjectState:
        """The state (empty when the file does not exist yet). Raises ``CorruptFile``."""
        return _parse(self.file.read(), self.path)

    def _update(self, change: Any) -> ProjectState:
        def apply(data: Data | None) -> Data:
            state = _parse(data, self.path)
            change(state)
            merged = dict(data or {})
            merged.update(state.model_dump(mode="json", by_alias=True, exclude_none=True))
            return merged

        return _parse(self.file.update(apply), self.path)

    def add_checkpoint(self, checkpoint: Checkpoint) -> ProjectState:
        """Append a checkpoint; its conversation id, when known, becomes the state's."""

        def change(state: ProjectState) -> None:
            state.checkpoints.append(checkpoint)
            if checkpoint.conversation_id:
                state.desktop_conversation_id = checkpoint.conversation_id

        return self._update(change)

    def add_artifact(self, artifact: Artifact) -> ProjectState:
        """Record a file written into the project (the newest ``MAX_ARTIFACTS`` are kept)."""

        def change(state: ProjectState) -> None:
            state.artifacts = [a for a in state.artifacts if a.path != artifact.path]
            state.artifacts.append(artifact)
            del state.artifacts[:-MAX_ARTIFACTS]

        return self._update(change)

    def put_task(self, task: TaskRecord) -> ProjectState:
        """Add or replace a task record (by ``taskId``)."""

        def change(state: ProjectState) -> None:
            state.claude_code_tasks = [
                t for t in state.claude_code_tasks if t.task_id != task.task_id
            ]
            state.claude_code_tasks.append(task)
            del state.claude_code_tasks[:-MAX_TASKS]
            if task.session_id:
                state.session_id = task.session_id  # where the work continues

        return self._update(change)


def _parse(data: Data | None, path: Path) -> ProjectState:
    try:
        return ProjectState.model_validate(data or {})
    except ValidationError as exc:
        err = exc.errors()[0]
        raise CorruptFile(
            f"The session state {path} does not match its format: {err['loc']} {err['msg']}.",
            suggestion=f"Fix or move {path} away; cctui will start a new one.",
        ) from None
