"""Teams: sessions sharing a ``team`` label; a message to all of them at once, or to one by
its teammate name; asking one to shut down; and the notice that one went idle (seed 004's
``sendToTeammate``, ``broadcast``, ``requestShutdown`` and ``notifyIdle``)."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from cctui.core.launch import default_teammate
from cctui.core.session.models import SessionInfo
from cctui.errors import CctuiError, TeammateNotFound, TeamNotFound
from cctui.redact import redact_text
from cctui.timestamps import iso_z

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
    return list(await asyncio.gather(*(_deliver(manager, i, message) for i in targets)))


def teammate(manager: SessionManager, team: str, name: str) -> SessionInfo:
    """The session of ``team`` whose teammate name is ``name`` (both case-insensitive).

    Raises:
        TeamNotFound, TeammateNotFound.
    """
    infos = members(manager, team)
    wanted = name.casefold()
    found = [i for i in infos if (i.config.teammate or "").casefold() == wanted]
    if not found:
        names = ", ".join(sorted({i.config.teammate for i in infos if i.config.teammate}))
        raise TeammateNotFound(
            f"Team {team!r} has no teammate {name!r}; its teammates: {names}.",
            suggestion="Use one of the listed names (claude_list_sessions team=... shows them).",
        )
    return found[-1]  # a name given twice: the newest session holding it


async def send_to_teammate(manager: SessionManager, team: str, name: str, message: str) -> Delivery:
    """Send ``message`` to the teammate called ``name`` (resumed first if it had ended).

    Raises:
        TeamNotFound, TeammateNotFound.
    """
    return await _deliver(manager, teammate(manager, team, name), message)


SHUTDOWN_ASK = (
    "{who} asks you to shut down{because}. Finish or set down what you are doing, then end "
    "your reply with one line: `SHUTDOWN: approve` to stop now, or `SHUTDOWN: reject <why>` "
    "to keep working."
)
"""What a teammate is asked (seed 004's ``requestShutdown``): it answers in its own reply,
so it can save its work first, and cctui reads the answer from the turn's result."""

_ANSWER = re.compile(r"SHUTDOWN:\s*(approve|reject)\b[ \t:,-]*(.*)", re.IGNORECASE)


class ShutdownAnswer(BaseModel):
    """How a shutdown request ended."""

    session_id: str
    teammate: str | None
    outcome: str
    """``approved`` (its process was ended), ``rejected``, ``already_ended`` (nothing was
    sent), ``no_answer`` (the turn ended without a ``SHUTDOWN:`` line, or the timeout
    passed, or it waits for a decision): the session is left running."""
    reason: str | None = None
    """The teammate's reason for rejecting, or why there was no answer."""
    status: str | None = None
    """The session's status afterwards."""


async def request_shutdown(
    manager: SessionManager,
    team: str,
    name: str,
    *,
    reason: str | None = None,
    requested_by: str = "Your team lead",
    timeout_s: float = 120.0,
) -> ShutdownAnswer:
    """Ask a teammate to shut down and wait for its answer; on ``approve`` its process is
    ended (it stays resumable), on anything else it keeps running.

    Raises:
        TeamNotFound, TeammateNotFound.
    """
    info = teammate(manager, team, name)
    sid = info.session_id

    def answer(outcome: str, why: str | None = None) -> ShutdownAnswer:
        return ShutdownAnswer(
            session_id=sid,
            teammate=info.config.teammate,
            outcome=outcome,
            reason=why,
            status=_status(manager, sid),
        )

    if not info.is_active:
        return answer("already_ended")
    because = f": {reason}" if reason else ""
    await manager.send(sid, SHUTDOWN_ASK.format(who=requested_by, because=because))
    waited = await manager.wait(sid, timeout_s)
    if waited.reason == "input_needed":
        return answer("no_answer", "it is waiting for a decision (claude_respond)")
    if waited.reason == "timeout":
        return answer("no_answer", f"no answer within {timeout_s:g} s")
    said = _ANSWER.findall(manager.get(sid).last_result or "")
    if not said:
        if waited.reason == "session_ended":
            return answer("already_ended")
        return answer("no_answer", "its reply had no SHUTDOWN: line")
    verdict, why = said[-1]
    if verdict.lower() == "reject":
        return answer("rejected", why.strip() or None)
    await manager.end(sid)
    return answer("approved", why.strip() or None)


class IdleNotice(BaseModel):
    """Seed 004's idle notification: ``notifyIdle(sessionId, reason)`` sends it for a
    teammate whose turn ended and who now waits for work (the seed's ``busy -> idle``).
    Fields in the seed's words (``SessionState``'s ``session_id``, ``team_name``,
    ``teammate_name``; ``notifyIdle``'s ``reason``)."""

    type: Literal["idle_notification"] = "idle_notification"
    session_id: str
    team_name: str
    teammate_name: str
    reason: str
    """Why its turn ended: ``completed``, ``interrupted`` or ``failed``."""
    timestamp: str
    """When it went idle (ISO 8601, UTC, ``Z``)."""


def idle_reason(*, is_error: bool, interrupted: bool) -> str:
    """The ``reason`` of an idle notice, from how the turn that ended it ended."""
    if interrupted:
        return "interrupted"
    return "failed" if is_error else "completed"


def idle_notice(info: SessionInfo, reason: str, at: datetime) -> IdleNotice | None:
    """The notice for ``info`` going idle at ``at``; None for a session that is not a
    teammate (no team: seed 004's ``notifyIdle`` returns without sending). A member given
    no name has the one its process knows (``session-<first 8 of its id>``)."""
    team = info.config.team
    if not team:
        return None
    return IdleNotice(
        session_id=info.session_id,
        team_name=team,
        teammate_name=info.config.teammate or default_teammate(info.session_id),
        reason=reason,
        timestamp=iso_z(at),
    )


async def _deliver(manager: SessionManager, info: SessionInfo, message: str) -> Delivery:
    """Send to one member; a failure is this member's result, not an error."""
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


def _status(manager: SessionManager, session_id: str) -> str | None:
    try:
        return manager.get(session_id).status
    except CctuiError:
        return None
