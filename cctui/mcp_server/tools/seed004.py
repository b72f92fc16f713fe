"""Seed 004's eight tools under its own names, answering in its own words.

``start_session``, ``resume_session``, ``kill_session``, ``list_sessions``,
``send_message``, ``sync_context``, ``wait_for_completion`` and ``stream_output`` are thin
over the same core as the ``claude_*`` tools: they take the seed's arguments with the
seed's defaults (``wait_for_completion`` waits 5 minutes; ``list_sessions`` returns every
session) and return ``schemas.seed004``'s models. They are listed by default (an LLM host
offers its model only listed tools); ``--tools full,nocompat`` or ``compat_tools = false``
leaves them out of ``tools/list``, callable still. Errors come back in the seed's envelope
(the server wraps them).

No ``from __future__ import annotations``: see ``tools.sessions``.
"""

import contextlib
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, ElicitationResult, Resolve
from pydantic import Field

from cctui.config import Settings
from cctui.core import (
    LIVE,
    Router,
    SessionManager,
    SessionStatus,
)
from cctui.core.catalog import CatalogEntry
from cctui.core.launch import check_allowed_root, doppler_prefix, resolve_dir
from cctui.errors import SessionNotFound, ValidationFailed
from cctui.mcp_server.asking.decisions import DecisionForm, can_elicit, client_label
from cctui.mcp_server.asking.following import follow_output
from cctui.mcp_server.asking.sending import Deliveries
from cctui.mcp_server.asking.waiting import Checkpoint, checkpoint, finish, question
from cctui.mcp_server.history_view import HistoryView
from cctui.mcp_server.render import output_lines
from cctui.mcp_server.schemas.common import ACT, READ, SEED_MAX_WAIT_MS, STOP, SessionId
from cctui.mcp_server.schemas.seed004 import (
    KillSessionOut,
    ListSessionsOut,
    PreviousStateOut,
    ResumeSessionOut,
    RowStatus,
    SendMessageOut,
    SessionRowOut,
    StartSessionOut,
    StreamOutputOut,
    SyncContextOut,
    WaitForCompletionOut,
    resume_status,
    start_status,
)
from cctui.mcp_server.schemas.sessions import PendingInputOut, WaitOut
from cctui.mcp_server.schemas.worktrees import Worktree
from cctui.projects import context
from cctui.timestamps import iso_z

WaitMs = Annotated[
    int,
    Field(
        ge=0,
        le=SEED_MAX_WAIT_MS,
        description="Maximum wait in milliseconds; a wait over 15 s sends a progress "
        "notification every 15 s (send a progress token to keep your request alive)",
    ),
]


_GO_ON = "The turn goes on: call wait_for_completion to wait for it."


def _now() -> str:
    return iso_z(datetime.now(UTC))


def _row_status(status: SessionStatus) -> RowStatus:
    if status == SessionStatus.ERROR:
        return "error"
    return "active" if status in LIVE else "inactive"


def _row(e: CatalogEntry, model: str | None, metadata: bool) -> SessionRowOut:
    return SessionRowOut(
        session_id=e.session_id,
        status=_row_status(e.status),
        pid=e.pid,
        cwd=e.cwd,
        created_at=iso_z(e.created_at or e.last_activity),
        last_active=iso_z(e.last_activity),
        team_name=e.team,
        teammate_name=e.teammate,
        model=model,
        title=e.title if metadata else None,
        state=str(e.status) if metadata else None,
        cost_usd=e.total_cost_usd if metadata else None,
        started_by_cctui=e.started_by_cctui if metadata else None,
    )


def _pending(w: WaitOut) -> list[PendingInputOut] | None:
    return w.pending_inputs or None


def _note(w: WaitOut) -> str | None:
    """A wait that ran out with nothing to decide says how to go on."""
    return _GO_ON if w.timed_out and not w.pending_inputs else w.note


def register(
    server: MCPServer,
    manager: SessionManager,
    router: Router,
    settings: Settings,
    history: HistoryView,
) -> None:
    """Add seed 004's eight tools to ``server``."""
    deliveries = Deliveries(manager, router)

    @server.tool(annotations=ACT)
    async def start_session(
        ctx: Context,
        session_id: Annotated[
            str | None,
            Field(max_length=200, description="A UUID for the new session; default: a fresh one"),
        ] = None,
        cwd: Annotated[
            str | None, Field(description="Working directory (default: cctui's default)")
        ] = None,
        doppler_project: Annotated[
            str | None,
            Field(description="Doppler project: the session runs under `doppler run`"),
        ] = None,
        doppler_config: Annotated[
            str | None, Field(description="Doppler config (dev, prod...); default 'dev'")
        ] = None,
        prompt: Annotated[str | None, Field(description="Initial prompt to send")] = None,
        team_name: Annotated[str | None, Field(description="Team the session joins")] = None,
        teammate_name: Annotated[
            str | None, Field(description="Its name in the team; generated if not given")
        ] = None,
        model: Annotated[str | None, Field(description="Claude model to use")] = None,
        max_turns: Annotated[
            int | None, Field(ge=1, description="Maximum conversation turns")
        ] = None,
        stream_output: Annotated[
            bool,
            Field(
                description="Accepted; output is always available from stream_output (an "
                "MCP server's stdout is the protocol, so nothing is printed there)"
            ),
        ] = False,
        log_file: Annotated[
            str | None,
            Field(
                description="Also append the session's output to this file (inside the "
                "session's directory, or cctui's session-logs directory)"
            ),
        ] = None,
        worktree: Worktree = None,
    ) -> StartSessionOut:
        """Start a new Claude Code session (seed 004 start_session); returns at once.

        status is ready once the process takes messages (a first prompt is already
        running: follow with wait_for_completion or stream_output).
        """
        del stream_output
        config = manager.default_config(
            cwd,
            model=model,
            max_turns=max_turns,
            launch_prefix=doppler_prefix(settings, doppler_project, doppler_config),
            team=team_name,
            teammate=teammate_name,
            log_file=log_file,
        )
        check_allowed_root(settings, config.cwd)
        info = await manager.create(prompt, config, session_id=session_id, worktree=worktree)
        router.note_created(info.session_id, client_label(ctx), can_elicit(ctx))
        return StartSessionOut(
            session_id=info.session_id,
            status=start_status(info.status),
            pid=info.pid,
            started_at=iso_z(info.created_at),
            state=info.status,
            cwd=str(info.config.cwd),
            team_name=info.config.team,
            teammate_name=info.config.teammate,
            model=info.config.model,
            log_file=str(info.config.log_file) if info.config.log_file else None,
            error=info.error,
        )

    @server.tool(annotations=ACT)
    async def resume_session(
        session_id: SessionId,
        ctx: Context,
        cwd: Annotated[
            str | None,
            Field(description="Override the working directory (kept for later resumes)"),
        ] = None,
        doppler_project: Annotated[
            str | None, Field(description="Override the Doppler project")
        ] = None,
        doppler_config: Annotated[
            str | None, Field(description="Override the Doppler config")
        ] = None,
        message: Annotated[
            str | None, Field(min_length=1, description="Message to send upon resuming")
        ] = None,
    ) -> ResumeSessionOut:
        """Resume a Claude Code session (seed 004 resume_session): start its process again.

        Any session on this machine can be resumed (cctui's or one started elsewhere). A
        live session is left running unless an override changes how it runs: then its
        process is ended and started again with the overrides.
        """
        before = None
        with contextlib.suppress(SessionNotFound):
            before = manager.get(session_id)
        prefix = None
        if doppler_project is not None or doppler_config is not None:
            current = before.config.launch_prefix if before is not None else ()
            prefix = doppler_prefix(settings, doppler_project, doppler_config, current)
            if prefix is None:
                raise ValidationFailed(
                    "doppler_config needs a Doppler project: this session has none.",
                    suggestion="Pass doppler_project too (or set DOPPLER_PROJECT).",
                )
        if cwd is not None:
            check_allowed_root(settings, resolve_dir(cwd))
        try:
            info = await manager.resume(
                session_id, cwd=cwd, launch_prefix=tuple(prefix) if prefix else None
            )
        except SessionNotFound:
            return ResumeSessionOut(
                session_id=session_id,
                status="not_found",
                resumed_at=_now(),
                note="No session with this id: list_sessions shows every session.",
            )
        router.note_owner(session_id, client_label(ctx), can_elicit(ctx))
        resumed_at = _now()
        sent = None
        if message is not None:
            info = await manager.send(session_id, message)
            sent = True
        previous = None
        if before is not None:
            previous = PreviousStateOut(
                created_at=iso_z(before.created_at), last_active=iso_z(before.last_activity)
            )
        return ResumeSessionOut(
            session_id=info.session_id,
            status=resume_status(info.status),
            resumed_at=resumed_at,
            previous_state=previous,
            state=info.status,
            cwd=str(info.config.cwd),
            pid=info.pid,
            message_sent=sent,
            error=info.error,
        )

    @server.tool(annotations=STOP)
    async def kill_session(
        session_id: SessionId,
        force: Annotated[
            bool, Field(description="SIGKILL at once instead of SIGTERM and a grace period")
        ] = False,
        save_state: Annotated[
            bool,
            Field(
                description="Accepted: Claude Code keeps the conversation either way "
                "(state_saved is true; a later message resumes it)"
            ),
        ] = True,
    ) -> KillSessionOut:
        """Terminate a Claude Code session's process (seed 004 kill_session)."""
        del save_state
        try:
            was_active = manager.get(session_id).is_active
        except SessionNotFound:
            return KillSessionOut(
                session_id=session_id, status="not_found", killed_at=_now(), state_saved=False
            )
        info = await manager.kill(session_id, force=force)
        status: Literal["killed", "already_dead", "error"]
        if info.status == SessionStatus.ERROR and not was_active:
            status = "error"
        else:
            status = "killed" if was_active else "already_dead"
        return KillSessionOut(
            session_id=session_id,
            status=status,
            killed_at=_now(),
            exit_code=info.exit_code if was_active else None,
            state_saved=True,
            state=info.status,
        )

    @server.tool(annotations=READ)
    async def list_sessions(
        status_filter: Annotated[
            Literal["all", "active", "inactive", "error"],
            Field(description="active: a process runs; inactive: ended; error; all"),
        ] = "all",
        team_filter: Annotated[str | None, Field(description="Only this team's sessions")] = None,
        limit: Annotated[
            int | None, Field(ge=1, description="At most this many (default: every session)")
        ] = None,
        include_metadata: Annotated[
            bool, Field(description="Add title, cctui's state, cost and who started it")
        ] = False,
    ) -> ListSessionsOut:
        """List Claude Code sessions, cctui's and any on this machine, newest first
        (seed 004 list_sessions)."""
        entries, models = await history.entries()
        rows = [_row(e, models.get(e.session_id), include_metadata) for e in entries]
        matches = [
            r
            for r in rows
            if (status_filter == "all" or r.status == status_filter)
            and (team_filter is None or r.team_name == team_filter)
        ]
        return ListSessionsOut(
            sessions=matches if limit is None else matches[:limit],
            total_count=len(rows),
            filtered_count=len(matches),
        )

    async def send_checkpoint(
        session_id: str,
        message: str,
        wait_for_response: bool,
        timeout_ms: int,
        include_context: bool,
        ctx: Context,
    ) -> Checkpoint:
        async def send() -> None:
            await _deliver(session_id, message, include_context, ctx)

        return await checkpoint(
            ctx, manager, router, session_id, timeout_ms, send, wait_for_response
        )

    async def send_question(cp: Annotated[Checkpoint, Resolve(send_checkpoint)]) -> Any:
        return question(cp)

    async def _deliver(session_id: str, message: str, include_context: bool, ctx: Context) -> None:
        text = message
        if include_context:
            built = await context.build_for(manager, session_id)
            text = f"{built.text}\n\n{message}"
        await deliveries.deliver(session_id, text, None, client_label(ctx), can_elicit(ctx))

    @server.tool(annotations=ACT)
    async def send_message(
        session_id: SessionId,
        message: Annotated[str, Field(min_length=1, description="The message to send")],
        ctx: Context,
        cp: Annotated[Checkpoint, Resolve(send_checkpoint)],
        answer: Annotated[ElicitationResult[DecisionForm], Resolve(send_question)],
        wait_for_response: Annotated[
            bool, Field(description="Wait for Claude's response before returning")
        ] = True,
        timeout_ms: WaitMs = 30_000,
        include_context: Annotated[
            bool,
            Field(
                description="Prepend the project's context (git status, files, environment "
                "variable names) to the message"
            ),
        ] = False,
    ) -> SendMessageOut:
        """Send a message to a Claude Code session (seed 004 send_message); an ended session
        is resumed. Decisions it needs meanwhile are asked by elicitation when your client
        supports it; otherwise they are returned as pending_inputs (answer with
        claude_respond)."""
        if cp.deferred:
            await _deliver(session_id, message, include_context, ctx)
        sent = deliveries.last(session_id, client_label(ctx))
        sent_at = iso_z(sent.at) if sent is not None else _now()
        if not wait_for_response:
            info = manager.get(session_id)
            return SendMessageOut(
                session_id=session_id,
                message_sent=True,
                sent_at=sent_at,
                state=info.status,
                error=info.error,
            )
        w = await finish(ctx, manager, router, session_id, cp, answer, message_sent=True, sent=sent)
        return SendMessageOut(
            session_id=session_id,
            message_sent=True,
            response=w.response,
            error=w.error,
            sent_at=w.sent_at or sent_at,
            responded_at=w.responded_at,
            timed_out=w.timed_out,
            state=w.state,
            pending_inputs=_pending(w),
            note=_note(w),
        )

    @server.tool(annotations=ACT)
    async def sync_context(
        session_id: SessionId,
        ctx: Context,
        context_type: Annotated[
            Literal["files", "env", "git", "all"],
            Field(description="git status, files, environment variable names, or all"),
        ] = "all",
        paths: Annotated[
            list[str] | None,
            Field(description="Files or directories inside the session's project"),
        ] = None,
        force: Annotated[bool, Field(description="Accepted: the context is always sent")] = False,
    ) -> SyncContextOut:
        """Send a session its project's current context as a message (seed 004
        sync_context): git status, the files' contents, environment variable names."""
        del force
        router.note_owner(session_id, client_label(ctx), can_elicit(ctx))
        built, _ = await context.sync(manager, session_id, context_type, paths or ())
        return SyncContextOut(
            session_id=session_id,
            synced_at=iso_z(built.synced_at),
            context_type=context_type,
            files_synced=built.files_synced,
            env_vars_synced=built.env_vars_synced,
            git_status_synced=built.git_status_synced,
            warnings=built.warnings,
            message_chars=len(built.text),
        )

    async def wait_checkpoint(session_id: str, timeout_ms: int, ctx: Context) -> Checkpoint:
        return await checkpoint(ctx, manager, router, session_id, timeout_ms)

    async def wait_question(cp: Annotated[Checkpoint, Resolve(wait_checkpoint)]) -> Any:
        return question(cp)

    @server.tool(annotations=READ)
    async def wait_for_completion(
        session_id: SessionId,
        ctx: Context,
        cp: Annotated[Checkpoint, Resolve(wait_checkpoint)],
        answer: Annotated[ElicitationResult[DecisionForm], Resolve(wait_question)],
        timeout_ms: WaitMs = 300_000,
        poll_interval_ms: Annotated[
            int, Field(ge=0, description="Accepted: the wait is event-driven")
        ] = 1000,
        check_idle: Annotated[
            bool, Field(description="Accepted: the wait ends when the turn ends")
        ] = True,
    ) -> WaitForCompletionOut:
        """Wait for a session to complete its current task (seed 004 wait_for_completion).

        Returns early, with pending_inputs, when the session needs a decision that nobody
        took through elicitation.
        """
        del poll_interval_ms, check_idle
        w = await finish(ctx, manager, router, session_id, cp, answer)
        return WaitForCompletionOut(
            session_id=session_id,
            completed=w.completed,
            timed_out=w.timed_out,
            waited_ms=w.waited_ms,
            final_state=w.final_state,
            completed_at=w.completed_at,
            response=w.response,
            state=w.state,
            pending_inputs=_pending(w),
            note=_note(w),
        )

    @server.tool(annotations=READ)
    async def stream_output(
        session_id: SessionId,
        ctx: Context,
        lines: Annotated[
            int | None, Field(ge=0, description="The last N lines (default: all buffered)")
        ] = None,
        follow: Annotated[
            bool,
            Field(
                description="Stream new output as progress notifications until the "
                "current turn ends (or needs a decision), then return"
            ),
        ] = False,
    ) -> StreamOutputOut:
        """Output of a session (seed 004 stream_output): its last lines, and with follow the
        new output as it arrives (progress notifications and log messages from logger
        claude-code/output), until the turn ends."""
        manager.get(session_id)  # SessionNotFound before anything else
        if follow:
            await follow_output(ctx, manager, session_id, SEED_MAX_WAIT_MS / 1000)
        info = manager.get(session_id)
        events = manager.events(session_id).events
        out = output_lines(events, len(events) * 1000 if lines is None else lines)
        pending = [PendingInputOut.of(p) for p in manager.pending(session_id)]
        return StreamOutputOut(
            session_id=session_id,
            lines=out,
            output="\n".join(out),
            next_seq=info.last_seq,
            followed=follow,
            state=info.status,
            pending_inputs=pending or None,
        )
