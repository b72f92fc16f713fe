"""invoke_claude_code: run a task in a registered project through the session manager.

A real Claude Code session (cwd = the project root) does the work (a project task,
``cctui.projects.tasks``, followed by ``runs.invoke``); this
tool streams its progress as notifications and lets its decisions take the usual route:
asked of this caller when it can elicit (mid-call on handshake-era connections; on
2026-07-28 ones, where a tool cannot ask mid-call, as an input-required round whose retry
continues the same task), else the human at the TUI; when neither can answer, the call
returns ``waiting_for_input`` at once with what to answer through ``claude_respond``. On
``maxTime`` the turn is interrupted, then the process ended, and what was done so far is
reported. Files created and modified come from git or a before/after scan
(``cctui.projects.changes``). The task is recorded in the project's session state when it
starts and when it ends.

No ``from __future__ import annotations``: see ``tools.sessions``.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seed)

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import InputRequiredResult
from pydantic import Field

from cctui.core import Router, SessionInfo, SessionManager
from cctui.errors import CliNotFound
from cctui.mcp_server.asking.decisions import can_elicit, client_label
from cctui.mcp_server.asking.rounds import Rounds
from cctui.mcp_server.runs.invoke import InvokeRun
from cctui.mcp_server.schemas.common import ACT
from cctui.mcp_server.schemas.projects import InvokeOut
from cctui.projects import ProjectService
from cctui.projects.tasks import ProjectTask, ProjectTasks, task_prompt

INSTALL = (
    "Install Claude Code: `pip install claude-agent-sdk` (bundles the CLI) or "
    "`npm install -g @anthropic-ai/claude-code`; or point CLAUDE_CODE_PATH at the binary."
)


def register(
    server: MCPServer,
    manager: SessionManager,
    projects: ProjectService,
    router: Router,
) -> None:
    """Add invoke_claude_code to ``server``."""
    tasks = ProjectTasks(manager, projects)
    rounds: Rounds[InvokeRun] = Rounds(
        "an invoke_claude_code task",
        "get_project_status lists the project's tasks; claude_get_status shows a session's "
        "state and pending decisions.",
    )

    def forget_later(task: ProjectTask) -> None:
        rounds.forget_later(task.task_id)

    async def start(
        ctx: Context,
        projectId: str,
        task: str,
        contextFiles: list[str] | None,
        maxTime: float,
    ) -> InvokeRun:
        job = await tasks.open(projectId, task, contextFiles or (), maxTime)
        job.on_finished.append(forget_later)
        run = InvokeRun(
            run=job.run, task=job, router=router, label=client_label(ctx), round_id=job.task_id
        )
        elicits = can_elicit(ctx)

        def created(info: SessionInfo) -> None:
            # The caller owns the task's decisions (asked again on a later round, first
            # answer wins with the human), if it can be asked at all.
            router.note_created(info.session_id, run.label, elicits)
            run.started()

        try:
            await job.start(task_prompt(task, contextFiles or ()), created)
        except CliNotFound as exc:
            raise CliNotFound(exc.message, suggestion=INSTALL) from None
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
            float, Field(gt=0, description="Max execution time in seconds (no maximum)")
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
        run = await rounds.call(
            ctx, lambda: start(ctx, projectId, task, contextFiles, maxTime), streaming
        )
        return run if isinstance(run, InputRequiredResult) else run.out()
