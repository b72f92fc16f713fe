"""One ``invoke_claude_code`` task, from the call that starts it to its recorded end.

A task outlives the call that started it: on 2026-07-28 connections each decision asked of
the caller ends a round (an input-required result) and the retry continues the same task,
and a caller that cannot be asked gets ``waiting_for_input`` and answers with
``claude_respond``. So the clock, the progress lines and the record belong to the task: a
supervisor waits for the turn to end (or for maxTime, then stops it) and records the
outcome whether or not a call is listening. A call only follows the task (``follow``):
it streams progress and asks the decisions routed to it, the way its protocol era allows.

Why a task stopped is set before it is stopped (``stop``): stopping ends the turn, and the
supervisor seeing that end must not record a cancelled or timed-out task as completed.
When another task ran in the same project meanwhile, the changed files are split: the ones
this session's own edit tools wrote count, the rest are named in the note (``shared``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import (
    Context,
)

from cctui.core import (
    AssistantTextEvent,
    PendingInput,
    Router,
    SessionEvent,
    SessionManager,
    SessionStatus,
    ToolUseEvent,
)
from cctui.mcp_server.asking.decisions import (
    can_elicit,
    client_label,
)
from cctui.mcp_server.asking.rounds import INTERRUPT_GRACE_S, RECHECK_S, next_decision
from cctui.mcp_server.asking.waiting import Tally
from cctui.mcp_server.schemas.projects import InvokeOut, ProgressUpdate
from cctui.mcp_server.schemas.sessions import PendingInputOut
from cctui.projects import ProjectService, TaskRecord
from cctui.projects.changes import EDIT_TOOLS, Snapshot, diff, edited_path, snapshot
from cctui.projects.state import now_iso

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


def exit_code(status: str) -> int:
    """Like ``timeout(1)``: 124 for a timeout; 130 for a cancelled call."""
    return {"completed": 0, "failed": 1, "timeout": 124, "cancelled": 130}.get(status, 1)


@dataclass
class InvokeRun:
    """A running task: its session, clock, progress and (once it ended) its result."""

    manager: SessionManager
    broker: Router
    projects: ProjectService
    project_id: str
    root: Path
    record: TaskRecord
    before: Snapshot
    max_time: float
    label: str
    """The client that started the task; only it continues it in later rounds."""
    state_dir: str = ".claude/"
    """The project's state directory: cctui's files there are not the task's changes."""
    shared: bool = False
    """Another invoke task ran in the same root meanwhile: only this session's own edits
    count as its files (set by whoever starts the other task)."""
    deadline: float = 0.0
    """Loop time at which maxTime has passed."""
    started: float = field(default_factory=time.monotonic)
    updates: list[ProgressUpdate] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    result: InvokeOut | None = None
    """Set once, when the task ended (completed, failed, timeout or cancelled)."""
    asked: PendingInput | None = None
    """The input the last input-required round asked this client about."""
    on_finished: Callable[[InvokeRun], None] | None = None
    edited: set[str] = field(default_factory=set)
    """Files (relative to the root) this session's Write/Edit/... calls completed on."""
    stopping: str | None = None
    """Why ``stop`` was called (``timeout``, ``cancelled``): the status to record."""
    _lines: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _waiting_shown: set[str] = field(default_factory=set)
    _finishing: bool = False
    _unsubscribe: Callable[[], None] | None = None
    _edit_inputs: dict[str, str] = field(default_factory=dict)

    @property
    def task_id(self) -> str:
        """The task's id in the project's session state."""
        return self.record.task_id

    @property
    def sid(self) -> str:
        """The Claude Code session doing the work."""
        return self.record.session_id or ""

    def watch(self, session_id: str) -> None:
        """The session exists: collect its progress and supervise it until it ends."""
        loop = asyncio.get_running_loop()
        self.deadline = loop.time() + self.max_time - (time.monotonic() - self.started)
        self.record = self.record.model_copy(update={"session_id": session_id})
        self._unsubscribe = self.manager.subscribe(self._on_event)
        self._add("Claude Code started")  # the first notification names the task and session
        self.manager.keep(asyncio.create_task(self._supervise()))

    # -- following it from a call ---------------------------------------------------------

    async def follow(self, ctx: Context[Any, Any], streaming: bool) -> PendingInput | None:
        """Follow the task for one call until it ends, or a decision needs this caller.

        Returns the input to ask about in an input-required round (2026-07-28, where a
        tool cannot ask mid-call); handshake-era callers are asked right here. Returns None
        when the task ended (``result``) or when nobody can answer an open decision (no
        elicitation, no human at the TUI): the caller is told at once (``handed_off``)
        rather than left to sleep into maxTime.
        """
        label = client_label(ctx)
        elicits = can_elicit(ctx)
        async with anyio.create_task_group() as tg:
            if streaming:
                tg.start_soon(self._stream, ctx)
            with self.broker.waiting(self.sid, label, elicits):
                item = await next_decision(ctx, self, label, elicits)
            tg.cancel_scope.cancel()
        if streaming:
            await self._flush(ctx)
        return item

    def handed_off(self) -> InvokeOut:
        """The result for a caller nobody can ask: the open inputs and how to answer them."""
        pending = self.manager.pending(self.sid)
        notes = [
            *self.tally.notes,
            f"Task {self.task_id} waits for a decision in Claude Code session {self.sid} that "
            "nobody here will make (this client cannot or did not decide it, and no human is "
            "at cctui). Answer with "
            + "; ".join(
                f'claude_respond(sessionId="{self.sid}", inputId="{p.id}", '
                f'decision="allow"|"deny") for {p.tool_name}'
                for p in pending
            )
            + f', then claude_wait(sessionId="{self.sid}"). The task keeps its maxTime; its '
            "result is recorded in the project's session state (get_project_status).",
        ]
        # Routed to the human, but none is there: nobody is asked until claude_respond.
        pending_out = [
            PendingInputOut.of(p).model_copy(update={"asked": "nobody"}) for p in pending
        ]
        return self._out("waiting_for_input", pending=pending_out, notes=notes)

    @property
    def ended(self) -> bool:
        """The task ended and its result is set."""
        return self.result is not None

    @property
    def changed(self) -> asyncio.Event:
        """Set at the task's next event."""
        return self._changed

    def waiting_on(self, items: list[PendingInput]) -> None:
        """Tell the caller (progress) which decision the task waits for, once per input."""
        for p in items:
            if p.id not in self._waiting_shown:
                self._waiting_shown.add(p.id)
                self._add(f"Waiting for a decision on {p.tool_name} (input {p.id})")

    # -- progress -----------------------------------------------------------------------

    def _on_event(self, ev: SessionEvent) -> None:
        if ev.session_id != self.sid:
            return
        self._wake()
        if isinstance(ev, ToolUseEvent) and ev.name in EDIT_TOOLS:
            self._note_edit(ev)
        line = progress_line(ev)
        if line is not None:
            self._add(line)

    def _note_edit(self, ev: ToolUseEvent) -> None:
        """Remember a file this session's own edit tool changed (its path from the input)."""
        target = edited_path(self.root, ev.name, ev.input)
        if target is not None:
            self._edit_inputs[ev.tool_use_id] = target
        if ev.state == "completed" and ev.tool_use_id in self._edit_inputs:
            self.edited.add(self._edit_inputs[ev.tool_use_id])

    def _add(self, line: str) -> None:
        self.updates.append(ProgressUpdate(time=datetime.now().strftime("%H:%M:%S"), message=line))
        self._lines.put_nowait(line)

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _tagged(self, line: str) -> str:
        return f"{line} [task {self.task_id}, session {self.sid}]"

    async def _stream(self, ctx: Context[Any, Any]) -> None:
        while True:
            line = await self._lines.get()
            with contextlib.suppress(Exception):  # a client gone must not end the run
                await ctx.report_progress(len(self.updates), None, self._tagged(line))

    async def _flush(self, ctx: Context[Any, Any]) -> None:
        while not self._lines.empty():
            line = self._lines.get_nowait()
            with contextlib.suppress(Exception):
                await ctx.report_progress(len(self.updates), None, self._tagged(line))

    # -- the end --------------------------------------------------------------------------

    async def _supervise(self) -> None:
        """Wait for the turn to end (decisions are for others), or stop it at maxTime."""
        try:
            await self._supervising()
        except asyncio.CancelledError:
            self.finish_now("cancelled")  # cctui is shutting down: the task did not complete
            raise

    async def _supervising(self) -> None:
        loop = asyncio.get_running_loop()
        while self.result is None:
            changed = self._changed
            remaining = self.deadline - loop.time()
            if remaining <= 0:
                await self.stop("timeout")
                await self.finish("timeout")
                return
            outcome = await self.manager.wait(self.sid, remaining)
            if outcome.reason == "input_needed":
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), min(RECHECK_S, remaining))
            elif outcome.reason in ("turn_ended", "session_ended"):
                # Ended by our own stop (maxTime, a cancelled call): record that, not this.
                await self.finish(self.stopping or "completed")

    async def stop(self, reason: str) -> None:
        """Interrupt the turn, give it a moment to stop, then end the process.

        ``reason`` is recorded first: the turn ending here wakes the supervisor, which
        records the task with it rather than as completed."""
        if self.stopping is None:
            self.stopping = reason
        with contextlib.suppress(Exception):
            await self.manager.interrupt(self.sid)
        with contextlib.suppress(Exception):
            await self.manager.wait(self.sid, INTERRUPT_GRACE_S)
        # Then end the process, so nothing keeps working in the project after maxTime.
        with contextlib.suppress(Exception):
            await self.manager.kill(self.sid)

    async def finish(self, status: str) -> None:
        """Record how the task ended (once): files changed, summary, the project's state."""
        if self._finishing:  # the supervisor and a cancelled call may both get here
            return
        self._finishing = True
        try:
            after = await anyio.to_thread.run_sync(snapshot, self.root, self.state_dir)
        except asyncio.CancelledError:
            self.finish_now("cancelled")
            raise
        self._record(self.stopping or status, after)
        try:
            with contextlib.suppress(Exception):  # the result stands if the state file fails
                await anyio.to_thread.run_sync(self._write)
        except asyncio.CancelledError:
            self._write()  # before cctui exits, which may not wait for the worker thread
            raise
        finally:
            self._closed()

    def finish_now(self, status: str) -> None:
        """Record the end without awaiting (blocking): for a supervisor being cancelled,
        as when cctui shuts down, where a second cancel could cut any await short."""
        if self.result is not None:
            return
        self._finishing = True
        self._record(self.stopping or status, snapshot(self.root, self.state_dir))
        self._write()
        self._closed()

    def _write(self) -> None:
        with contextlib.suppress(Exception):
            self.projects.put_task(self.project_id, self.record)

    def _closed(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._wake()
        self.projects.trees.invalidate(self.project_id)
        if self.on_finished is not None:
            self.on_finished(self)

    def _record(self, status: str, after: Snapshot) -> None:
        """Set the record and the result from what changed since ``before``."""
        changes = diff(self.root, self.before, after)
        if self.shared:
            changes, others = changes.only(self.edited)
            if others:
                self.tally.notes.append(
                    "Other invoke_claude_code tasks ran in this project meanwhile, so only "
                    "the files this task's own edit tools wrote are listed; changed while "
                    "other tasks ran here: " + ", ".join(others) + "."
                )
        final = self.manager.get(self.sid)
        if status == "completed" and final.status == SessionStatus.INTERRUPTED:
            # Not by us: cctui shut down, or someone interrupted or killed the session.
            status = "cancelled"
            self.tally.notes.append(
                "The session was interrupted or ended before the task finished (cctui shut "
                "down, or it was interrupted or killed)."
            )
        if status == "completed" and final.error:
            status = "failed"
        summary = final.last_result
        if status == "timeout":
            summary = (
                f"Timed out after {self.max_time:g} s; partial results. " + (summary or "")
            ).strip()
        if final.error:
            self.tally.notes.append(final.error)
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
        self.result = self._out(
            status,
            modified=changes.modified,
            created=changes.created,
            deleted=changes.deleted,
            summary=summary,
        )

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
        notes = self.tally.notes if notes is None else notes
        return InvokeOut(
            status=status,
            task_id=self.task_id,
            session_id=self.sid,
            duration=round(time.monotonic() - self.started, 3),
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
