"""Teams: sessions sharing a ``team`` label, and a message sent to all of them at once."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pydantic import BaseModel

from cctui.core.models import SessionInfo
from cctui.errors import CctuiError, TeamNotFound
from cctui.redact import redact_text

if TYPE_CHECKING:
    from cctui.core.manager import SessionManager


class Delivery(BaseModel):
    """What happened to one team member's copy of a broadcast."""

    session_id: str
    teammate: str | None
    delivered: bool
    """The message was written to a live process (one was resumed if needed)."""
    status: str | None = None
    """The session's status right after."""
    error_code: str | None = None
    error: str | None = None
    """Why it was not delivered (e.g. the session limit stopped a resume)."""


def members(manager: SessionManager, team: str) -> list[SessionInfo]:
    """cctui's sessions of ``team`` (case-insensitive, like the list filter), by teammate
    name then age.

    Raises:
        TeamNotFound: no session has this team.
    """
    wanted = team.casefold()
    infos = [i for i in manager.list() if (i.config.team or "").casefold() == wanted]
    if not infos:
        known = sorted({i.config.team for i in manager.list() if i.config.team})
        raise TeamNotFound(
            f"No session belongs to team {team!r}"
            + (f"; teams: {', '.join(known)}." if known else "; no session has a team yet."),
            suggestion="Create sessions with team set (claude_create_session team=...).",
        )
    return sorted(infos, key=lambda i: (i.config.teammate or "", i.created_at))


async def broadcast(manager: SessionManager, team: str, message: str) -> list[Delivery]:
    """Send ``message`` to every session of ``team`` concurrently; ended ones are resumed.

    One member failing (limit reached, directory gone) does not stop the others.

    Raises:
        TeamNotFound: no session has this team.
    """
    targets = members(manager, team)

    async def deliver(info: SessionInfo) -> Delivery:
        try:
            after = await manager.send(info.session_id, message)
        except CctuiError as exc:
            return Delivery(
                session_id=info.session_id,
                teammate=info.config.teammate,
                delivered=False,
                status=_status(manager, info.session_id),
                error_code=exc.code,
                error=redact_text(exc.message),  # a result, not an error: not redacted later
            )
        return Delivery(
            session_id=info.session_id,
            teammate=info.config.teammate,
            delivered=True,
            status=after.status,
        )

    return list(await asyncio.gather(*(deliver(i) for i in targets)))


def _status(manager: SessionManager, session_id: str) -> str | None:
    try:
        return manager.get(session_id).status
    except CctuiError:
        return None
