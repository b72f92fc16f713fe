"""What a remote cctui is seen as: plain dataclasses over the core's own models.

The TUI and the CLI read these; none of them is an MCP type (the TUI never imports the MCP
stack). Sessions, events and pending inputs are the core's models rebuilt from the wire, so
the pending input's modal, the inbox and the list's rows take a remote one as they take a local one.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from cctui.core import PendingInput, SessionEvent
from cctui.core.catalog import CatalogEntry
from cctui.errors import CctuiError

HostState = Literal["connecting", "online", "offline", "missing", "incompatible"]
"""``connecting``: the first connection is being made; ``online``: connected; ``offline``: the
link failed or dropped, and is retried with backoff; ``missing``: the command ran but no cctui
answers there (not installed, not on the PATH); ``incompatible``: a cctui answers that lacks
the tools this one needs. The last two are retried too, but slowly: a fix takes a person."""


def client_name() -> str:
    """How this cctui introduces itself to a host: its answers there are ``decided_by``
    ``mcp:cctui@THIS-MACHINE``."""
    return f"cctui@{socket.gethostname() or 'localhost'}"


@dataclass(frozen=True, kw_only=True)
class HostStatus:
    """One host as ``cctui hosts`` and the TUI's status bar show it."""

    name: str
    state: HostState
    version: str | None = None
    """The host's cctui version (its MCP server's ``serverInfo``)."""
    problem: str | None = None
    """What is wrong, in words (any state but ``online``)."""
    fix: str | None = None
    """What to do about it."""
    last_seen: datetime | None = None
    """When the link last answered (UTC); None: never."""
    sessions: int = 0
    """Sessions listed there (its cctui's own and Claude Code's on its disk)."""
    live: int = 0
    """Of those, with a ``claude`` process open."""
    pending: int = 0
    """Pending inputs waiting there for an answer."""


@dataclass(frozen=True, kw_only=True)
class StatusPage:
    """One ``claude_get_status`` page: the events after a seq and what waits for an answer."""

    session_id: str
    state: str
    """The session's ``SessionStatus`` value."""
    events: list[SessionEvent] = field(default_factory=list)
    next_seq: int = 0
    missed: bool = False
    """Events after the asked seq fell out of the host's buffer (read again from 0)."""
    epoch: str = ""
    """The host's numbering of this session's events; a new one means its cctui restarted."""
    has_more: bool = False
    pending: list[PendingInput] = field(default_factory=list)
    last_seq: int = 0


@dataclass(frozen=True, kw_only=True)
class Followed:
    """One session that changed, as a follow answer says: its page and its row."""

    session_id: str
    page: StatusPage | None
    """None: the host no longer knows the session."""
    entry: CatalogEntry | None
    """Its list row now (title, cost, activity), when the host sent it."""


@dataclass(frozen=True, kw_only=True)
class HostClaude:
    """What a host's ``claude_health`` said about the ``claude`` its cctui drives, and when:
    asked when something needs it (a take-over there), not on connecting."""

    path: str | None
    """The binary, for ``claude --resume`` there; None when its cctui found none."""
    ok: bool
    """It runs and is logged in there."""
    problem: str | None = None
    """Why not, in the host's words."""
    asked_at: datetime
    """When the host answered (UTC)."""

    def age_s(self, now: datetime) -> float:
        """Seconds since the host answered."""
        return (now - self.asked_at).total_seconds()


@dataclass(frozen=True, kw_only=True)
class Answered:
    """What became of an answer sent to a host (``claude_respond``)."""

    input_id: str
    decided_by: str
    """Who decided it there: ``mcp:cctui-<this machine>`` when this answer was the one applied."""
    state: str
    """The session's state after it."""


class RemoteError(CctuiError):
    """A host's cctui refused a call; ``code`` is its own error code."""

    code = "remote_error"

    def __init__(
        self, host: str, message: str, *, code: str | None = None, suggestion: str | None = None
    ) -> None:
        super().__init__(f"{host}: {message}", suggestion=suggestion)
        self.host = host
        if code is not None:
            self.code = code


class HostUnreachable(RemoteError):
    """The host's link is down (or went down during the call)."""

    code = "host_unreachable"
    retryable = True


class NotDelivered(RemoteError):
    """An answer that did not reach the host: the link was down or dropped before the host
    confirmed it. It was not applied there unless a later look finds it answered."""

    code = "not_delivered"
    retryable = True


class ConnectFailed(CctuiError):
    """The host's command did not bring up a cctui: why, and what to do about it."""

    code = "host_connect_failed"

    def __init__(self, state: HostState, message: str, *, suggestion: str | None = None) -> None:
        super().__init__(message, suggestion=suggestion)
        self.state: HostState = state
        """``missing``, ``incompatible`` or ``offline``."""
