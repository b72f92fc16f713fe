"""One ``invoke_claude_code`` task, from the call that starts it to its recorded end.

A task outlives the call that started it: on 2026-07-28 connections each decision asked of
the caller ends a round (an input-required result) and the retry continues the same task,
and a caller that cannot be asked gets ``waiting_for_input`` and answers with
``claude_respond``. So the clock, the progress lines and the record belong to the task: a
supervisor waits for the turn to end (or for maxTime, then stops it) and records the
outcome whether or not a call is listening. A call only follows the task (``follow``):
it streams progress and asks the decisions routed to it, the way its protocol era allows.
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
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    ElicitationResult,
)
from mcp.types import ElicitResult
from pydantic import ValidationError

from cctui.core import AssistantTextEvent, PendingInput, SessionEvent, SessionManager, ToolUseEvent
from cctui.mcp_server.decisions import (
    DecisionBroker,
    DecisionForm,
    can_elicit,
    client_label,
    is_modern,
    question_text,
)
from cctui.mcp_server.project_schemas import InvokeOut, ProgressUpdate
from cctui.mcp_server.schemas import PendingInputOut
from cctui.mcp_server.waiting import Tally, apply_answer
from cctui.projects import ProjectService, TaskRecord
from cctui.projects.changes import Snapshot, diff, snapshot
from cctui.projects.state import now_iso

INTERRUPT_GRACE_S = 5.0
"""After an interrupt on maxTime, how long the turn gets to stop before the process is ended."""
RECHECK_S = 1.0
"""A call following the task looks again at least this often (human attached, routes)."""
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
    broker: DecisionBroker
    projects: ProjectService
    project_id: str
    root: Path
    record: TaskRecord
    before: Snapshot
    max_time: float
    label: str
    """The client that started the task; only it continues it in later rounds."""
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
    _lines: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _waiting_shown: set[str] = field(default_factory=set)
    _finishing: bool = False
    _unsubscribe: Callable[[], None] | None = None

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
                item = await self._follow(ctx, label, elicits)
            tg.cancel_scope.cancel()
        if streaming:
            await self._flush(ctx)
        return item

    async def _follow(
        self, ctx: Context[Any, Any], label: str, elicits: bool
    ) -> PendingInput | None:
        while self.result is None:
            changed = self._changed
            pending = self.manager.pending(self.sid)
            item = self.broker.claim(pending, label) if elicits and pending else None
            if item is not None:
                if is_modern(ctx):
                    self.asked = item
                    return item
                await self._ask_midcall(ctx, label, item)
                continue
            for_human = [p for p in pending if p.route == "human"]
            if for_human and not self.manager.human_attached:
                return None  # nobody would answer: say so now
            self._show_waiting(for_human)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), RECHECK_S)
        return None

    async def _ask_midcall(self, ctx: Context[Any, Any], label: str, item: PendingInput) -> None:
        """Handshake era: elicit now, bounded so a silent client cannot hold the decision."""
        result: ElicitationResult[Any] | None = None
        with anyio.move_on_after(self.broker.elicit_bound_s):
            result = await ctx.elicit(question_text(item), DecisionForm)
        if result is None:
            self.broker.to_human(item.id)
            self.tally.notes.append(
                f"No elicitation answer for {item.id} in time; the human decides."
            )
            return
        apply_answer(self.manager, self.broker, label, item, result, self.tally)

    def take_answer(self, ctx: Context[Any, Any], response: Any) -> None:
        """A 2026-07-28 retry: apply its answer to the input the last round asked about."""
        item, self.asked = self.asked, None
        if item is None:
            return
        apply_answer(
            self.manager, self.broker, client_label(ctx), item, _outcome(response), self.tally
        )

    def handed_off(self) -> InvokeOut:
        """The result for a caller nobody can ask: the open inputs and how to answer them."""
        pending = self.manager.pending(self.sid)
        notes = [
            *self.tally.notes,
            f"Task {self.task_id} waits for a decision in Claude Code session {self.sid} and "
            "nobody here can be asked (no elicitation, no human at cctui). Answer with "
            + "; ".join(
                f'claude_respond(sessionId="{self.sid}", inputId="{p.id}", '
                f'decision="allow"|"deny") for {p.tool_name}'
                for p in pending
            )
            + f', then claude_wait(sessionId="{self.sid}"). The task keeps its maxTime; its '
            "result is recorded in the project's session state (get_project_status).",
        ]
        pending_out = [PendingInputOut.of(p) for p in pending]
        return self._out("waiting_for_input", pending=pending_out, notes=notes)

    def _show_waiting(self, items: list[PendingInput]) -> None:
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
        line = progress_line(ev)
        if line is not None:
            self._add(line)

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
        loop = asyncio.get_running_loop()
        while self.result is None:
            changed = self._changed
            remaining = self.deadline - loop.time()
            if remaining <= 0:
                await self.stop()
                await self.finish("timeout")
                return
            outcome = await self.manager.wait(self.sid, remaining)
            if outcome.reason == "input_needed":
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), min(RECHECK_S, remaining))
            elif outcome.reason in ("turn_ended", "session_ended"):
                await self.finish("completed")

    async def stop(self) -> None:
        """Interrupt the turn, give it a moment to stop, then end the process."""
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
        after = await anyio.to_thread.run_sync(snapshot, self.root)
        changes = diff(self.root, self.before, after)
        final = self.manager.get(self.sid)
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
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._wake()
        with contextlib.suppress(Exception):  # the result stands even if the state file fails
            await anyio.to_thread.run_sync(self.projects.put_task, self.project_id, self.record)
        self.projects.trees.invalidate(self.project_id)
        if self.on_finished is not None:
            self.on_finished(self)

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


def _outcome(response: Any) -> ElicitationResult[Any]:
    """The client's answer as the SDK would inject it (a malformed one counts as cancel)."""
    if isinstance(response, ElicitResult):
        if response.action == "accept":
            with contextlib.suppress(ValidationError):
                return AcceptedElicitation(data=DecisionForm.model_validate(response.content or {}))
        elif response.action == "decline":
            return DeclinedElicitation()
    return CancelledElicitation()
