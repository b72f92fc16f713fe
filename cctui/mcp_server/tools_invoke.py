"""invoke_claude_code: run a task in a registered project through the session manager.

A real Claude Code session (cwd = the project root) does the work; this tool streams its
progress as notifications, lets its decisions take the usual route (elicitation to this
caller, else the human at the TUI, else ``claude_respond``), and on ``maxTime`` interrupts
the turn, then ends the process, and reports what was done so far. Files created and
modified come from git or a before/after scan (``cctui.projects.changes``). The task is
recorded in the project's session state when it starts and when it ends.

No ``from __future__ import annotations``: see ``tools_sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seed)

import asyncio
import contextlib
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui.core import (
    AssistantTextEvent,
    SessionEvent,
    SessionManager,
    ToolUseEvent,
)
from cctui.errors import CliNotFound
from cctui.mcp_server.decisions import DecisionBroker, can_elicit, client_label, is_modern
from cctui.mcp_server.project_schemas import InvokeOut, ProgressUpdate
from cctui.mcp_server.waiting import Tally, drive
from cctui.projects import ProjectService, TaskRecord
from cctui.projects.changes import diff, snapshot
from cctui.projects.registry import check_root
from cctui.projects.safepath import open_read
from cctui.projects.state import now_iso

ACT = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=True)
INTERRUPT_GRACE_S = 5.0
"""After an interrupt on maxTime, how long the turn gets to stop before the process is ended."""
INSTALL = (
    "Install Claude Code: `pip install claude-agent-sdk` (bundles the CLI) or "
    "`npm install -g @anthropic-ai/claude-code`; or point CLAUDE_CODE_PATH at the binary."
)
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


def check_readable(root: Path, rel: str) -> None:
    """A context file must be a readable regular file inside the root."""
    with open_read(root, rel):
        pass


def register(
    server: MCPServer,
    manager: SessionManager,
    projects: ProjectService,
    broker: DecisionBroker | None,
) -> None:
    """Add invoke_claude_code to ``server``."""
    broker = broker or DecisionBroker(manager)

    @server.tool(annotations=ACT)
    async def invoke_claude_code(
        projectId: Annotated[str, Field(min_length=1, description="ID of registered project")],
        task: Annotated[
            str, Field(min_length=1, description="Natural language task for Claude Code")
        ],
        ctx: Context,
        contextFiles: Annotated[
            list[str] | None,
            Field(description="Relative paths of files Claude Code should read for context"),
        ] = None,
        maxTime: Annotated[
            float, Field(gt=0, le=3600, description="Max execution time in seconds")
        ] = 300,
        streaming: Annotated[
            bool, Field(description="Send progress notifications while it runs")
        ] = True,
    ) -> InvokeOut:
        """Run Claude Code on a task in a registered project and report files changed.

        Returns when the task finishes or maxTime passes (then partial results, status
        timeout). The session stays resumable with claude_send_message.
        """
        project = await anyio.to_thread.run_sync(projects.get, projectId)
        root = await anyio.to_thread.run_sync(check_root, project.root_path)
        for rel in contextFiles or ():
            await anyio.to_thread.run_sync(check_readable, root, rel)  # refuses escapes
        started = time.monotonic()
        task_id = "task_" + uuid.uuid4().hex[:10]
        record = TaskRecord(task_id=task_id, status="running", command=task, start_time=now_iso())
        await anyio.to_thread.run_sync(projects.put_task, projectId, record)
        before = await anyio.to_thread.run_sync(snapshot, root)

        prompt = task
        if contextFiles:
            prompt += "\n\nRead these files first for context:\n" + "\n".join(
                f"- {f}" for f in contextFiles
            )
        config = manager.default_config(
            root, title=f"[{project.id}] {task[:60]}", project=project.id
        )
        try:
            info = await manager.create(prompt, config)
        except CliNotFound as exc:
            record = record.model_copy(update={"status": "failed", "end_time": now_iso()})
            await anyio.to_thread.run_sync(projects.put_task, projectId, record)
            raise CliNotFound(exc.message, suggestion=INSTALL) from None
        sid = info.session_id
        record = record.model_copy(update={"session_id": sid})
        label = client_label(ctx)
        if can_elicit(ctx) and not is_modern(ctx):
            broker.note_owner(sid, label, True)

        updates: list[ProgressUpdate] = []
        queue: asyncio.Queue[SessionEvent] = asyncio.Queue()
        unsubscribe = manager.subscribe(
            lambda ev: queue.put_nowait(ev) if ev.session_id == sid else None
        )

        async def pump() -> None:
            while True:
                line = progress_line(await queue.get())
                if line is None:
                    continue
                updates.append(
                    ProgressUpdate(time=datetime.now().strftime("%H:%M:%S"), message=line)
                )
                if streaming:
                    with contextlib.suppress(Exception):  # a client gone must not end the run
                        await ctx.report_progress(len(updates), None, line)

        tally = Tally()
        status = "completed"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + maxTime
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump)
                while True:
                    outcome = await drive(ctx, manager, broker, sid, deadline, tally)
                    if outcome.reason != "input_needed" or loop.time() >= deadline:
                        break
                    await anyio.sleep(0.1)  # someone else decides; keep the clock running
                if outcome.reason in ("timeout", "input_needed") and loop.time() >= deadline:
                    status = "timeout"
                    await _stop(manager, sid)
                elif outcome.reason == "session_ended" and manager.get(sid).error:
                    status = "failed"
                await anyio.sleep(0.05)  # let the last events reach the pump
                tg.cancel_scope.cancel()
        except BaseException:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(Exception):
                    await _stop(manager, sid)
                record = record.model_copy(update={"status": "cancelled", "end_time": now_iso()})
                with contextlib.suppress(Exception):
                    await anyio.to_thread.run_sync(projects.put_task, projectId, record)
            raise
        finally:
            unsubscribe()

        after = await anyio.to_thread.run_sync(snapshot, root)
        changes = diff(root, before, after)
        final = manager.get(sid)
        if status == "completed" and final.error:
            status = "failed"
        summary = final.last_result
        if status == "timeout":
            summary = (
                f"Timed out after {maxTime:g} s; partial results. " + (summary or "")
            ).strip()
        record = record.model_copy(
            update={
                "status": status,
                "end_time": now_iso(),
                "files_modified": changes.modified,
                "files_created": changes.created,
                "summary": (summary or "")[:2000] or None,
                "exit_code": _exit_code(status),
            }
        )
        await anyio.to_thread.run_sync(projects.put_task, projectId, record)
        projects.trees.invalidate(projectId)
        notes = list(tally.notes)
        if final.error:
            notes.append(final.error)
        return InvokeOut(
            status=status,
            task_id=task_id,
            session_id=sid,
            duration=round(time.monotonic() - started, 3),
            files_modified=changes.modified,
            files_created=changes.created,
            files_deleted=changes.deleted,
            summary=summary,
            exit_code=_exit_code(status),
            updates=updates[-200:],
            cost_usd=final.total_cost_usd,
            note=" ".join(notes) or None,
        )


async def _stop(manager: SessionManager, sid: str) -> None:
    """Interrupt the turn, give it a moment to stop, then end the process."""
    with contextlib.suppress(Exception):
        await manager.interrupt(sid)
    with contextlib.suppress(Exception):
        await manager.wait(sid, INTERRUPT_GRACE_S)
    # Then end the process, so nothing keeps working in the project after maxTime.
    with contextlib.suppress(Exception):
        await manager.kill(sid)


def _exit_code(status: Any) -> int:
    return {"completed": 0, "failed": 1, "timeout": 124, "cancelled": 130}.get(str(status), 1)
