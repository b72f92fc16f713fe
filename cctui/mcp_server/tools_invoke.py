"""invoke_claude_code: run a task in a registered project through the session manager.

A real Claude Code session (cwd = the project root) does the work (``invoke_run``); this
tool streams its progress as notifications and lets its decisions take the usual route:
asked of this caller when it can elicit (mid-call on handshake-era connections; on
2026-07-28 ones, where a tool cannot ask mid-call, as an input-required round whose retry
continues the same task), else the human at the TUI; when neither can answer, the call
returns ``waiting_for_input`` at once with what to answer through ``claude_respond``. On
``maxTime`` the turn is interrupted, then the process ended, and what was done so far is
reported. Files created and modified come from git or a before/after scan
(``cctui.projects.changes``). The task is recorded in the project's session state when it
starts and when it ends.

No ``from __future__ import annotations``: see ``tools_sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seed)

import asyncio
import contextlib
import uuid
from pathlib import Path
from typing import Annotated

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import (
    InputRequiredResult,
    ToolAnnotations,
)
from pydantic import Field

from cctui.core import SessionManager
from cctui.errors import CliNotFound
from cctui.fs.safepath import open_read
from cctui.mcp_server.decisions import (
    DecisionBroker,
    can_elicit,
    client_label,
)
from cctui.mcp_server.invoke_run import InvokeRun, exit_code
from cctui.mcp_server.project_schemas import InvokeOut
from cctui.mcp_server.rounds import ask_round, continued, take_answer
from cctui.projects import ProjectService, TaskRecord
from cctui.projects.changes import snapshot
from cctui.projects.registry import check_root
from cctui.projects.state import now_iso

ACT = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=True)
INSTALL = (
    "Install Claude Code: `pip install claude-agent-sdk` (bundles the CLI) or "
    "`npm install -g @anthropic-ai/claude-code`; or point CLAUDE_CODE_PATH at the binary."
)
UNCLAIMED_TTL_S = 600.0
"""A task that ended between rounds keeps its result this long for the caller's retry."""


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
    runs: dict[str, InvokeRun] = {}
    """Tasks between the rounds of a 2026-07-28 call, by task id."""
    running: dict[Path, dict[str, InvokeRun]] = {}
    """Unfinished tasks by project root: tasks that overlap there cannot tell whose the
    files are from the diff alone (``InvokeRun.shared``)."""

    def forget_later(run: InvokeRun) -> None:
        running.get(run.root, {}).pop(run.task_id, None)
        asyncio.get_running_loop().call_later(UNCLAIMED_TTL_S, runs.pop, run.task_id, None)

    def join(run: InvokeRun) -> None:
        here = running.setdefault(run.root, {})
        if here:
            run.shared = True
            for other in here.values():
                other.shared = True
        here[run.task_id] = run

    async def start(
        ctx: Context,
        projectId: str,
        task: str,
        contextFiles: list[str] | None,
        maxTime: float,
    ) -> InvokeRun:
        project = await anyio.to_thread.run_sync(projects.get, projectId)
        root = await anyio.to_thread.run_sync(check_root, project.root_path)
        for rel in contextFiles or ():
            await anyio.to_thread.run_sync(check_readable, root, rel)  # refuses escapes
        record = TaskRecord(
            task_id="task_" + uuid.uuid4().hex[:10],
            status="running",
            command=task,
            start_time=now_iso(),
        )
        # Recorded first, so the state file it creates is not among the task's files.
        await anyio.to_thread.run_sync(projects.put_task, projectId, record)
        state_dir = project.claude_state_path
        run = InvokeRun(
            manager=manager,
            broker=broker,
            projects=projects,
            project_id=projectId,
            root=root,
            record=record,
            before=await anyio.to_thread.run_sync(snapshot, root, state_dir),
            max_time=maxTime,
            label=client_label(ctx),
            state_dir=state_dir,
            on_finished=forget_later,
        )
        join(run)
        prompt = task
        if contextFiles:
            prompt += "\n\nRead these files first for context:\n" + "\n".join(
                f"- {f}" for f in contextFiles
            )
        try:
            config = manager.default_config(
                root, title=f"[{project.id}] {task[:60]}", project=project.id
            )
            info = await manager.create(prompt, config)
        except BaseException as exc:
            # Whatever stopped the start (no CLI, MAX_SESSIONS, a bad prefix, a cancelled
            # call), the task ends here: never left "running", never counted as concurrent.
            running[root].pop(run.task_id, None)
            cancelled = isinstance(exc, anyio.get_cancelled_exc_class())
            status = "cancelled" if cancelled else "failed"
            record = record.model_copy(
                update={"status": status, "end_time": now_iso(), "exit_code": exit_code(status)}
            )
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await anyio.to_thread.run_sync(projects.put_task, projectId, record)
            if isinstance(exc, CliNotFound):
                raise CliNotFound(exc.message, suggestion=INSTALL) from None
            raise
        # The caller owns the task's decisions (asked again on a later round, first answer
        # wins with the human), if it can be asked at all.
        broker.note_owner(info.session_id, run.label, can_elicit(ctx))
        run.watch(info.session_id)
        await anyio.to_thread.run_sync(projects.put_task, projectId, run.record)
        return run

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
    ) -> InvokeOut | InputRequiredResult:
        """Run Claude Code on a task in a registered project and report files changed.

        Returns when the task finishes or maxTime passes (then partial results, status
        timeout). Decisions are asked by elicitation when your client supports it; if
        nobody can answer one, returns at once with status waiting_for_input and the
        pendingInputs to answer with claude_respond. Progress messages name the taskId
        and sessionId; the session stays resumable with claude_send_message.
        """
        if ctx.input_responses is not None:
            run = continued(
                runs,
                ctx,
                "an invoke_claude_code task",
                "get_project_status lists the project's tasks; claude_get_status shows a "
                "session's state and pending decisions.",
            )
            take_answer(run, ctx)
        else:
            run = await start(ctx, projectId, task, contextFiles, maxTime)
        try:
            item = await run.follow(ctx, streaming)
        except BaseException:
            with anyio.CancelScope(shield=True):
                runs.pop(run.task_id, None)
                if run.result is None:
                    await run.stop("cancelled")
                    await run.finish("cancelled")
            raise
        if item is not None:
            runs[run.task_id] = run
            return ask_round(item, run.task_id)
        runs.pop(run.task_id, None)
        return run.result if run.result is not None else run.handed_off()
