"""SessionManager: the one object both front ends talk to.

All methods run on the app's event loop. A session's state and process live in
``session.py``; the table of sessions and their records in ``table.py``; the fan-out and
``wait`` in ``watch.py``; pending inputs, their routes and answers in ``decisions``
(``self.decisions``). This module holds the session verbs, the limits, metrics and the
audit log, and is the ``SessionHost`` every session reports to.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cctui.claude.driver import ClaudeDriver, DriverFactory
from cctui.claude.frames import LaunchSpec, ModelOption, PermissionDenied
from cctui.config import Settings
from cctui.core import (
    automode,
    launch,
    rewind,
    rules,
    spare_records,
    steering,
    worktrees,
)
from cctui.core.audit import AuditLog
from cctui.core.decisions.grants import ProjectGrant
from cctui.core.decisions.service import Decisions
from cctui.core.diffs import SessionDiff, TurnChanges, session_diff, snapshot_base
from cctui.core.dispatch import Dispatcher, DispatchRequest, MissedRule, Schedule
from cctui.core.dispatch.board import DispatchBoard, ScheduleChanges, edit_schedule, read_board
from cctui.core.metrics import Metrics, MetricsSnapshot
from cctui.core.policy.view import PolicyView, read_view
from cctui.core.records import SessionRecords
from cctui.core.rewind import RewindResult
from cctui.core.session import session_log
from cctui.core.session.buffer import Page
from cctui.core.session.events import SessionEvent
from cctui.core.session.host import Desk
from cctui.core.session.inputs import Decision, PendingInput, Resolution
from cctui.core.session.models import (
    PromptMark,
    SessionConfig,
    SessionInfo,
    SessionRecord,
    ToolUseSummary,
)
from cctui.core.session.session import Session
from cctui.core.session.states import SessionStatus
from cctui.core.spare import Claimed, Spare
from cctui.core.table import SessionTable
from cctui.core.watch import Fanout, Listener, WaitOutcome, wait_for
from cctui.core.worktrees import Action, FinishPreview, FinishResult, WorktreeRequest
from cctui.errors import CctuiError, SessionNotReady, ValidationFailed
from cctui.fs import git

__all__ = ["Listener", "SessionManager", "WaitOutcome"]

log = logging.getLogger(__name__)
S = SessionStatus

# A session still spawning when a message arrives: how long send() waits for it.
_STARTING_WAIT_S = 30.0


class SessionManager:
    """Creates, drives and tracks sessions; owns the decisions, the session records and the
    audit log."""

    def __init__(self, settings: Settings, driver_factory: DriverFactory | None = None) -> None:
        """``driver_factory`` defaults to the real claude-agent-sdk driver."""
        self.settings = settings
        self.driver_factory: DriverFactory = driver_factory or ClaudeDriver
        self.audit = AuditLog(settings.state_dir)
        self.records = SessionRecords(settings.state_dir, backup=settings.backup_enabled)
        self.kill_grace_s = 2.0
        """SIGTERM -> SIGKILL grace when ending a process."""
        self._sessions = SessionTable(self, self.records)
        self._spare = Spare(self)
        self._fanout = Fanout()
        self.metrics = Metrics()
        """This run's counters; fed every event (the one place they are counted)."""
        self._fanout.subscribe(self.metrics.observe)
        self._fanout.subscribe(TurnChanges(self._sessions.get, self.keep).observe)
        self.decisions = Decisions(
            settings,
            self.audit,
            self.publish,
            find_session=self._sessions.find,
            desk_of=self._desk_of,
        )
        """Every pending input: who is asked, the answers, confirmations, the human."""
        self.dispatch = Dispatcher(_DispatchHost(self), settings.state_dir)
        """The queue past the limits, ``after``, schedules and the usage-limit hold."""
        self._fanout.subscribe(self.dispatch.observe)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._shutting_down = False
        self._models: tuple[ModelOption, ...] = ()

    # ------------------------------------------------------------------ lifecycle

    @property
    def problems(self) -> builtins.list[str]:
        """Things that went wrong outside any request (a damaged registry, a failing audit
        log), for the TUI and ``claude_health`` to show; they are in the log too."""
        problems = list(self.records.problems) + self.dispatch.problems
        if self.audit.problem:
            problems.append(self.audit.problem)
        ladder = self.decisions.ladder
        problems += [
            f"policy refused (the last good one is in force): {p}"
            for p in ladder.in_force(None).problems
        ]
        if ladder.clients is not None and ladder.clients.problem:
            problems.append(ladder.clients.problem)
        return problems

    async def start(self, *, owner: bool = True) -> None:
        """Load the registry (sessions from earlier runs become listed and resumable), then
        the dispatcher (its queue and schedules go on). ``owner``: this process holds the
        state dir's owner lock (``cctui.owner``), so it dispatches; ``serve --stdio`` does
        not."""
        self._sessions.load()
        await self.dispatch.start(owner=owner)

    async def shutdown(self) -> None:
        """End every process (no child outlives cctui), withdraw pending inputs, save.

        Processes are terminated directly and concurrently (not the SDK's 5 s stdin
        grace); an idle session ends ``completed``, a busy one ``interrupted``.
        """
        self._shutting_down = True
        await self.dispatch.close()
        await self._spare.discard()
        busy = [s for s in self._sessions if s.process.busy]
        if busy:
            await asyncio.gather(*(s.process.stop() for s in busy), return_exceptions=True)
        self.decisions.withdraw_all()
        for task in list(self._tasks):
            task.cancel()
        await self._sessions.close()

    # ------------------------------------------------------------------ SessionHost

    def refused_by_cli(
        self,
        session_id: str,
        denial: PermissionDenied,
        tool_input: dict[str, Any],
        breaker: str | None,
    ) -> None:
        """The CLI refused a call without asking (auto mode): the human is asked what to do
        about it, in the background (``automode``)."""
        if self._shutting_down:
            return
        self.keep(
            asyncio.get_running_loop().create_task(
                automode.follow_up(self, session_id, denial, tool_input, breaker=breaker),
                name=f"auto mode refusal in {session_id}",
            )
        )

    def publish(self, event: SessionEvent) -> None:
        """Fan an event out to every subscriber (a failing listener is logged, not fatal)."""
        self._fanout.publish(event)

    def save(self, session_id: str) -> None:
        """Persist one session's record soon (writes are coalesced off the turn's path)."""
        self._sessions.save(session_id)

    def flush(self) -> None:
        """Write every changed record now."""
        self._sessions.flush()

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a background task until it finishes."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ commands

    def default_config(self, cwd: Path | str | None = None, **fields: Any) -> SessionConfig:
        """A SessionConfig with the settings' defaults; a field given as None is defaulted.

        The cwd is resolved (see ``launch.default_config``). Front ends build every new
        session's config here, so defaults live in one place.
        """
        return launch.default_config(self.settings, cwd, **fields)

    async def create(
        self,
        prompt: str | None,
        config: SessionConfig,
        *,
        session_id: str | None = None,
        worktree: WorktreeRequest = None,
        listed: Callable[[str], None] | None = None,
        dispatch: DispatchRequest | None = None,
    ) -> SessionInfo:
        """Start a process; returns once it is connected, with the (pre-assigned) session id.

        Over a limit, ``after`` sessions not ended yet, or while the usage limit holds, the
        session is queued instead (status ``queued``, returned at once) and started by the
        dispatcher later (``core.dispatch``; ``dispatch`` says how).

        The first prompt is queued at once; the turn runs in the background. ``worktree``
        (True, or a name) starts it in a new git worktree of its own (``worktrees``). A
        process ``prewarm`` started for the same launch is taken instead of spawning one.
        ``listed`` is told the session's id as soon as it is tracked (and listed), before
        its process is up.

        Raises:
            SessionLimitReached, CliNotFound, ValidationFailed (e.g. cwd missing),
            NotAGitRepository (a worktree asked for outside git).
        """
        self._sessions.load()
        launch.check_cwd(config.cwd)
        if session_id is not None:
            try:
                session_id = str(uuid.UUID(session_id))
            except ValueError:
                raise ValidationFailed(f"session id {session_id!r} is not a UUID.") from None
            if session_id in self._sessions:
                raise ValidationFailed(
                    f"session id {session_id} is already in use.",
                    suggestion="Send to it instead, or omit the id.",
                )
        if config.log_file is not None:
            where = session_log.check_log_file(
                str(config.log_file), config.cwd, self.settings.state_dir
            )
            config = config.model_copy(update={"log_file": where})
        if self._shutting_down:
            raise SessionNotReady("cctui is shutting down.")
        sid = session_id or str(uuid.uuid4())
        if config.team and not config.teammate:  # seed 004: a team member always has a name
            config = config.model_copy(update={"teammate": launch.default_teammate(sid)})
        if config.title is None and prompt:
            config = config.model_copy(update={"title": launch.title_of(prompt)})
        request = dispatch or DispatchRequest()
        parents = self.dispatch.admit(sid, config, request)
        if parents is not None:
            session = self.dispatch.enqueue(sid, config, prompt, worktree, request, parents)
            if listed is not None:
                listed(sid)
            return self.dispatch.annotate(session.info(), session)
        with self.dispatch.reserved(sid, config):  # its slot is taken before its status says so
            if session_id is None and not worktree:
                spare = self._spare.claim(config)
                if spare is not None:
                    await self._take_spare(spare, prompt, listed)
                    return spare.session.info()
            session = Session(self, sid, config)
            await self._start(session, prompt, worktree, listed, session_id=sid)
            return session.info()

    def prewarm(self, config: SessionConfig) -> None:
        """Start a process for a session about to be created with ``config``, unlisted, so
        ``create`` with the same launch needs no spawn (``spare.py``). Does nothing at the
        session limit or when ``config`` cannot start."""
        try:
            self._check_limit()
        except CctuiError:
            return
        self._spare.warm(config)

    async def discard_spare(self) -> None:
        """End the process ``prewarm`` started, if ``create`` did not take it."""
        await self._spare.discard()

    @property
    def spare_ids(self) -> frozenset[str]:
        """The session ids of prewarmed processes, this cctui's and those other running
        cctuis published: lists leave them out until they are taken."""
        return self._spare.ids | spare_records.published(self.settings.state_dir)

    async def send(self, session_id: str, text: str) -> SessionInfo:
        """Send a message; an ended or unknown-but-on-disk session is resumed first.

        Raises:
            SessionNotFound, SessionLimitReached.
        """
        session = await self._settled(session_id)
        if session.process.alive:
            await session.process.send(text)
            return session.info()
        if session.status == S.QUEUED:
            raise SessionNotReady(
                f"Session {session_id} is queued and has not started.",
                suggestion="claude_queue with action start_now starts it now.",
            )
        if session.status == S.CANCELLED:  # never started: this message starts it afresh
            self._check_limit()
            await self.launch_queued(session, text, None)
            return session.info()
        return await self._resume(session, text)

    async def resume(
        self,
        session_id: str,
        *,
        cwd: Path | str | None = None,
        launch_prefix: tuple[str, ...] | None = None,
    ) -> SessionInfo:
        """Start a process for an ended (or unknown-but-on-disk) session without sending it
        anything (seed 004's resume_session); a live session is left as it is.

        ``cwd`` / ``launch_prefix`` override the session's own (seed 004's resume overrides)
        and are kept for later resumes; a live process with other settings is ended first
        and the session resumed with the new ones.

        Raises:
            SessionNotFound, SessionLimitReached, ValidationFailed (``cwd`` missing).
        """
        session = await self._settled(session_id)
        update: dict[str, Any] = {}
        if cwd is not None:
            where = launch.resolve_dir(cwd)
            launch.check_cwd(where)
            if where != session.config.cwd:
                update["cwd"] = where
        if launch_prefix is not None and tuple(launch_prefix) != session.config.launch_prefix:
            update["launch_prefix"] = tuple(launch_prefix)
        if update:
            if session.process.busy:
                await session.process.stop()
            session.config = session.config.model_copy(update=update)
            self.save(session.id)
        elif session.process.alive:
            return session.info()
        return await self._resume(session, None)

    async def _settled(self, session_id: str) -> Session:
        """The session, once a process that is still spawning (or just ending) settled."""
        session = self._sessions.find_or_adopt(session_id)
        if session.process.busy and not session.process.alive:
            await session.process.settled(_STARTING_WAIT_S)
        return session

    async def _resume(self, session: Session, text: str | None) -> SessionInfo:
        process = session.process
        if process.busy:
            raise SessionNotReady(f"Session {session.id} is still starting; try again.")
        worktrees.check_resumable(session)
        launch.check_cwd(session.config.cwd)
        self._check_limit()
        if (
            session.base_commit is None
            and session.base_tree is None
            and session.base_snapshot is None
            and session.worktree is None
        ):
            # First seen live by cctui: its diff counts from here (a base taken in a
            # repository with no commit yet has its snapshot alone, and keeps it).
            session.base_commit = await asyncio.to_thread(git.head, session.config.cwd)
            self.keep(snapshot_base(session, self.save))
            self._check_limit()  # again: shutdown may have begun meanwhile
        if session.title is None and text is not None:
            session.title = launch.title_of(text)
        await process.start(
            launch.launch_spec(self.settings, session.config, resume=session.id), text
        )
        return session.info()

    async def interrupt(self, session_id: str, wait_s: float = 0.0) -> SessionInfo:
        """Stop the current turn (control request); the process stays alive.

        With ``wait_s``, returns once the turn has ended: a CLI that has not stopped after
        that many seconds has its process ended (``interrupted``, as seed 002's SIGINT
        would), so the turn is over when this returns. The TUI does not wait.
        """
        session = self._sessions.find_or_adopt(session_id)
        busy = session.turns.busy and session.process.alive
        await session.process.interrupt()
        if busy and wait_s > 0:
            await wait_for(session, self._fanout, self.decisions.inputs, wait_s)
            if session.turns.busy and session.process.alive:
                log.warning(
                    "session %s: turn still running %gs after interrupt", session.id, wait_s
                )
                await session.process.stop(S.INTERRUPTED)
        return session.info()

    async def end(self, session_id: str) -> SessionInfo:
        """End the process as a finished run ends (``completed``; ``interrupted`` if a turn
        was still running). The session stays listed and resumable."""
        session = self._sessions.find_or_adopt(session_id)
        await session.process.stop()
        return session.info()

    async def kill(self, session_id: str, *, force: bool = False) -> SessionInfo:
        """End the process (terminate, then kill); the session stays resumable.

        A killed session ends ``interrupted``. ``force`` sends SIGKILL without the grace
        period (seed 004's ``force``).
        """
        session = self._sessions.find_or_adopt(session_id)
        if session.status == S.QUEUED:  # not started: killing it takes it off the queue
            self.dispatch.cancel(session_id, "kill")
            return session.info()
        await session.process.stop(S.INTERRUPTED, force=force)
        return session.info()

    async def interactive_command(
        self, session_id: str, cwd: Path | None
    ) -> tuple[list[str], Path]:
        """``(argv, cwd)`` that open the session in Claude Code's own terminal UI (the TUI's
        take-over), with the session's launch prefix, or the defaults for ``cwd`` when cctui
        never drove it. Spawns nothing: the caller runs it in the foreground.

        Raises:
            ValidationFailed (no directory), CliNotFound, LaunchPrefixNotFound.
        """
        session = self._sessions.get(session_id)
        if session is not None:
            config = session.config
        elif cwd is not None:
            config = self.default_config(cwd)
        else:
            raise ValidationFailed(f"Session {session_id} has no known working directory.")
        launch.check_cwd(config.cwd)
        return launch.interactive_argv(self.settings, config, session_id), config.cwd

    async def fork(
        self, session_id: str, prompt: str | None = None, *, worktree: WorktreeRequest = None
    ) -> SessionInfo:
        """A new session with this one's history, under a new id; ``worktree`` (True, or a
        name) puts it in a new worktree branched from the source's HEAD."""
        source = self._sessions.find_or_adopt(session_id)
        launch.check_cwd(source.config.cwd)
        self._check_limit()
        new_id = str(uuid.uuid4())
        base = source.title or session_id[:8]
        config = source.config.model_copy(update={"title": f"{base} (fork)"})
        record = SessionRecord.fresh(
            new_id, config, title=config.title, status=S.STARTING, forked_from=source.id
        )
        session = Session(self, new_id, config, record=record)
        await self._start(
            session, prompt, worktree, None, resume=source.id, fork=True, session_id=new_id
        )
        return session.info()

    async def set_permission_mode(self, session_id: str, mode: str) -> steering.SettingChange:
        """Switch a session's permission mode: live through the CLI (also mid-turn), else
        for its next start; kept in the registry either way (``steering``).

        Raises:
            SessionNotFound, ValidationFailed, SettingRefused (the CLI's words).
        """
        return await steering.set_permission_mode(await self._settled(session_id), mode)

    async def cycle_permission_mode(self, session_id: str) -> steering.SettingChange:
        """The next mode in ``steering.MODE_CYCLE`` (the TUI's ``shift+tab``)."""
        session = await self._settled(session_id)
        mode = steering.next_mode(
            session.state.permission_mode, bypass_allowed=steering.bypass_allowed(session)
        )
        return await steering.set_permission_mode(session, mode)

    async def set_model(self, session_id: str, model: str | None) -> steering.SettingChange:
        """Switch a session's model (None: the default): live from its next request, else
        for its next start; kept in the registry either way.

        Raises:
            SessionNotFound, SettingRefused (the CLI's words).
        """
        return await steering.set_model(await self._settled(session_id), model)

    def models(self, session_id: str | None = None) -> tuple[ModelOption, ...]:
        """The models to offer: what the session's process (or the last one that said)
        offers, else a short list of the CLI's aliases."""
        session = self._sessions.get(session_id) if session_id else None
        offered = session.process.models if session is not None else ()
        if not offered:
            offered = next((s.process.models for s in self._sessions if s.process.models), ())
        if offered:
            self._models = offered
        return self._models or steering.FALLBACK_MODELS

    async def model_options(self, session_id: str | None = None) -> tuple[ModelOption, ...]:
        """``models`` for a front end (awaited: an attached window asks the owner)."""
        return self.models(session_id)

    async def rewind_files(
        self,
        session_id: str,
        *,
        prompt_id: str | None = None,
        prompt_index: int | None = None,
        dry_run: bool = False,
        by: str,
    ) -> RewindResult:
        """Put the session's files back as they were just before one of its prompts (by its
        user message id, or its index among the prompts cctui sent, from 0); ``dry_run``
        only says what would change. The conversation is not rewound.

        Claude Code does it (``core/rewind.py``), through the session's process: an ended
        session gets one for the rewind, ended again afterwards (unless a message sent
        meanwhile is running on it). A real run is audited.

        Raises:
            SessionNotFound, ValidationFailed (the prompt), RewindUnavailable (no
            checkpointing, no checkpoint for that prompt), SessionNotReady (a turn is
            running), SessionLimitReached (an ended session cannot get a process).
        """
        session = await self._settled(session_id)
        async with session.rewinding:
            aim = rewind.target(session, prompt_id, prompt_index)
            index = aim.prompt.index if aim.prompt else None
            started = False
            try:
                if not session.process.alive:
                    await self._resume(session, None)
                    started = True
                result = await rewind.run(session, aim, dry_run=dry_run, by=by)
            except CctuiError as exc:
                if not dry_run:
                    self.audit.rewind(
                        session_id=session.id,
                        prompt_id=aim.prompt_id,
                        prompt_index=index,
                        by=by,
                        outcome=exc.code,
                        message=exc.message,
                    )
                raise
            finally:
                # Ended again, unless a message sent meanwhile put it to work.
                if started and not session.turns.busy:
                    await session.process.stop()
        if not dry_run:
            self.audit.rewind(
                session_id=session.id,
                prompt_id=aim.prompt_id,
                prompt_index=index,
                by=by,
                outcome="rewound",
                files=result.files,
            )
        return result

    # ------------------------------------------------------------------ queries

    def prompts(self, session_id: str) -> builtins.list[PromptMark]:
        """The prompts cctui sent a session, oldest first (``index`` is ``promptIndex``)."""
        return list(self._sessions.find(session_id).state.prompts.marks)

    def get(self, session_id: str) -> SessionInfo:
        """Snapshot of a session cctui knows (live or registered), or a past one Claude Code
        keeps a transcript of (it joins as completed, like any listed session: seed 002).

        Raises:
            SessionNotFound: neither cctui nor a transcript knows the id.
        """
        session = self._sessions.find_or_adopt(session_id)
        return self.dispatch.annotate(session.info(), session)

    def list(self, *, active_only: bool = False) -> list[SessionInfo]:
        """cctui's sessions (live and registered), newest activity first."""
        self._sessions.load()
        infos = [
            self.dispatch.annotate(s.info(), s)
            for s in self._sessions
            if s.active or not active_only
        ]
        return sorted(infos, key=lambda i: i.last_activity, reverse=True)

    def events(
        self, session_id: str, since: int = 0, limit: int | None = None
    ) -> Page[SessionEvent]:
        """Buffered events after ``since``; ``missed`` tells a reader it fell behind.

        Raises:
            SessionNotFound: cctui does not run or keep the session. A past one only on disk
                has no events and is not taken on by reading them (``get`` takes it on).
        """
        return self._sessions.find(session_id).buffer.since(since, limit)

    async def diff(
        self,
        session_id: str,
        *,
        path: str | None = None,
        patch: bool = True,
        max_bytes: int | None = None,
    ) -> SessionDiff:
        """What the session changed against its own base (``diffs``); a session cctui has
        only a transcript of shows the files its edit tools wrote."""
        session = self._sessions.find_or_adopt(session_id)
        bound = {} if max_bytes is None else {"max_bytes": max_bytes}
        return await session_diff(
            session, self.settings.claude_config_dir, path=path, patch=patch, **bound
        )

    async def finish_preview(self, session_id: str) -> FinishPreview:
        """What finishing the session's worktree would meet (for a confirmation)."""
        session = self._sessions.find(session_id)
        return await worktrees.preview(session, self._sharing(session))

    async def finish_worktree(
        self, session_id: str, action: Action, *, force: bool = False
    ) -> FinishResult:
        """Merge, keep or discard the session's worktree (``worktrees.finish``).

        Raises:
            NoWorktree, WorktreeRefused, MergeConflict, SessionNotReady, GitFailed.
        """
        session = self._sessions.find(session_id)

        async def stop(kill: bool) -> None:
            await session.process.stop(S.INTERRUPTED if kill else None, force=kill)

        result = await worktrees.finish(
            session, action, force=force, stop=stop, shared_with=self._sharing(session)
        )
        self.save(session_id)
        self.audit.worktree(session_id, action, force=force, note=result.note)
        return result

    def tool_uses(self, session_id: str) -> builtins.list[ToolUseSummary]:
        """The session's tool calls (running / completed / denied / failed), oldest first."""
        return self._sessions.find_or_adopt(session_id).translator.tool_summaries()

    async def confirm(
        self,
        subject: str,
        title: str,
        message: str,
        choices: tuple[str, ...],
        *,
        cancel: str = "cancel",
        timeout_s: float | None = None,
    ) -> tuple[str, str]:
        """Ask the human to pick one of ``choices`` (``Decisions.confirm``).

        Returns ``(choice, decided_by)``; ``cancel`` when the permission timeout passes.
        """
        return await self.decisions.confirm(
            subject, title, message, choices, cancel=cancel, timeout_s=timeout_s
        )

    def pending(self, session_id: str | None = None) -> builtins.list[PendingInput]:
        """Open inputs, oldest first (``Decisions.pending``)."""
        return self.decisions.pending(session_id)

    def respond(
        self,
        input_id: str,
        decision: Decision,
        decided_by: str,
        *,
        session_id: str | None = None,
    ) -> Resolution:
        """Answer a pending input; first answer wins (``Decisions.respond``).

        Raises:
            SessionNotFound, InputNotFound, InputAlreadyAnswered, ValidationFailed.
        """
        return self.decisions.respond(input_id, decision, decided_by, session_id=session_id)

    def respond_as_client(
        self,
        input_id: str,
        decision: Decision,
        client: str,
        *,
        session_id: str | None = None,
    ) -> tuple[Resolution, ProjectGrant | None]:
        """An MCP client's answer; a project rule it asks for is gated
        (``Decisions.respond_as_client``)."""
        return self.decisions.respond_as_client(input_id, decision, client, session_id=session_id)

    async def rules_for(self, directory: Path) -> rules.RulesInForce:
        """The permission rules in force for ``directory``, each with its settings file."""
        return await asyncio.to_thread(
            rules.rules_in_force, directory, self.settings.claude_config_dir
        )

    async def remove_rule(
        self,
        directory: Path,
        rule: str,
        *,
        source: rules.RuleSource,
        behavior: rules.Behavior | None = None,
        by: str,
    ) -> rules.RuleChange:
        """Remove one rule from a settings file that applies to ``directory`` (a backup is
        kept beside it); audited.

        Raises:
            ValidationFailed (a managed rule), RuleNotFound, OSError.
        """
        change = await asyncio.to_thread(
            rules.remove_rule,
            directory,
            self.settings.claude_config_dir,
            rule,
            source=source,
            behavior=behavior,
        )
        self.audit.rule_change(
            action="remove", rule=rule, behavior=change.behavior, file=str(change.file), by=by
        )
        return change

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event; returns the unsubscribe function."""
        return self._fanout.subscribe(listener)

    async def wait(self, session_id: str, timeout_s: float) -> WaitOutcome:
        """Return when the session needs input, its turn ends, it ends, or the timeout passes."""
        session = self._sessions.find_or_adopt(session_id)
        return await wait_for(session, self._fanout, self.decisions.inputs, timeout_s)

    def record_tool_call(
        self,
        client: str,
        tool: str,
        arguments: dict[str, object],
        *,
        outcome: str,
        duration_ms: float,
        retry: bool = False,
    ) -> None:
        """An MCP tool call (one round of it) into the audit log (redacted) and the metrics.

        ``retry``: a round carrying elicitation answers, the continuation of a call already
        recorded; it is logged as such and not counted as another call.
        """
        self.metrics.tool_call(tool, outcome, duration_ms, retry=retry)
        self.audit.tool_call(
            client, tool, arguments, outcome=outcome, duration_ms=duration_ms, retry=retry
        )

    def metrics_snapshot(self) -> MetricsSnapshot:
        """This run's metrics, with session titles."""
        return self.metrics.snapshot({s.id: s.title for s in self._sessions})

    async def read_metrics(self) -> MetricsSnapshot:
        """``metrics_snapshot`` for a front end (awaited: an attached window asks the owner)."""
        return self.metrics_snapshot()

    async def policy_view(self, directory: Path, session_id: str | None) -> PolicyView:
        """The authority ladder in force for ``directory`` and the session (the policy page)."""
        timeout_s = self.settings.permission_timeout_ms / 1000
        return await read_view(self.decisions.ladder, directory, session_id, timeout_s)

    async def close_breaker(self, session_id: str) -> None:
        """The human closes the session's breaker: automated decisions count from zero."""
        self.decisions.ladder.human_answered(session_id)

    # ------------------------------------------------------------------ the queue and schedules

    async def dispatch_board(self) -> DispatchBoard:
        """The queue and the schedules now (the ``t`` page)."""

        def info(session_id: str) -> SessionInfo | None:
            try:
                return self.get(session_id)
            except CctuiError:
                return None

        return read_board(self.dispatch, self.settings.max_sessions, info)

    async def queue_move(self, session_id: str, position: int) -> int:
        """``Dispatcher.move``."""
        return self.dispatch.move(session_id, position)

    async def queue_start_now(self, session_id: str) -> None:
        """``Dispatcher.start_now``."""
        self.dispatch.start_now(session_id)

    async def queue_cancel(self, session_id: str, *, by: str) -> None:
        """``Dispatcher.cancel``."""
        self.dispatch.cancel(session_id, by)

    async def schedule_add(
        self,
        name: str,
        when: str,
        prompt: str,
        config: SessionConfig,
        *,
        worktree: bool | str | None = None,
        missed: MissedRule = "once",
        priority: int = 0,
    ) -> Schedule:
        """``Dispatcher.add_schedule``."""
        return self.dispatch.add_schedule(
            name, when, prompt, config, worktree=worktree, missed=missed, priority=priority
        )

    async def schedule_edit(self, ref: str, changes: ScheduleChanges) -> Schedule:
        """``Dispatcher.edit_schedule`` with the fields given."""
        return edit_schedule(self.dispatch, ref, changes)

    async def schedule_delete(self, ref: str) -> Schedule:
        """``Dispatcher.cancel_schedule``."""
        return self.dispatch.cancel_schedule(ref)

    async def schedule_run_now(self, ref: str) -> SessionInfo:
        """``Dispatcher.run_schedule_now``."""
        return await self.dispatch.run_schedule_now(ref)

    # ------------------------------------------------------------------ helpers

    async def _start(
        self,
        session: Session,
        prompt: str | None,
        worktree: WorktreeRequest,
        listed: Callable[[str], None] | None,
        **spec: Any,
    ) -> None:
        """Track a new session and start its first process; untrack it if that fails.

        The diff's base is recorded first: HEAD where it starts, or the worktree's plan.
        """
        made = None
        if worktree:
            made = await worktrees.plan(session.config, worktree, session.id)
            spec["worktree"] = made.name
            session.in_place.clear()
        else:
            session.base_commit = await asyncio.to_thread(git.head, session.config.cwd)
            self.keep(snapshot_base(session, self.save))
        launched = launch.launch_spec(self.settings, session.config, **spec)
        self._sessions.add(session)
        if listed is not None:
            listed(session.id)
        await self._spawn(session, launched, prompt)
        if made is not None:
            try:
                await worktrees.adopt(session, made)
            except BaseException:
                # Started, but not where it was asked to be: end it, and say so.
                self.keep(asyncio.create_task(session.process.stop(S.ERROR)))
                raise
            finally:
                session.in_place.set()
            self.save(session.id)

    async def _spawn(
        self,
        session: Session,
        spec: LaunchSpec,
        prompt: str | None,
        prompt_id: str | None = None,
    ) -> None:
        """Start the tracked ``session``'s process; untrack it if that fails (``prompt_id``:
        the prompt was queued already)."""
        if self._shutting_down:  # shutdown has ended the processes it saw; none may follow
            self._sessions.drop(session.id)
            raise SessionNotReady("cctui is shutting down.")
        try:
            await session.process.start(spec, prompt, prompt_id)
        except asyncio.CancelledError:
            # The caller gave up while the process was spawning (an MCP call cancelled):
            # the owner task goes on without it, so end that process instead of leaving it
            # running untracked; the session stays listed, interrupted.
            if session.process.busy:
                self.keep(asyncio.create_task(session.process.stop(S.INTERRUPTED)))
            else:
                self._sessions.drop(session.id)
            raise
        except BaseException:
            self._sessions.drop(session.id)
            raise

    async def _take_spare(
        self, spare: Claimed, prompt: str | None, listed: Callable[[str], None] | None
    ) -> None:
        """Track a prewarmed session and publish its start at once (a list shows it while
        its process may still be connecting), then send its first prompt. A process that
        failed to connect, or ended since, is replaced by a fresh one for the same session."""
        session = spare.session
        # Counted before anyone hears of it: its process may be up and idle already.
        prompt_id = None if prompt is None else session.process.queue(prompt)
        self._sessions.add(session)
        spare.release()
        if listed is not None:
            listed(session.id)
        try:
            session.base_commit = await asyncio.to_thread(git.head, session.config.cwd)
            self.keep(snapshot_base(session, self.save))
            await asyncio.wait({spare.started})  # its failure is the fresh start's to report
        except asyncio.CancelledError:
            # The caller gave up (an MCP call cancelled): as in _spawn, the process is
            # ended and the session stays listed, interrupted.
            self.keep(asyncio.create_task(session.process.stop(S.INTERRUPTED)))
            raise
        if session.process.alive:
            if prompt is not None:
                await session.process.send(prompt, prompt_id)
        else:
            await session.process.stop()  # an owner task still winding down ends first
            await self._spawn(session, spare.spec, prompt, prompt_id)
        self.save(session.id)

    def _sharing(self, session: Session) -> builtins.list[str]:
        """Other sessions working inside ``session``'s worktree."""
        wt = session.worktree
        if wt is None:
            return []
        return [
            s.id
            for s in self._sessions
            if s is not session and s.worktree is None and s.config.cwd.is_relative_to(wt.path)
        ]

    def _desk_of(self, session_id: str) -> Desk | None:
        session = self._sessions.get(session_id)
        return session.desk if session is not None else None

    def _check_limit(self) -> None:
        """A resume or a prewarm needs a free slot: only working sessions hold one."""
        if self._shutting_down:
            raise SessionNotReady("cctui is shutting down.")
        self.dispatch.check_limit()

    # ------------------------------------------------------------------ the dispatcher's

    def new_queued(self, session_id: str, config: SessionConfig) -> Session:
        """Track and save a session that waits to start (``Dispatcher.enqueue``)."""
        session = Session(self, session_id, config)
        session.state.status = S.QUEUED
        self._sessions.add(session)
        self.save(session_id)
        return session

    async def launch_queued(
        self, session: Session, prompt: str | None, worktree: WorktreeRequest
    ) -> None:
        """Start a queued session's first process; a failure leaves it listed, in error."""
        if self._shutting_down:
            raise SessionNotReady("cctui is shutting down.")
        launch.check_cwd(session.config.cwd)
        try:
            await self._start(session, prompt, worktree, None, session_id=session.id)
        except BaseException:
            if session.id not in self._sessions:  # _spawn forgot it: it stays listed
                self._sessions.add(session)
                self.save(session.id)
            raise

    async def continue_paused(self, session: Session, text: str | None) -> None:
        """Send a session paused at the usage limit its continue message."""
        if session.process.alive and text is not None:
            await session.process.send(text)
            return
        await self._resume(session, text)


class _DispatchHost:
    """The manager as the dispatcher sees it (``dispatch.DispatchHost``)."""

    def __init__(self, manager: SessionManager) -> None:
        self._m = manager
        self.settings = manager.settings

    def tracked(self) -> builtins.list[Session]:
        return list(self._m._sessions)

    def session(self, session_id: str) -> Session | None:
        return self._m._sessions.get(session_id)

    def new_queued(self, session_id: str, config: SessionConfig) -> Session:
        return self._m.new_queued(session_id, config)

    async def launch_queued(
        self, session: Session, prompt: str | None, worktree: WorktreeRequest
    ) -> None:
        await self._m.launch_queued(session, prompt, worktree)

    async def continue_paused(self, session: Session, text: str | None) -> None:
        await self._m.continue_paused(session, text)

    async def create_dispatched(
        self,
        prompt: str,
        config: SessionConfig,
        *,
        session_id: str,
        worktree: WorktreeRequest,
        dispatch: DispatchRequest,
    ) -> SessionInfo:
        return await self._m.create(
            prompt, config, session_id=session_id, worktree=worktree, dispatch=dispatch
        )

    async def results_of(self, session_id: str, kind: str) -> str:
        session = self._m._sessions.get(session_id)
        if session is None:
            return "(not known any more)"
        if kind == "diff":
            try:
                diff = await self._m.diff(session_id, patch=False)
            except CctuiError as exc:
                return f"(its changes could not be read: {exc.message})"
            if not diff.files:
                return "(no files changed)"
            lines = [f"{f.status} {f.path} +{f.added} -{f.removed}" for f in diff.files]
            return "\n".join(lines)
        return session.state.last_result or "(no final reply)"

    def keep(self, task: asyncio.Task[Any]) -> None:
        self._m.keep(task)
