"""Auto mode's refusals, made visible and answerable (docs/auto-mode.md).

A session in the CLI's ``auto`` mode decides its own permissions: cctui's permission callback
is never called, and a refusal is only a ``permission_denied`` frame and an error tool result.
So a refusal becomes a question for the human (a confirmation in the inbox, "denied by auto
mode: <reason>") with four answers:

- **retry, allowing it once**: this exact call is allowed once when Claude asks again; the session
  goes to ``default`` mode (so the CLI asks cctui instead of its classifier) and Claude is told
  to retry;
- **add the allow rule**: cctui (not the model, which auto mode forbids to widen its own
  rules) writes the exact rule (``Bash(<command>)``, ``Edit(<path>)``) to the project's
  ``.claude/settings.local.json`` and tells Claude to retry;
- **switch to default mode**: the session leaves auto mode; its next asks come to cctui;
- **dismiss**: nothing changes (also what silence picks, at the permission timeout).

When the classifier cannot run at all (``auto_mode_no_check_in_session``: a gateway or
proxy that does not pass it through) or the session's breaker opens (``deny_streak``
refusals in a row), the session is switched to ``default`` mode at once, so it asks the
human instead of stalling, and the question says so.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Protocol

from cctui.claude.frames import PermissionDenied
from cctui.core.audit import AuditLog
from cctui.core.decisions.allowances import call_detail
from cctui.core.decisions.service import Decisions
from cctui.core.rules import add_rule, local_settings_file
from cctui.core.session.models import SessionInfo
from cctui.errors import CctuiError

log = logging.getLogger(__name__)

RETRY = "retry, allowing it once"
RULE = "add the allow rule"
MODE = "switch to default mode"
DISMISS = "dismiss"
CHOICES = (RETRY, RULE, MODE, DISMISS)
UNAVAILABLE_CODES = frozenset(
    {
        "auto_mode_no_check_in_session",
        "auto_mode_stop_no_check_in_session",
        "auto_mode_stop_no_result_for_calls",
        "auto_mode_stop_no_verdict",
    }
)
"""Reason codes that mean the classifier cannot run at all, or gave no verdict ten times in
a row and the CLI ended the turn (the ``auto_mode_stop_*`` codes; an outage among them):
retrying in auto mode will not help (docs/auto-mode.md)."""
RETRY_TEXT = (
    "The action auto mode refused ({what}) is now allowed by the user. Please retry it exactly."
)


class Steer(Protocol):
    """What a refusal's follow-up needs of the manager above it (``SessionManager`` is one):
    the decisions (to ask the human, to allow a call once), the audit log, and three
    session verbs. The manager starts the follow-up, so this module sees it only through
    this protocol and never imports it (an import-linter contract holds it)."""

    decisions: Decisions
    audit: AuditLog

    def get(self, session_id: str) -> SessionInfo: ...

    async def send(self, session_id: str, text: str) -> SessionInfo: ...

    async def set_permission_mode(self, session_id: str, mode: str) -> object: ...


def subject(session_id: str) -> str:
    """The confirmation's subject: ``auto:<session id>``."""
    return f"auto:{session_id}"


def exact_rule(tool: str, tool_input: dict[str, Any]) -> str | None:
    """The narrowest rule allowing this exact call, or None when there is none to write."""
    command = tool_input.get("command")
    if tool == "Bash" and isinstance(command, str) and command.strip():
        return f"Bash({command.strip()})"
    path = tool_input.get("file_path") or tool_input.get("notebook_path")
    if tool in ("Edit", "Write", "MultiEdit", "NotebookEdit", "Read") and isinstance(path, str):
        return f"{tool}(//{path.lstrip('/')})" if path.startswith("/") else f"{tool}({path})"
    return None


def unavailable(denial: PermissionDenied) -> bool:
    """The classifier could not run (every refusal of this session will repeat)."""
    return denial.reason_code in UNAVAILABLE_CODES or denial.reason == "Classifier unavailable"


async def follow_up(
    manager: Steer,
    session_id: str,
    denial: PermissionDenied,
    tool_input: dict[str, Any],
    *,
    breaker: str | None,
) -> str:
    """Ask the human what to do about one refusal, and do it; returns the choice. Never
    raises: it runs in the background."""
    try:
        what = f"{denial.tool_name} `{call_detail(denial.tool_name, tool_input)}`"
        notes = []
        if unavailable(denial) or breaker is not None:
            why = (
                "its safety check cannot run for this session"
                if unavailable(denial)
                else f"the breaker opened ({breaker})"
            )
            await _to_default(manager, session_id)
            notes.append(
                f"Auto mode is off for this session ({why}): it is in default mode now, so "
                "its next permission requests come to you."
            )
        rule = exact_rule(denial.tool_name, tool_input)
        message = (
            f"Auto mode refused {what} in session {session_id[:8]}: {denial.reason}. "
            + " ".join(notes)
            + (f" The allow rule would be {rule}." if rule else "")
        )
        choice, by = await manager.decisions.confirm(
            subject(session_id),
            f"denied by auto mode: {denial.reason}",
            message,
            CHOICES if rule else (RETRY, MODE, DISMISS),
            cancel=DISMISS,
        )
        await _act(manager, session_id, choice, by, denial, tool_input, rule, what)
        return choice
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("following up auto mode's refusal in %s failed", session_id)
        return DISMISS


async def _act(
    manager: Steer,
    session_id: str,
    choice: str,
    by: str,
    denial: PermissionDenied,
    tool_input: dict[str, Any],
    rule: str | None,
    what: str,
) -> None:
    if choice == RETRY:
        manager.decisions.preapprove(session_id, denial.tool_name, tool_input, by)
        await _to_default(manager, session_id)
        await manager.send(session_id, RETRY_TEXT.format(what=what))
    elif choice == RULE and rule is not None:
        cwd = manager.get(session_id).config.cwd
        file = await asyncio.to_thread(local_settings_file, Path(cwd))
        change = await asyncio.to_thread(add_rule, file, rule)
        if change.changed:
            manager.audit.rule_change(
                action="add",
                rule=rule,
                behavior="allow",
                file=str(file),
                by=by,
                reason="after auto mode refused it",
            )
        await manager.send(session_id, RETRY_TEXT.format(what=what))
    elif choice == MODE:
        await _to_default(manager, session_id)


async def _to_default(manager: Steer, session_id: str) -> None:
    try:
        if manager.get(session_id).permission_mode == "auto":
            await manager.set_permission_mode(session_id, "default")
    except CctuiError as exc:
        log.warning("could not take %s out of auto mode: %s", session_id, exc.message)
