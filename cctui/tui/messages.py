"""Textual messages the TUI passes around. Only ``bridge.py`` creates the core-event ones."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from cctui.core import PendingInput
from cctui.remote.hosts import HostChange


@dataclass
class SessionsActivity(Message):
    """Sessions produced events since the last batch; readers pull them by seq.

    Carries only ids: widgets read ``manager.events(session_id, since)`` themselves, so a
    coalesced or late batch never loses output.
    """

    session_ids: frozenset[str]
    list_changed: bool
    """A status, title, cost or new session changed what the session list shows."""

    def can_replace(self, message: Message) -> bool:
        # Only a batch that already covers ours may stand in for it.
        return (
            isinstance(message, SessionsActivity)
            and message.session_ids >= self.session_ids
            and (message.list_changed or not self.list_changed)
        )


class FirstFrame(Message):
    """The main screen has drawn its first frame: the list is on screen. What a person need
    not wait for before seeing it (the MCP server, the garbage collector) starts now."""


@dataclass
class InputRequested(Message):
    """A pending input opened (or was handed to the human)."""

    pending: PendingInput


@dataclass
class InputResolved(Message):
    """A pending input was answered by someone (``decided_by``), timed out or withdrawn."""

    input_id: str
    session_id: str
    decision: str
    decided_by: str
    message: str


@dataclass
class OpenSession(Message):
    """Show this session in the pane (after ``n`` or from the inbox)."""

    session_id: str
    focus_input: bool = False


@dataclass
class HostsChanged(Message):
    """A host's rows, state or pending inputs changed (``Host`` listeners post it)."""

    change: HostChange
