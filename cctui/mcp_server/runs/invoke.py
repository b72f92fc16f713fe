"""One ``invoke_claude_code`` task as its callers see it: progress lines and the result.

A task outlives the call that started it: on 2026-07-28 connections each decision asked of
the caller ends a round (an input-required result) and the retry continues the same task,
and a caller that cannot be asked gets ``waiting_for_input`` and answers with
``claude_respond``. The task itself, its clock and its record are ``cctui.projects.tasks``;
a call only follows it: it streams progress and asks the decisions routed to it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mcp.server.mcpserver import Context

from cctui.core import AssistantTextEvent, PendingInput, SessionEvent, ToolUseEvent
from cctui.mcp_server.asking.progress import notify
from cctui.mcp_server.asking.rounds import Followed
from cctui.mcp_server.schemas.projects import InvokeOut, ProgressUpdate
from cctui.mcp_server.schemas.sessions import PendingInputOut
from cctui.projects.tasks import ProjectTask, exit_code

_VERBS = {"Write": "Creating", "Edit": "Editing", "MultiEdit": "Editing", "Read": "Reading"}


def progress_line(ev: SessionEvent) -> str | None:
    """A short human line for the events worth streaming, else None."""
    if isinstance(ev, ToolUseEvent) and ev.state == "running":
        target = ev.input.get("file_path") or ev.input.get("path") or ev.input.get("pattern")
        if ev.name == "Bash":
            return f"Running {str(ev.input.get('command', ''))[:120]}..."
        verb = _VERBS.get(ev.name, f"Using {ev.name}")
        return f"{verb} {target}..." if target else f"{verb}..."
    if isinstance(ev, ToolUseEvent) and ev.state in ("denied", "failed"):
        return f"{ev.name} {ev.state}"
    if isinstance(ev, AssistantTextEvent) and ev.complete and ev.text.strip():
        first = ev.text.strip().splitlines()[0]
        return first[:200]
    return None


@dataclass(kw_only=True)
class InvokeRun(Followed):
    """A project task followed by its calls: its progress and (once it ended) its result."""

    task: ProjectTask
    updates: list[ProgressUpdate] = field(default_factory=list)
    result: InvokeOut | None = None
    """Set once, when the task ended and was recorded."""
    _sent: int = 0
    _waiting_shown: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.task.on_finished.append(self._finished)

    @property
    def task_id(self) -> str:
        """The task's id in the project's session state."""
        return self.task.task_id

    @property
    def ended(self) -> bool:
        """The task ended and its result is set."""
        return self.result is not None

    def started(self) -> None:
        """The session exists: stream its progress from here on."""
        self._add("Claude Code started")  # the first notification names the task and session
        self.run.listen(self._on_event)

    async def cancel(self) -> None:
        """The caller went away: stop the task and record it as cancelled."""
        if self.task.ended is None:
            await self.task.stop("cancelled")
            await self.task.finish("cancelled")

    def waiting_on(self, items: list[PendingInput]) -> None:
        """Tell the caller (progress) which decision the task waits for, once per input."""
        for p in items:
            if p.id not in self._waiting_shown:
                self._waiting_shown.add(p.id)
                self._add(f"Waiting for a decision on {p.tool_name} (input {p.id})")

    def _on_event(self, ev: SessionEvent) -> None:
        line = progress_line(ev)
        if line is not None:
            self._add(line)

    def _add(self, line: str) -> None:
        self.updates.append(ProgressUpdate(time=datetime.now().strftime("%H:%M:%S"), message=line))
        self.run.wake()

    async def notify(self, ctx: Context[Any, Any]) -> None:
        """Each progress line not yet sent, tagged with the task and the session."""
        while self._sent < len(self.updates):
            line = self.updates[self._sent].message
            self._sent += 1
            await notify(ctx, self._sent, f"{line} [task {self.task_id}, session {self.sid}]")

    def _finished(self, task: ProjectTask) -> None:
        end = task.ended
        if end is not None:
            self.result = self._out(
                end.status,
                modified=end.changes.modified,
                created=end.changes.created,
                deleted=end.changes.deleted,
                summary=end.summary,
            )

    def out(self) -> InvokeOut:
        """The task's result once it ended, else what waits and how to answer it."""
        return self.result if self.result is not None else self._handed_off()

    def _handed_off(self) -> InvokeOut:
        """The result for a caller nobody can ask: the open inputs and how to answer them."""
        pending = self.manager.pending(self.sid)
        notes = [
            *self.tally.notes,
            f"Task {self.task_id} waits for a decision in Claude Code session {self.sid} "
            + self.nobody_decides(pending)
            + " The task keeps its maxTime; its result is recorded in the project's session "
            "state (get_project_status).",
        ]
        # Routed to the human, but none is there: nobody is asked until claude_respond.
        pending_out = [
            PendingInputOut.of(p).model_copy(update={"asked": "nobody"}) for p in pending
        ]
        return self._out("waiting_for_input", pending=pending_out, notes=notes)

    def _out(
        self,
        status: Any,
        *,
        modified: list[str] | None = None,
        created: list[str] | None = None,
        deleted: list[str] | None = None,
        summary: str | None = None,
        pending: list[PendingInputOut] | None = None,
        notes: list[str] | None = None,
    ) -> InvokeOut:
        notes = [*self.tally.notes, *self.task.notes] if notes is None else notes
        return InvokeOut(
            status=status,
            task_id=self.task_id,
            session_id=self.sid,
            duration=round(time.monotonic() - self.run.started, 3),
            files_modified=modified or [],
            files_created=created or [],
            files_deleted=deleted or [],
            summary=summary,
            exit_code=None if status == "waiting_for_input" else exit_code(status),
            updates=self.updates[-200:],
            cost_usd=self.manager.get(self.sid).total_cost_usd,
            pending_inputs=pending or [],
            note=" ".join(notes) or None,
        )
