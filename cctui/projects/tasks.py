"""A task in a registered project: a supervised run in its root, recorded in its state.

A task is recorded ``running`` in the project's ``session_state.json`` before it starts
(so that file is not among the task's changes), a snapshot of the root is taken, and a
``Run`` (``cctui.core.runs``) does the work until the turn ends or maxTime stops it. Its end
is recorded whether or not anyone is listening: the status, the files created and modified
(from git or a before/after scan, ``changes``), the summary and the exit code.

When another task ran in the same root meanwhile, the diff alone cannot tell whose files
are whose: then only the files this session's own edit tools wrote count, and the rest are
named in a note (``shared``).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.to_thread

from cctui.core import SessionInfo, SessionManager, SessionStatus, ToolUseEvent
from cctui.core.launch import check_allowed_root
from cctui.core.runs import Run
from cctui.fs.safepath import open_read
from cctui.projects.changes import EDIT_TOOLS, Changes, Snapshot, diff, edited_path, snapshot
from cctui.projects.registry import Project, check_root
from cctui.projects.service import ProjectService
from cctui.projects.state import TaskRecord
from cctui.timestamps import now_iso


def exit_code(status: str) -> int:
    """Like ``timeout(1)``: 124 for a timeout; 130 for a cancelled task."""
    return {"completed": 0, "failed": 1, "timeout": 124, "cancelled": 130}.get(status, 1)


def check_readable(root: Path, rel: str) -> None:
    """A context file must be a readable regular file inside the root."""
    with open_read(root, rel):
        pass


@dataclass(frozen=True)
class TaskEnd:
    """How a task ended, as recorded."""

    status: str
    """completed, failed, timeout or cancelled."""
    changes: Changes
    summary: str | None
    """Claude's final reply (after a timeout: what it had so far, said to be partial)."""


class ProjectTask:
    """One task: its project, record, before-snapshot, run and (once it ended) its end."""

    def __init__(
        self,
        manager: SessionManager,
        projects: ProjectService,
        project: Project,
        root: Path,
        record: TaskRecord,
        before: Snapshot,
        max_s: float,
    ) -> None:
        self.manager = manager
        self.projects = projects
        self.project = project
        self.root = root
        self.record = record
        self.before = before
        self.run = Run(manager, max_s)
        self.shared = False
        """Another task ran in the same root meanwhile: only this session's own edits
        count as its files (set by ``ProjectTasks``)."""
        self.edited: set[str] = set()
        """Files (relative to the root) this session's Write/Edit/... calls completed."""
        self.notes: list[str] = []
        """What the record alone does not say (shared root, interrupted, errors)."""
        self.ended: TaskEnd | None = None
        """Set once, when the task ended and was recorded."""
        self._end: TaskEnd | None = None
        """The end as computed, before the state file has it (then ``ended``)."""
        self.on_finished: list[Callable[[ProjectTask], None]] = []
        self._edit_inputs: dict[str, str] = {}
        self._finishing = False
        self._unlisten: Callable[[], None] | None = None

    @property
    def task_id(self) -> str:
        """The task's id in the project's session state."""
        return self.record.task_id

    @property
    def sid(self) -> str:
        """The Claude Code session doing the work ("" until it started)."""
        return self.run.sid

    # -- the start ----------------------------------------------------------------------

    async def start(
        self, prompt: str, on_created: Callable[[SessionInfo], None] | None = None
    ) -> SessionInfo:
        """Start the session in the root and supervise it until its turn ends or maxTime.

        ``on_created`` is called as soon as the session exists, before anything else is
        awaited (an owner noting who decides for it). Whatever stops the start (no CLI,
        MAX_SESSIONS, a bad prefix, a cancelled caller), the task is recorded as failed or
        cancelled and the error goes on.
        """
        config = self.manager.default_config(
            self.root,
            title=f"[{self.project.id}] {self.record.command[:60]}",
            project=self.project.id,
        )
        self._unlisten = self.run.listen(self._note_edit)
        try:
            check_allowed_root(self.manager.settings, config.cwd)
            info = await self.run.start(prompt, config)
        except BaseException as exc:
            status = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) else "failed"
            self.record = self.record.model_copy(
                update={"status": status, "end_time": now_iso(), "exit_code": exit_code(status)}
            )
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await anyio.to_thread.run_sync(self._write)
            self._closed()
            raise
        self.record = self.record.model_copy(update={"session_id": info.session_id})
        if on_created is not None:
            on_created(info)
        self.manager.keep(asyncio.create_task(self._supervise()))
        await anyio.to_thread.run_sync(self._write)
        return info

    def _note_edit(self, ev: object) -> None:
        """Remember a file this session's own edit tool changed (its path from the input)."""
        if not isinstance(ev, ToolUseEvent) or ev.name not in EDIT_TOOLS:
            return
        target = edited_path(self.root, ev.name, ev.input)
        if target is not None:
            self._edit_inputs[ev.tool_use_id] = target
        if ev.state == "completed" and ev.tool_use_id in self._edit_inputs:
            self.edited.add(self._edit_inputs[ev.tool_use_id])

    # -- the end ------------------------------------------------------------------------

    async def _supervise(self) -> None:
        try:
            await self.run.supervise(end=False)  # the session stays resumable
        except asyncio.CancelledError:
            self.finish_now("cancelled")  # cctui is shutting down: the task did not complete
            raise
        await self.finish("completed")

    async def stop(self, reason: str) -> None:
        """Stop the run (``Run.stop``); ``reason`` becomes the task's status."""
        await self.run.stop(reason)

    async def finish(self, status: str) -> None:
        """Record how the task ended (once): files changed, summary, the project's state.

        A reason given to ``stop`` wins over ``status``: a stopped turn also ends."""
        if self._finishing:  # the supervisor and a cancelled caller may both get here
            return
        self._finishing = True
        state_dir = self.project.claude_state_path
        try:
            after = await anyio.to_thread.run_sync(snapshot, self.root, state_dir)
        except asyncio.CancelledError:
            self.finish_now("cancelled")
            raise
        self._record(self.run.stopping or status, after)
        try:
            with contextlib.suppress(Exception):  # the end stands if the state file fails
                await anyio.to_thread.run_sync(self._write)
        except asyncio.CancelledError:
            self._write()  # before cctui exits, which may not wait for the worker thread
            raise
        finally:
            self._closed()

    def finish_now(self, status: str) -> None:
        """Record the end without awaiting (blocking): for a supervisor being cancelled,
        as when cctui shuts down, where a second cancel could cut any await short."""
        if self._end is not None:
            return
        self._finishing = True
        after = snapshot(self.root, self.project.claude_state_path)
        self._record(self.run.stopping or status, after)
        self._write()
        self._closed()

    def _write(self) -> None:
        with contextlib.suppress(Exception):
            self.projects.put_task(self.project.id, self.record)

    def _closed(self) -> None:
        # Published only now, after the state file was written: whoever sees ``ended``
        # also finds the end in session_state.json.
        self.ended = self._end
        if self._unlisten is not None:
            self._unlisten()
        self.projects.trees.invalidate(self.project.id)
        for callback in self.on_finished:
            callback(self)
        self.run.wake()

    def _record(self, status: str, after: Snapshot) -> None:
        """Set the record and the end from what changed since ``before``."""
        changes = diff(self.root, self.before, after)
        if self.shared:
            changes, others = changes.only(self.edited)
            if others:
                self.notes.append(
                    "Other invoke_claude_code tasks ran in this project meanwhile, so only "
                    "the files this task's own edit tools wrote are listed; changed while "
                    "other tasks ran here: " + ", ".join(others) + "."
                )
        final = self.manager.get(self.sid)
        if status == "completed" and final.status == SessionStatus.INTERRUPTED:
            # Not by us: cctui shut down, or someone interrupted or killed the session.
            status = "cancelled"
            self.notes.append(
                "The session was interrupted or ended before the task finished (cctui shut "
                "down, or it was interrupted or killed)."
            )
        if status == "completed" and final.error:
            status = "failed"
        summary = final.last_result
        if status == "timeout":
            summary = (
                f"Timed out after {self.run.max_s:g} s; partial results. " + (summary or "")
            ).strip()
        if final.error:
            self.notes.append(final.error)
        self.record = self.record.model_copy(
            update={
                "status": status,
                "end_time": now_iso(),
                "files_modified": changes.modified,
                "files_created": changes.created,
                "summary": (summary or "")[:2000] or None,
                "exit_code": exit_code(status),
            }
        )
        self._end = TaskEnd(status, changes, summary)


class ProjectTasks:
    """Starts tasks in registered projects and notices tasks that share a root."""

    def __init__(self, manager: SessionManager, projects: ProjectService) -> None:
        self.manager = manager
        self.projects = projects
        self._running: dict[Path, dict[str, ProjectTask]] = {}
        """Unfinished tasks by project root: tasks that overlap there cannot tell whose the
        files are from the diff alone (``ProjectTask.shared``)."""

    async def open(
        self, project_id: str, command: str, context_files: Sequence[str], max_s: float
    ) -> ProjectTask:
        """Check the project and the context files, record the task ``running`` and take
        the before-snapshot; ``ProjectTask.start`` starts it.

        Raises:
            ProjectNotFound, PathRefused and the like: nothing was recorded.
        """
        project = await anyio.to_thread.run_sync(self.projects.get, project_id)
        root = await anyio.to_thread.run_sync(check_root, project.root_path)
        for rel in context_files:
            await anyio.to_thread.run_sync(check_readable, root, rel)  # refuses escapes
        record = TaskRecord(
            task_id="task_" + uuid.uuid4().hex[:10],
            status="running",
            command=command,
            start_time=now_iso(),
        )
        # Recorded first, so the state file it creates is not among the task's files.
        await anyio.to_thread.run_sync(self.projects.put_task, project_id, record)
        before = await anyio.to_thread.run_sync(snapshot, root, project.claude_state_path)
        task = ProjectTask(self.manager, self.projects, project, root, record, before, max_s)
        self._join(task)
        task.on_finished.append(self._left)
        return task

    def _join(self, task: ProjectTask) -> None:
        here = self._running.setdefault(task.root, {})
        if here:
            task.shared = True
            for other in here.values():
                other.shared = True
        here[task.task_id] = task

    def _left(self, task: ProjectTask) -> None:
        self._running.get(task.root, {}).pop(task.task_id, None)


def task_prompt(command: str, context_files: Sequence[str]) -> str:
    """The task as sent to Claude, naming the files to read first."""
    if not context_files:
        return command
    return (
        command
        + "\n\nRead these files first for context:\n"
        + "\n".join(f"- {f}" for f in context_files)
    )
