"""SessionManager: the one object both front ends talk to.

CONTRACT (the TUI and MCP server are written against these signatures; bodies are being
implemented in this room). All methods run on the app's event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from cctui.claude.driver import DriverFactory
from cctui.config import Settings
from cctui.core.buffer import Page
from cctui.core.events import SessionEvent
from cctui.core.models import SessionConfig, SessionInfo
from cctui.core.pending import Decision, PendingInput, Resolution

Listener = Callable[[SessionEvent], None]
"""Called synchronously on the loop for every event of every session. Must not block."""

InputRouter = Callable[[PendingInput], str | None]
"""Consulted when an input opens, before it is published: return a client label to ask
that MCP client first (route ``client``), or None to leave it to the human (route ``human``)."""


class WaitOutcome(BaseModel):
    """Why ``wait`` returned."""

    reason: Literal["input_needed", "turn_ended", "timeout", "session_ended"]
    session: SessionInfo
    pending: list[PendingInput]


class SessionManager:
    """Creates, drives and tracks sessions; owns pending inputs, the registry and the audit log."""

    def __init__(self, settings: Settings, driver_factory: DriverFactory | None = None) -> None:
        """``driver_factory`` defaults to the real claude-agent-sdk driver."""
        raise NotImplementedError

    async def start(self) -> None:
        """Load the registry (sessions from earlier runs become listed and resumable)."""
        raise NotImplementedError

    async def shutdown(self) -> None:
        """End every process (no child outlives cctui), withdraw pending inputs, save."""
        raise NotImplementedError

    async def create(
        self, prompt: str | None, config: SessionConfig, *, session_id: str | None = None
    ) -> SessionInfo:
        """Start a process; returns at once with the (pre-assigned) session id.

        Raises:
            SessionLimitReached, CliNotFound, ValidationFailed (e.g. cwd missing).
        """
        raise NotImplementedError

    async def send(self, session_id: str, text: str) -> SessionInfo:
        """Send a message; an ended or unknown-but-on-disk session is resumed first.

        Raises:
            SessionNotFound, SessionLimitReached.
        """
        raise NotImplementedError

    async def interrupt(self, session_id: str) -> SessionInfo:
        """Stop the current turn (control request); the process stays alive."""
        raise NotImplementedError

    async def kill(self, session_id: str) -> SessionInfo:
        """End the process (terminate, then kill); the session stays resumable."""
        raise NotImplementedError

    async def fork(self, session_id: str, prompt: str | None = None) -> SessionInfo:
        """A new session with this one's history, under a new id."""
        raise NotImplementedError

    def get(self, session_id: str) -> SessionInfo:
        """Snapshot of a session cctui knows (live or registered). Raises SessionNotFound."""
        raise NotImplementedError

    def list(self, *, active_only: bool = False) -> list[SessionInfo]:
        """cctui's sessions (live and registered), newest activity first."""
        raise NotImplementedError

    def events(self, session_id: str, since: int = 0, limit: int | None = None) -> Page[SessionEvent]:
        """Buffered events after ``since``; ``missed`` tells a reader it fell behind."""
        raise NotImplementedError

    def pending(self, session_id: str | None = None) -> list[PendingInput]:
        """Open inputs, oldest first."""
        raise NotImplementedError

    def respond(self, input_id: str, decision: Decision, decided_by: str) -> Resolution:
        """Answer a pending input; first answer wins. Audited.

        Raises:
            InputNotFound, InputAlreadyAnswered.
        """
        raise NotImplementedError

    def route_to_human(self, input_id: str) -> PendingInput:
        """A client could not decide (declined/cancelled elicitation): hand it to the human."""
        raise NotImplementedError

    def set_input_router(self, router: InputRouter | None) -> None:
        """Install the MCP server's router (see ``InputRouter``)."""
        raise NotImplementedError

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event; returns the unsubscribe function."""
        raise NotImplementedError

    async def wait(self, session_id: str, timeout_s: float) -> WaitOutcome:
        """Return when the session needs input, its turn ends, it ends, or the timeout passes."""
        raise NotImplementedError

    def audit_tool_call(self, client: str, tool: str, arguments: dict[str, object]) -> None:
        """Record an MCP tool call in the audit log (secrets redacted)."""
        raise NotImplementedError
