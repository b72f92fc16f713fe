"""One session: its state, its event buffer, and the helpers that drive it.

``process.py`` owns the current claude process (its owner task), ``translate.py`` turns
that process's frames into events, and its desk (``host.Desk``, an ``InputDesk`` the
decisions hand it) holds the pending inputs.
Each is handed only what it needs: the shared ``SessionState`` (status, counters, buffer,
``publish``) and its siblings' verbs. This module composes them.

Status rules (see ``states.py``): ``starting`` while the process spawns; ``running``
while a turn is outstanding (every sent message yields its own result, so outstanding
turns are counted); ``waiting_for_input`` while a pending input is open; ``idle`` after
the last outstanding result; ``interrupted`` after an interrupt's result, or when the
process was killed; ``error`` when a turn fails (API error, text kept) or the process dies
on its own; ``completed`` when the process ended cleanly (including cctui's own shutdown
of an idle session).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from cctui.claude.frames import PERMISSION_MODES, PermissionDenied
from cctui.core.session import session_log
from cctui.core.session.buffer import EventBuffer
from cctui.core.session.events import SessionEvent
from cctui.core.session.host import Desk, SessionHost
from cctui.core.session.models import SessionConfig, SessionInfo, SessionRecord, WorktreeInfo
from cctui.core.session.process import Process, TurnTimer
from cctui.core.session.prompts import PromptLog, prompt_log_path
from cctui.core.session.session_state import SessionState
from cctui.core.session.states import SessionStatus
from cctui.core.session.translate import FrameTranslator
from cctui.core.session.turns import TurnLedger

S = SessionStatus


class Session:
    """State and process of one session id."""

    def __init__(
        self,
        host: SessionHost,
        session_id: str,
        config: SessionConfig,
        *,
        record: SessionRecord | None = None,
    ) -> None:
        self.id = session_id
        self._config = config
        now = datetime.now(UTC)
        self.created_at = record.created_at if record else now
        self.title = (record.title if record else None) or config.title
        self.forked_from = record.forked_from if record else None
        self.has_past = record is not None
        """Its transcript holds a conversation from before this object's event buffer (a
        session of an earlier run, one found on disk, a fork): see ``SessionInfo.has_past``."""
        self.worktree: WorktreeInfo | None = record.worktree if record else None
        """The session's own worktree (its directory is ``config.cwd``)."""
        self.base_commit: str | None = record.base_commit if record else None
        """The commit its diff is taken against (see ``SessionInfo.base_commit``)."""
        self.base_tree: str | None = record.base_tree if record else None
        """The work tree where it started, as a git tree: the diff runs from it, so files
        untracked or edited before the session are not its changes (``diffs``)."""
        self.base_snapshot: asyncio.Task[None] | None = None
        """Taking ``base_tree`` (``diffs.snapshot_base``), while it runs."""
        self.in_place = asyncio.Event()
        """Clear while the session moves into the worktree the CLI makes for it: its first
        turn can end before cctui has seen the worktree (``worktrees.adopt``)."""
        self.in_place.set()
        self._decisions = host.decisions
        self.state = SessionState(
            session_id,
            status=record.status if record else S.STARTING,
            turns=TurnLedger(record),
            buffer=EventBuffer(host.settings.event_buffer_size),
            permission_mode=config.permission_mode or "default",
            prompts=PromptLog(
                record.prompts if record else (),
                path=prompt_log_path(host.settings.state_dir, session_id),
            ),
            model=config.model,
            last_activity=record.last_activity if record else now,
            fan_out=lambda event: self._fan_out(host, event),
            save=lambda: host.save(session_id),
        )
        """What the helpers share and change; ``publish`` goes through it."""
        timer = TurnTimer(
            self.state,
            host.settings.max_execution_time_ms,
            interrupt=lambda: self.process.interrupt(),
            keep=host.keep,
        )
        self.translator = FrameTranslator(self.state, timer)
        """Frames of every process in, state changes and events out."""
        self.desk: Desk = host.decisions.desk(
            self.state,
            tools=self.translator.tools,
            alive=lambda: self.process.alive,
            on_denied=self.translator.denied.add,
            cwd=config.cwd,
        )
        """This session's pending inputs: asks in, answers out."""
        self.translator.on_refused = lambda denial, tool_input: self._refused(
            host, denial, tool_input
        )
        self.process = Process(
            self.state,
            desk=self.desk,
            handle=self.translator.handle,
            timer=timer,
            driver_factory=host.driver_factory,
            kill_grace_s=lambda: host.kill_grace_s,
            lifetime_ms=host.settings.max_session_duration_ms,
            keep=host.keep,
        )
        """The current claude process; a resume starts a new one here."""
        self.rewinding = asyncio.Lock()
        """Held while its files are rewound (one rewind at a time, on one process)."""

    # ------------------------------------------------------------------ state

    @property
    def config(self) -> SessionConfig:
        """How the session starts next: its settings, with the permission mode it has now
        and the model last chosen, so a resume starts where the session left off. (A
        ``skip_permissions`` session always starts in ``bypassPermissions``.)"""
        mode = self.state.permission_mode
        config = self._config
        if config.permission_mode is None and mode == "default":
            # No mode was asked for: the CLI's configured default applies (seed 002), so
            # the placeholder "default" must not become an explicit --permission-mode.
            return config
        if (
            mode != config.permission_mode
            and mode in PERMISSION_MODES
            and not config.skip_permissions
        ):
            self._config = config = config.model_copy(update={"permission_mode": mode})
        return config

    @config.setter
    def config(self, value: SessionConfig) -> None:
        # A resume override or a worktree moves cwd, project or launch prefix; the mode the
        # session has now still wins over the one in ``value`` (the getter above).
        self._config = value
        self.desk.move(value.cwd)  # its policy, grants and "the project" follow it

    def choose_model(self, model: str | None) -> None:
        """Use ``model`` from now on (None: the CLI's default), this process and the next."""
        self._config = self._config.model_copy(update={"model": model})
        self.state.model = model

    @property
    def status(self) -> SessionStatus:
        return self.state.status

    @property
    def error(self) -> str | None:
        return self.state.error

    @property
    def turns(self) -> TurnLedger:
        return self.state.turns

    @property
    def buffer(self) -> EventBuffer[SessionEvent]:
        return self.state.buffer

    @property
    def last_activity(self) -> datetime:
        return self.state.last_activity

    @property
    def permission_mode(self) -> str:
        return self.state.permission_mode

    @property
    def active(self) -> bool:
        """A process is alive, or being spawned."""
        process = self.process
        return process.alive or (process.busy and self.status == S.STARTING)

    def _refused(
        self, host: SessionHost, denial: PermissionDenied, tool_input: dict[str, Any]
    ) -> None:
        """The CLI refused a call without asking: recorded; auto mode's refusal also goes
        to the human (a deny rule's does not: it is the policy working)."""
        breaker = self.desk.refused(denial, tool_input)
        if denial.by_auto_mode:
            host.refused_by_cli(self.id, denial, tool_input, breaker)

    def _fan_out(self, host: SessionHost, event: SessionEvent) -> None:
        """A stored event to every subscriber, and to the session's log file if it has one
        (seed 004's ``log_file``; the config is read now: a resume may have changed it).
        Every delta passes here, so it reads the stored config, not the mode-syncing
        ``config`` property (the log file does not depend on the mode)."""
        log_file = self._config.log_file
        if log_file is not None:
            session_log.append(log_file, event)
        host.publish(event)

    def publish(self, event: SessionEvent, merge_key: str | None = None) -> SessionEvent:
        """Store ``event`` in the buffer and fan it out."""
        return self.state.publish(event, merge_key)

    def set_status(
        self,
        new: SessionStatus,
        error: str | None = None,
        *,
        force: bool = False,
        ended: bool = False,
    ) -> None:
        """Move to ``new`` (no event when nothing changes, unless ``force``); ``ended``:
        the process ended with this change."""
        self.state.set_status(new, error, force=force, ended=ended)

    # ------------------------------------------------------------------ snapshots

    def info(self) -> SessionInfo:
        """A snapshot for front ends."""
        state = self.state
        return SessionInfo(
            session_id=self.id,
            status=state.status,
            config=self.config,
            created_at=self.created_at,
            last_activity=state.last_activity,
            title=self.title,
            total_cost_usd=state.turns.total_cost,
            num_turns=state.turns.num_turns,
            permission_mode=state.permission_mode,
            model=state.model,
            last_result=state.last_result,
            error=state.error,
            pid=self.process.pid,
            last_seq=state.buffer.last_seq,
            pending_input_ids=tuple(i.id for i in self._decisions.pending(self.id)),
            is_active=self.active,
            exit_code=self.process.exit_code,
            tokens_used=state.turns.tokens_used,
            worktree=self.worktree,
            worktree_gone=self.worktree_gone,
            base_commit=self.base_commit,
            has_past=self.has_past,
        )

    @property
    def worktree_gone(self) -> bool:
        """Its unfinished worktree's directory is not there (removed by hand)."""
        wt = self.worktree
        return wt is not None and wt.finished is None and not wt.path.is_dir()

    def record(self) -> SessionRecord:
        """What the registry keeps."""
        state = self.state
        return SessionRecord(
            session_id=self.id,
            config=self.config,
            created_at=self.created_at,
            last_activity=state.last_activity,
            title=self.title,
            status=state.status,
            total_cost_usd=state.turns.total_cost,
            num_turns=state.turns.num_turns,
            tokens_used=state.turns.tokens_used,
            forked_from=self.forked_from,
            worktree=self.worktree,
            base_commit=self.base_commit,
            base_tree=self.base_tree,
        )
