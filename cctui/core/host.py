"""What a session needs from the manager that hosts it (kept narrow on purpose)."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from cctui.claude.driver import DriverFactory
from cctui.claude.frames import PermissionDenied
from cctui.config import Settings
from cctui.core.audit import AuditLog
from cctui.core.decisions.service import Decisions
from cctui.core.events import SessionEvent


class SessionHost(Protocol):
    """The manager, as a session sees it."""

    settings: Settings
    decisions: Decisions
    audit: AuditLog
    driver_factory: DriverFactory
    kill_grace_s: float

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
