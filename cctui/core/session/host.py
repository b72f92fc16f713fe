"""What a session needs from the manager that hosts it (kept narrow on purpose), and from
the decisions: its desk.

The session machinery sits below ``decisions/``: a session is handed its desk
(``SessionDecisions.desk``, an ``InputDesk``) and sees it only as :class:`Desk`, so nothing
here imports the decisions, which publish into sessions (import-linter keeps it so).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from cctui.claude.driver import DriverFactory
from cctui.claude.frames import PermissionAnswer, PermissionAsk, PermissionDenied, ToolAbout
from cctui.config import Settings
from cctui.core.audit import AuditLog
from cctui.core.policy.verdict import Verdict
from cctui.core.session.events import SessionEvent, ToolUseEvent
from cctui.core.session.inputs import Decision, PendingInput, Resolution
from cctui.core.session.session_state import SessionState


class Desk(Protocol):
    """One session's desk, as the session, its process and the decisions use it: the
    driver's permission asks in, answers out (``decisions/desk.py``'s ``InputDesk``)."""

    allowed_once: dict[str, str]
    """Exact calls the human allowed once after auto mode refused them, and who."""

    @property
    def cwd(self) -> Path:
        """The session's directory (the project its policy and grants are read for)."""
        ...

    async def ask(self, ask: PermissionAsk) -> PermissionAnswer:
        """The driver's permission callback: open a pending input and await its answer."""
        ...

    async def guard(self, call: ToolAbout) -> str | None:
        """The ``PreToolUse`` check before every tool call: what the model is told of a
        refusal, or None."""
        ...

    def resolve(
        self, input_id: str, decision: Decision, decided_by: str, why: Verdict | None = None
    ) -> Resolution:
        """Answer an input of this session (first answer wins), publish and audit it."""
        ...

    def refused(self, denial: PermissionDenied, tool_input: dict[str, Any]) -> str | None:
        """The CLI refused a call without asking; returns why the breaker is open, if it is."""
        ...

    def announce(self, item: PendingInput) -> None:
        """Publish an input in this session: new, or routed anew."""

    def cli_limits(self) -> tuple[tuple[str, ...], bool]:
        """What this session's CLI is launched with: the hard denies in force as deny rules,
        and whether it blocks writes outside its working directories."""
        ...

    def move(self, cwd: Path) -> None:
        """The session moved (into its worktree, or a resume elsewhere): its policy, grants
        and "the project" are read for ``cwd`` from now on."""

    def withdraw(self, decided_by: str) -> None:
        """Close every open input of the session without an answer (interrupt, exit)."""

    def forget_allowances(self) -> None:
        """The process ended: what "allow for the session" allowed is gone with it."""


class SessionDecisions(Protocol):
    """The decisions (``decisions/service.py``'s ``Decisions``), as a session sees them."""

    def desk(
        self,
        state: SessionState,
        *,
        tools: Mapping[str, ToolUseEvent],
        alive: Callable[[], bool],
        on_denied: Callable[[str], None],
        cwd: Path,
    ) -> Desk:
        """A new desk for the session whose shared state is ``state``."""
        ...

    def pending(self, session_id: str | None = None) -> list[PendingInput]:
        """Open inputs, oldest first."""
        ...


class SessionHost(Protocol):
    """The manager, as a session sees it."""

    settings: Settings
    audit: AuditLog
    driver_factory: DriverFactory
    kill_grace_s: float

    @property
    def decisions(self) -> SessionDecisions:
        """Who decides what the session's process asks."""
        ...

    def publish(self, event: SessionEvent) -> None:
        """Fan an event out to subscribers."""

    def save(self, session_id: str) -> None:
        """Persist the session's registry record (soon)."""

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a reference to a background task until it finishes."""

    def refused_by_cli(
        self,
        session_id: str,
        denial: PermissionDenied,
        tool_input: dict[str, Any],
        breaker: str | None,
    ) -> None:
        """The CLI refused a call without asking (auto mode): put it to the human."""
