"""How ``claude_send_message`` delivers: send, or only resume, and remember it per client.

A 2026-07-28 retry round (carrying an elicitation answer) must not send again; it reports
what the first round did (seed 004's ``sent_at``, ``resumed_at``, ``previous_state``), so
each (session, client)'s last delivery is kept, a bounded number of them.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from pathlib import Path

from cctui.core import Router, SessionManager
from cctui.core.launch import resolve_dir
from cctui.errors import CctuiError, ValidationFailed
from cctui.mcp_server.schemas.sessions import PreviousState, SentRecord
from cctui.timestamps import iso_z

SENDS_KEPT = 1000
"""How many (session, client) deliveries are kept for their retry rounds."""


class Deliveries:
    """Messages (and bare resumes) delivered to sessions, the last one per client."""

    def __init__(self, manager: SessionManager, router: Router) -> None:
        self.manager = manager
        self.router = router
        self._sent: dict[tuple[str, str], SentRecord] = {}

    def last(self, session_id: str, label: str) -> SentRecord | None:
        """What this client's last delivery to the session did."""
        return self._sent.get((session_id, label))

    async def deliver(
        self,
        session_id: str,
        message: str | None,
        working_directory: str | None,
        label: str,
        elicits: bool,
    ) -> None:
        """Send ``message`` (resuming an ended session), or with None only resume.

        Raises:
            ValidationFailed: ``working_directory`` is not the session's own.
            SessionNotFound, SessionLimitReached.
        """
        before = None
        with contextlib.suppress(CctuiError):  # not seen yet: resumed from its file
            before = self.manager.get(session_id)
        if working_directory is not None:
            if before is None:
                raise ValidationFailed(
                    "workingDirectory can only be checked for a session cctui knows.",
                    suggestion="Omit it: a session resumes in the directory its history is in.",
                )
            _check_cwd(working_directory, before.config.cwd)
        previous = None
        if before is not None:
            previous = PreviousState(
                created_at=iso_z(before.created_at),
                last_active=iso_z(before.last_activity),
            )
        self.router.note_owner(session_id, label, elicits)
        if message is None:
            await self.manager.resume(session_id)
        else:
            await self.manager.send(session_id, message)
        key = (session_id, label)
        self._sent.pop(key, None)  # the newest goes last: the oldest are dropped first
        self._sent[key] = SentRecord(
            at=datetime.now(UTC),
            resumed=before is None or not before.is_active,
            previous=previous,
        )
        while len(self._sent) > SENDS_KEPT:
            del self._sent[next(iter(self._sent))]


def _check_cwd(given: str, own: Path) -> None:
    """A resumed session keeps its directory: a different one is refused, not ignored."""
    if resolve_dir(given) != own:  # own is stored resolved the same way
        raise ValidationFailed(
            f"workingDirectory {given!r} is not this session's directory ({own}).",
            suggestion="Omit it, or start a new session there with claude_create_session.",
        )
