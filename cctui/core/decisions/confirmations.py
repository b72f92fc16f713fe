"""Confirmations: a question with a few choices for whoever decides, outside any session.

``write_to_project`` on an existing file (overwrite / append / cancel) and
``register_project`` on a taken id (overwrite / cancel) ask this way when the MCP client
cannot elicit. It is an ordinary pending input of kind ``confirmation``: it reaches the
TUI like a permission request (modal, inbox, bell), is answered once by whoever is first
(``Decisions.respond``), is audited, and a timeout picks the cancelling choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from cctui.core.audit import AuditLog
from cctui.core.decisions.pending import PendingInputs, await_resolution
from cctui.core.session.events import InputRequestedEvent, InputResolvedEvent, SessionEvent
from cctui.core.session.inputs import Decision, PendingInput, Resolution


def choice_of(item: PendingInput, decision: Decision, cancel: str) -> str:
    """The chosen option: the decision's ``choice`` when offered, ``cancel`` for a deny,
    else the first option (an "allow" from a channel that cannot pick, e.g. the inbox)."""
    if decision.behavior == "deny":
        return cancel
    if decision.choice in item.choices:
        return decision.choice
    return item.choices[0]


async def ask(
    inputs: PendingInputs,
    publish: Callable[[SessionEvent], None],
    audit: AuditLog,
    *,
    subject: str,
    title: str,
    message: str,
    choices: tuple[str, ...],
    cancel: str,
    timeout_s: float,
) -> tuple[str, str]:
    """Ask the human; returns ``(choice, decided_by)``. ``cancel`` on timeout or shutdown."""
    expires = datetime.fromtimestamp(time.time() + timeout_s, UTC)
    item = PendingInput(
        session_id=subject,
        kind="confirmation",
        tool_name=title,
        tool_input={},
        description=message,
        choices=choices,
        expires_at=expires,
    )
    future = inputs.open(item)
    publish(InputRequestedEvent(session_id=subject, input=item))
    resolution = await await_resolution(
        future,
        timeout_s,
        on_timeout=lambda: _deny(inputs, item, "timeout"),
        on_cancel=lambda: _deny(inputs, item, "interrupted"),
    )
    choice = choice_of(item, resolution.decision, cancel)
    publish(
        InputResolvedEvent(
            session_id=subject,
            input_id=item.id,
            decision="deny" if choice == cancel else "allow",
            decided_by=resolution.decided_by,
            message=choice,
        )
    )
    audit.decision(
        session_id=subject,
        input_id=item.id,
        tool=title,
        kind="confirmation",
        decision=choice,
        decided_by=resolution.decided_by,
        message=message[:200],
    )
    return choice, resolution.decided_by


def _deny(inputs: PendingInputs, item: PendingInput, by: str) -> Resolution:
    return inputs.resolve(item.id, Decision(behavior="deny", message="No answer in time."), by)
