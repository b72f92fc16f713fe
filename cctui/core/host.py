"""What a session needs from the manager that hosts it (kept narrow on purpose)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from cctui.claude.driver import DriverFactory
from cctui.config import Settings
from cctui.core.audit import AuditLog
from cctui.core.events import SessionEvent
from cctui.core.pending import PendingInput, PendingInputs

if TYPE_CHECKING:
    from cctui.core.session import Session


class SessionHost(Protocol):
    """The manager, as a session sees it."""

    settings: Settings
    pending_inputs: PendingInputs
    audit: AuditLog
    driver_factory: DriverFactory
    kill_grace_s: float

    def publish(self, event: SessionEvent) -> None:
        """Fan an event out to subscribers."""

    def save(self, session: Session) -> None:
        """Persist the session's registry record."""

    def route(self, item: PendingInput) -> PendingInput:
        """Apply the input router to a new pending input."""
        ...

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a reference to a background task until it finishes."""
