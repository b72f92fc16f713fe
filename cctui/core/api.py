"""What a front end may ask of the core: the one interface the TUI reaches sessions through.

Two implementations: ``SessionManager`` (in the same process: the window that owns the
sessions) and ``cctui.remote.attached.AttachedCore`` (a window attached to the process that
owns them, over that owner's MCP tools). The TUI depends on this Protocol only, so a feature
is written once, against it; what an attached window cannot do yet raises
``NotAvailableAttached`` (a ``CctuiError`` saying so), never does nothing.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from cctui.claude.frames import ModelOption
from cctui.config import Settings
from cctui.core import rules, steering
from cctui.core.diffs import SessionDiff
from cctui.core.dispatch import Dispatcher, DispatchRequest, MissedRule, Schedule
from cctui.core.dispatch.board import DispatchBoard, ScheduleChanges
from cctui.core.metrics import MetricsSnapshot
from cctui.core.policy.view import PolicyView
from cctui.core.rewind import RewindResult
from cctui.core.session.buffer import Page
from cctui.core.session.events import SessionEvent
from cctui.core.session.inputs import Decision, PendingInput, Resolution
from cctui.core.session.models import SessionConfig, SessionInfo
from cctui.core.watch import Listener
from cctui.core.worktrees import Action, FinishPreview, FinishResult, WorktreeRequest


class Humans(Protocol):
    """Who may be asked: a front end with a person at it attaches one."""

    def attach_human(self) -> Callable[[], None]:
        """Count a person at this front end; returns the function that stops counting."""
        ...


class SessionVerbs(Protocol):
    """What a key does to one session besides talking to it: fork, mode, model, rewind,
    diff, finishing its worktree. Part of ``CoreApi``; a host's sessions have them too,
    run on that host's core (``cctui.remote.verbs``)."""

    async def fork(
        self, session_id: str, prompt: str | None = None, *, worktree: WorktreeRequest = None
    ) -> SessionInfo: ...

    async def cycle_permission_mode(self, session_id: str) -> steering.SettingChange: ...
    async def set_model(self, session_id: str, model: str | None) -> steering.SettingChange: ...
    async def model_options(self, session_id: str | None = None) -> tuple[ModelOption, ...]:
        """The models to offer for the session (``SessionManager.models``)."""
        ...

    async def rewind_files(
        self,
        session_id: str,
        *,
        prompt_id: str | None = None,
        prompt_index: int | None = None,
        dry_run: bool = False,
        by: str,
    ) -> RewindResult: ...
    async def diff(
        self,
        session_id: str,
        *,
        path: str | None = None,
        patch: bool = True,
        max_bytes: int | None = None,
    ) -> SessionDiff: ...
    async def finish_preview(self, session_id: str) -> FinishPreview: ...
    async def finish_worktree(
        self, session_id: str, action: Action, *, force: bool = False
    ) -> FinishResult: ...


class CoreApi(SessionVerbs, Protocol):
    """Every call the TUI makes on the core (``grep manager. cctui/tui``)."""

    @property
    def decisions(self) -> Humans:
        """Pending inputs' routing: a window attaches its human here."""
        ...

    @property
    def settings(self) -> Settings:
        """The settings the core runs with."""
        ...

    @property
    def dispatch(self) -> Dispatcher:
        """The queue and the schedules."""
        ...

    @property
    def problems(self) -> builtins.list[str]:
        """Things the person should know (a registry set aside, lost audit lines)."""
        ...

    async def shutdown(self) -> None:
        """End what this front end holds (in process: every session)."""

    # -- sessions --------------------------------------------------------------------------

    def get(self, session_id: str) -> SessionInfo: ...
    def list(self, *, active_only: bool = False) -> builtins.list[SessionInfo]: ...
    def events(
        self, session_id: str, since: int = 0, limit: int | None = None
    ) -> Page[SessionEvent]: ...
    def subscribe(self, listener: Listener) -> Callable[[], None]: ...
    def default_config(self, cwd: Path | str | None = None, **fields: Any) -> SessionConfig: ...
    async def create(
        self,
        prompt: str | None,
        config: SessionConfig,
        *,
        session_id: str | None = None,
        worktree: WorktreeRequest = None,
        listed: Callable[[str], None] | None = None,
        dispatch: DispatchRequest | None = None,
    ) -> SessionInfo: ...
    def prewarm(self, config: SessionConfig) -> None: ...
    async def discard_spare(self) -> None: ...
    @property
    def spare_ids(self) -> frozenset[str]:
        """Prewarmed processes' session ids: lists leave them out until they are taken."""
        ...

    async def send(self, session_id: str, text: str) -> SessionInfo: ...
    async def interrupt(self, session_id: str, wait_s: float = 0.0) -> SessionInfo: ...
    async def end(self, session_id: str) -> SessionInfo: ...
    async def kill(self, session_id: str, *, force: bool = False) -> SessionInfo: ...
    async def interactive_command(
        self, session_id: str, cwd: Path | None
    ) -> tuple[builtins.list[str], Path]: ...

    # -- decisions, rules, metrics --------------------------------------------------------

    def pending(self, session_id: str | None = None) -> builtins.list[PendingInput]: ...
    def respond(
        self,
        input_id: str,
        decision: Decision,
        decided_by: str,
        *,
        session_id: str | None = None,
    ) -> Resolution: ...
    async def rules_for(self, directory: Path) -> rules.RulesInForce: ...
    async def remove_rule(
        self,
        directory: Path,
        rule: str,
        *,
        source: rules.RuleSource,
        behavior: rules.Behavior | None = None,
        by: str,
    ) -> rules.RuleChange: ...
    async def read_metrics(self) -> MetricsSnapshot:
        """This run's metrics (``SessionManager.metrics_snapshot``)."""
        ...

    async def policy_view(self, directory: Path, session_id: str | None) -> PolicyView:
        """The authority ladder in force for a directory and a session (the policy page)."""
        ...

    async def close_breaker(self, session_id: str) -> None:
        """The human closes the session's breaker (automated decisions count from zero)."""
        ...

    # -- the queue and schedules (the t page) ---------------------------------------------

    async def dispatch_board(self) -> DispatchBoard:
        """The queue and the schedules now."""
        ...

    async def queue_move(self, session_id: str, position: int) -> int: ...
    async def queue_start_now(self, session_id: str) -> None: ...
    async def queue_cancel(self, session_id: str, *, by: str) -> None: ...
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
    ) -> Schedule: ...
    async def schedule_edit(self, ref: str, changes: ScheduleChanges) -> Schedule: ...
    async def schedule_delete(self, ref: str) -> Schedule: ...
    async def schedule_run_now(self, ref: str) -> SessionInfo: ...
