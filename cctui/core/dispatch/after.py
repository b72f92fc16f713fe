"""Sessions that run ``after`` others: AND semantics, failures that propagate, no cycles.

The peers' bugs are the specification: a dependent starts only when *all* its parents ended
well (not any: cline/kanban#473); a parent that failed, was killed or was cancelled stops it
with the reason (never "pending" forever, never "met": bounty-challenge#49049); a parent that
had already finished when the dependent was made counts at once (stablyai/orca#14143).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Literal

from cctui.core.session.session import Session
from cctui.core.session.states import SessionStatus
from cctui.errors import ValidationFailed

S = SessionStatus

Outcome = Literal["ok", "wait"] | str
"""``ok``: ended well; ``wait``: not yet; anything else: why it will never be ok."""

_ENDED_WELL = frozenset({S.COMPLETED, S.IDLE})
"""A finished turn (the process may stay alive, idle) or a process that ended cleanly."""


def short(session_id: str) -> str:
    """The first eight characters of an id, as lists show it."""
    return session_id[:8]


def outcome(parent: Session | None, parent_id: str) -> Outcome:
    """How ``parent`` stands for a session waiting on it."""
    if parent is None:
        return f"session {short(parent_id)} is not known any more"
    status = parent.status
    if status in _ENDED_WELL and parent.error is None:
        return "ok"
    name = f"session {short(parent_id)}"
    if status == S.ERROR or (status in _ENDED_WELL and parent.error):
        return f"{name} failed: {parent.error or 'error'}"
    if status == S.INTERRUPTED:
        return f"{name} was killed or interrupted"
    if status == S.CANCELLED:
        why = f" ({parent.error})" if parent.error else ""
        return f"{name} was cancelled{why}"
    return "wait"


def standing(
    after: Iterable[str], get: Callable[[str], Session | None]
) -> tuple[list[str], str | None]:
    """The parents not ended yet, and the first reason one never will (None: none)."""
    waiting: list[str] = []
    for pid in after:
        result = outcome(get(pid), pid)
        if result == "wait":
            waiting.append(pid)
        elif result != "ok":
            return waiting, result
    return waiting, None


def check(
    session_id: str,
    after: Iterable[str],
    get: Callable[[str], Session | None],
    edges: Mapping[str, Iterable[str]],
) -> tuple[str, ...]:
    """``after`` cleaned (deduplicated, in order), for a new session ``session_id``.

    ``edges``: each queued session's own ``after``. Raises ValidationFailed for an unknown
    id, the session itself, a cycle, or a parent that already failed (it would never
    start: better said now than shown as waiting).
    """
    parents = tuple(dict.fromkeys(after))
    for pid in parents:
        if pid == session_id:
            raise ValidationFailed("A session cannot run after itself.")
        if get(pid) is None:
            raise ValidationFailed(
                f"after: no session has id {pid!r}.",
                suggestion="claude_list_sessions lists the known ids.",
            )
        reason = outcome(get(pid), pid)
        if reason not in ("ok", "wait"):
            raise ValidationFailed(
                f"after: {reason}, so this session would never start.",
                suggestion="Leave it out of after, or resume it first.",
            )
    # A cycle: some parent already (transitively) waits for the new session.
    seen: set[str] = set()
    stack = list(parents)
    while stack:
        node = stack.pop()
        if node == session_id:
            raise ValidationFailed(
                f"after: a cycle: {short(session_id)} would wait for itself through "
                "the sessions it runs after."
            )
        if node in seen:
            continue
        seen.add(node)
        stack.extend(edges.get(node, ()))
    return parents
