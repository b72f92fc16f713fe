"""Session tools: thin wrappers (validate -> core call -> model) over ``SessionManager``.

No ``from __future__ import annotations`` here: the SDK reads ``Resolve`` markers from the
evaluated annotations, and these resolvers are closures it could not look up by name.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, ElicitationResult, Resolve
from pydantic import Field

from cctui.config import Settings
from cctui.core import Decision, Router, SessionManager, SessionStatus, templates
from cctui.core.dispatch import DispatchRequest
from cctui.core.launch import check_allowed_root
from cctui.mcp_server.asking.decisions import DecisionForm, can_elicit, client_label
from cctui.mcp_server.asking.reaching import keep_reachable
from cctui.mcp_server.asking.sending import Deliveries
from cctui.mcp_server.asking.waiting import Checkpoint, checkpoint, finish, question
from cctui.mcp_server.render import event_out, output_lines, tool_uses
from cctui.mcp_server.schemas.common import ACT, MAX_WAIT_MS, READ, STOP, HostName, SessionId
from cctui.mcp_server.schemas.sessions import (
    CreatedOut,
    InterruptOut,
    KillOut,
    PendingInputOut,
    ProjectGrantOut,
    RespondOut,
    SessionOut,
    StatusOut,
    WaitOut,
    seed_status,
)
from cctui.mcp_server.schemas.worktrees import Worktree

INTERRUPT_WAIT_S = 30.0
"""claude_interrupt waits this long for the CLI to end its turn; then it ends the process
(seed 002: the turn is stopped when the call returns ``interrupted``)."""
TimeoutMs = Annotated[
    int,
    Field(
        ge=0,
        le=MAX_WAIT_MS,
        description="How long to wait, in ms (max 55000); call again to keep waiting",
    ),
]


def register(
    server: MCPServer, manager: SessionManager, router: Router, settings: Settings
) -> None:
    """Add the session tools to ``server``."""

    @server.tool(annotations=ACT)
    async def claude_create_session(
        ctx: Context,
        sessionId: Annotated[
            str | None,
            Field(
                max_length=200,
                description="The new session's id, a UUID (seed 004's session_id); "
                "default: a fresh one",
            ),
        ] = None,
        prompt: Annotated[
            str | None, Field(description="The initial task for Claude Code; omit to start idle")
        ] = None,
        workingDirectory: Annotated[
            str | None,
            Field(description="Project directory the session works in (default: cctui's)"),
        ] = None,
        model: Annotated[
            str | None, Field(description="Model, e.g. 'sonnet', 'opus' or a full id")
        ] = None,
        permissionMode: Annotated[
            Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
            | None,
            Field(description="'plan' makes Claude plan first and ask for a plan review"),
        ] = None,
        allowedTools: Annotated[
            list[str] | None,
            Field(description="Tools that run without asking, e.g. ['Read', 'Bash(git diff *)']"),
        ] = None,
        disallowedTools: Annotated[
            list[str] | None, Field(description="Tools Claude may not use")
        ] = None,
        maxTurns: Annotated[int | None, Field(ge=1, description="Cap on agentic turns")] = None,
        maxBudgetUsd: Annotated[float | None, Field(gt=0, description="Cap on spend")] = None,
        systemPrompt: Annotated[
            str | None, Field(description="Text appended to Claude Code's system prompt")
        ] = None,
        dangerouslySkipPermissions: Annotated[
            bool, Field(description="Run every tool without asking (bypassPermissions)")
        ] = False,
        team: Annotated[
            str | None, Field(description="Team name (claude_broadcast messages a whole team)")
        ] = None,
        teammate: Annotated[
            str | None, Field(description="This session's name within its team")
        ] = None,
        title: Annotated[str | None, Field(description="A title for listings")] = None,
        template: Annotated[
            str | None,
            Field(
                description="A session template from cctui's config (prompt, model, mode, "
                "tools, turns, system prompt); explicit arguments win"
            ),
        ] = None,
        launchPrefix: Annotated[
            list[Annotated[str, Field(min_length=1)]] | None,
            Field(
                description="Command words run before claude, e.g. ['doppler', 'run', '--'] "
                "(a list, no shell); [] for none; default: the project's or config's"
            ),
        ] = None,
        worktree: Worktree = None,
        after: Annotated[
            list[str] | None,
            Field(
                description="Session ids that must all end well first (AND); it is queued "
                "until then, and cancelled, saying why, if one fails, is killed or cancelled"
            ),
        ] = None,
        includeParentResults: Annotated[
            Literal["none", "reply", "diff"],
            Field(description="Append each 'after' session's final reply or changed files"),
        ] = "none",
        priority: Annotated[
            int, Field(ge=-100, le=100, description="Queue priority: higher starts first")
        ] = 0,
        queue: Annotated[
            bool | None,
            Field(
                description="At the session limit: true/omitted queue it (status 'queued' "
                "when true); false refuses with session_limit"
            ),
        ] = None,
        startNow: Annotated[bool, Field(description="Start even over the session limits")] = False,
        host: HostName = None,  # sent there by CctuiMCPServer before this runs
    ) -> CreatedOut:
        """Start a new Claude Code session in a project; returns its sessionId at once.

        Over the session limit (only working sessions count), with 'after' sessions not
        ended, or while the usage limit holds, it is queued: listed at once, started later
        (queuePosition; claude_queue reorders, starts or cancels it).

        Follow with claude_wait (or claude_get_status) to see its progress and decisions.
        Seed 004 start_session names work too: session_id, cwd, team_name, teammate_name,
        max_turns, doppler_project/doppler_config (a `doppler run` launch prefix);
        stream_output is accepted and ignored (the output is always in claude_get_status);
        log_file is refused.
        """
        config = manager.default_config(
            workingDirectory,
            template=template,
            model=model,
            permission_mode=permissionMode,
            allowed_tools=allowedTools,
            disallowed_tools=disallowedTools,
            max_turns=maxTurns,
            max_budget_usd=maxBudgetUsd,
            append_system_prompt=systemPrompt,
            launch_prefix=launchPrefix,
            skip_permissions=dangerouslySkipPermissions,
            team=team,
            teammate=teammate,
            title=title,
        )
        check_allowed_root(settings, config.cwd)
        if prompt is None and template is not None:
            prompt = templates.find(settings, template).prompt
        keep_reachable(router, ctx)  # seed 002 Flow A: asked later, while it only polls
        dispatch = DispatchRequest(
            after=tuple(after or ()),
            parent_results=includeParentResults,
            priority=priority,
            start_now=startNow,
            queue_when_full=queue is not False,
        )
        info = await manager.create(
            prompt, config, session_id=sessionId, worktree=worktree, dispatch=dispatch
        )
        router.note_created(info.session_id, client_label(ctx), can_elicit(ctx))
        # A client that named a dispatch field reads "queued"; a seed's reads its own word.
        knows = bool(after) or queue is True or priority != 0
        return CreatedOut.of_created(info, queued_word=knows)

    deliveries = Deliveries(manager, router)

    async def deliver(
        sessionId: str, message: str | None, workingDirectory: str | None, ctx: Context
    ) -> None:
        keep_reachable(router, ctx)
        await deliveries.deliver(
            sessionId, message, workingDirectory, client_label(ctx), can_elicit(ctx)
        )

    async def send_checkpoint(
        sessionId: str,
        message: str | None,
        workingDirectory: str | None,
        wait: bool,
        timeoutMs: int,
        ctx: Context,
    ) -> Checkpoint:
        async def send() -> None:
            await deliver(sessionId, message, workingDirectory, ctx)

        waits = wait and message is not None
        return await checkpoint(ctx, manager, router, sessionId, timeoutMs, send, waits)

    async def send_question(cp: Annotated[Checkpoint, Resolve(send_checkpoint)]) -> Any:
        return question(cp)

    @server.tool(annotations=ACT)
    async def claude_send_message(
        sessionId: SessionId,
        ctx: Context,
        cp: Annotated[Checkpoint, Resolve(send_checkpoint)],
        answer: Annotated[ElicitationResult[DecisionForm], Resolve(send_question)],
        wait: Annotated[
            bool, Field(description="Wait for the reply (or a needed decision) up to timeoutMs")
        ] = False,
        timeoutMs: TimeoutMs = 30_000,
        message: Annotated[
            str | None,
            Field(
                min_length=1,
                description="The message to send; omit to only resume the session "
                "(seed 004 resume_session)",
            ),
        ] = None,
        workingDirectory: Annotated[
            str | None,
            Field(
                description="Checked, not changed: must be the session's own directory "
                "(seed 004 resume_session's cwd; a session resumes where its history is)"
            ),
        ] = None,
        host: HostName = None,  # sent there by CctuiMCPServer before this runs
    ) -> WaitOut:
        """Send a message to a Claude Code session; an ended session is resumed automatically.

        With wait=true, returns the reply when the turn ends (or when a decision is needed).
        Without a message, only resumes the session. Seed 004 send_message / resume_session
        names work too: session_id, cwd, wait_for_response, timeout_ms (at most 55000 here,
        then timed_out says how to go on; send_message waits longer); a call that uses them
        waits unless wait_for_response is false, as that seed does. include_context is
        accepted when false (true: use send_message or claude_sync_context);
        doppler_project/doppler_config are refused (resume_session applies them).
        """
        if cp.deferred:
            await deliver(sessionId, message, workingDirectory, ctx)
        sent = deliveries.last(sessionId, client_label(ctx))
        delivered = message is not None
        if not wait or not delivered:
            info = manager.get(sessionId)
            pending = [PendingInputOut.of(p) for p in manager.pending(sessionId)]
            reason: Literal["sent", "resumed"] = "sent" if delivered else "resumed"
            return WaitOut.build(info, reason, pending, message_sent=delivered, sent=sent)
        return await finish(
            ctx, manager, router, sessionId, cp, answer, message_sent=True, sent=sent
        )

    async def wait_checkpoint(sessionId: str, timeoutMs: int, ctx: Context) -> Checkpoint:
        return await checkpoint(ctx, manager, router, sessionId, timeoutMs)

    async def wait_question(cp: Annotated[Checkpoint, Resolve(wait_checkpoint)]) -> Any:
        return question(cp)

    @server.tool(annotations=READ)
    async def claude_wait(
        sessionId: SessionId,
        ctx: Context,
        cp: Annotated[Checkpoint, Resolve(wait_checkpoint)],
        answer: Annotated[ElicitationResult[DecisionForm], Resolve(wait_question)],
        timeoutMs: TimeoutMs = 30_000,
        host: HostName = None,  # sent there by CctuiMCPServer before this runs
    ) -> WaitOut:
        """Wait until a Claude Code session needs a decision, ends its turn, or timeoutMs passes.

        Decisions meant for you are asked by elicitation when your client supports it.
        Seed 004 wait_for_completion names work too: session_id, timeout_ms (at most 55000
        here, then timed_out says how to go on; wait_for_completion waits longer);
        poll_interval_ms and check_idle are accepted and ignored (the wait is event-driven
        and ends at the turn's end or a needed decision).
        """
        return await finish(ctx, manager, router, sessionId, cp, answer)

    @server.tool(annotations=READ)
    async def claude_get_status(
        sessionId: SessionId,
        sinceSeq: Annotated[
            int,
            Field(
                ge=0,
                description=(
                    "Return events after this seq (0 = all buffered); pass the last nextSeq. "
                    "missed=true (or a new epoch) means events were lost: re-read from 0"
                ),
            ),
        ] = 0,
        outputLines: Annotated[
            int, Field(ge=0, description="How many recent output lines to include (no maximum)")
        ] = 50,
        limit: Annotated[int, Field(ge=1, description="Events per page (no maximum)")] = 200,
        host: HostName = None,  # sent there by CctuiMCPServer before this runs
    ) -> StatusOut:
        """Status of a Claude Code session: state, result, output, pending decisions, events.

        Page through events with sinceSeq = the previous call's nextSeq. Seed 004
        stream_output names work too: session_id, lines (outputLines, at most 1000);
        follow is accepted and ignored (poll with sinceSeq for new output).
        """
        info = manager.get(sessionId)
        page = manager.events(sessionId, since=sinceSeq, limit=limit)
        everything = manager.events(sessionId).events
        session = SessionOut.of(info)
        return StatusOut(
            session_id=info.session_id,
            status=seed_status(info.status),
            state=info.status,
            result=info.last_result,
            error=info.error,
            cost_usd=info.total_cost_usd,
            turn_count=info.num_turns,
            is_active=info.is_active,
            dispatch_note=session.dispatch_note,
            queue_position=session.queue_position,
            resumes_at=session.resumes_at,
            session=session,
            recent_output=output_lines(everything, outputLines),
            events=[event_out(e) for e in page.events],
            next_seq=page.next_seq,
            missed=page.missed,
            epoch=page.epoch,
            has_more=page.next_seq < info.last_seq,
            pending_inputs=[PendingInputOut.of(p) for p in manager.pending(sessionId)],
            tool_use_events=tool_uses(everything),
        )

    @server.tool(annotations=ACT)
    async def claude_respond(
        sessionId: SessionId,
        inputId: Annotated[
            str,
            Field(
                min_length=1,
                description=(
                    "The pending input's id (pendingInputs[].inputId from claude_get_status)"
                ),
            ),
        ],
        decision: Annotated[
            Literal["allow", "deny"],
            Field(description=("allow runs the tool / approves the plan / answers; deny refuses")),
        ],
        ctx: Context,
        reason: Annotated[
            str, Field(description=("Shown to Claude: why denied, or feedback on a plan"))
        ] = "",
        updatedInput: Annotated[
            dict[str, Any] | None,
            Field(description=("Replacement tool input when allowing (e.g. a safer command)")),
        ] = None,
        answers: Annotated[
            dict[str, str] | None,
            Field(
                description=(
                    "For questions: question text -> chosen option label (several: "
                    "'A, B'; your own answer: 'Other: <text>')"
                )
            ),
        ] = None,
        allowForSession: Annotated[
            bool,
            Field(
                description=(
                    "With allow: also allow, until the process ends, what the input's "
                    "allowForSession says (a narrow rule or this exact call)"
                )
            ),
        ] = False,
        allowForProject: Annotated[
            bool,
            Field(
                description=(
                    "With allow: always allow in this project what the input's "
                    "allowForProject says (a rule in the repository's "
                    ".claude/settings.local.json); written only once the human at cctui "
                    "confirms it unless cctui allows clients to; see project in the answer"
                )
            ),
        ] = False,
        host: HostName = None,  # sent there by CctuiMCPServer before this runs
    ) -> RespondOut:
        """Answer a pending permission request, plan review or question of a Claude Code session."""
        res, grant = manager.respond_as_client(
            inputId,
            Decision(
                behavior=decision,
                message=reason,
                updated_input=updatedInput,
                answers=answers,
                always=allowForSession and decision == "allow",
                for_project=allowForProject and decision == "allow",
            ),
            client_label(ctx),
            session_id=sessionId,
        )
        router.done(inputId)
        return RespondOut(
            session_id=sessionId,
            input_id=inputId,
            decision=decision,
            decided_by=res.decided_by,
            status=seed_status(state := manager.get(sessionId).status),
            state=state,
            project=ProjectGrantOut(**grant.model_dump()) if grant is not None else None,
        )

    @server.tool(annotations=STOP)
    async def claude_interrupt(sessionId: SessionId) -> InterruptOut:
        """Stop a Claude Code session's current turn (like pressing Escape); it stays resumable.

        Returns once the turn has stopped, with status "interrupted" (wasRunning=false: it
        was already idle or ended).
        """
        before = manager.get(sessionId)
        running = before.is_active and before.status in (
            SessionStatus.STARTING,
            SessionStatus.RUNNING,
            SessionStatus.WAITING_FOR_INPUT,
        )
        info = await manager.interrupt(sessionId, wait_s=INTERRUPT_WAIT_S)
        return InterruptOut.of_stopped(info, was_running=running)

    @server.tool(annotations=STOP)
    async def claude_kill_session(
        sessionId: SessionId,
        force: Annotated[
            bool,
            Field(description="SIGKILL at once instead of SIGTERM and a grace period"),
        ] = False,
    ) -> KillOut:
        """End a Claude Code session's process; a later claude_send_message resumes it.

        Seed 004 kill_session names work too: session_id, force; save_state is accepted
        and ignored (the transcript is always kept: state_saved is true).
        """
        was_active = manager.get(sessionId).is_active
        info = await manager.kill(sessionId, force=force)
        return KillOut.of_killed(info, was_active=was_active, at=datetime.now(UTC))

    @server.tool(annotations=ACT)
    async def claude_fork_session(
        sessionId: SessionId,
        ctx: Context,
        prompt: Annotated[
            str | None, Field(description="First message for the fork; omit to start idle")
        ] = None,
        worktree: Worktree = None,
    ) -> SessionOut:
        """Copy a Claude Code session's history into a new session (new sessionId) and run it.

        With worktree, the fork runs in a new git worktree branched from the source's HEAD.
        """
        keep_reachable(router, ctx)
        info = await manager.fork(sessionId, prompt, worktree=worktree)
        router.note_created(info.session_id, client_label(ctx), can_elicit(ctx))
        return SessionOut.of(info)
