"""The open pending inputs (``PendingInputs``): each is answered exactly once.

Whichever channel resolves an input first (TUI modal, MCP elicitation, ``claude_respond``,
the timeout, or the session ending) wins; every later attempt gets ``InputAlreadyAnswered``.
Everything here runs on the one event loop, so "first" is simply whoever calls first.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
from collections import OrderedDict
from collections.abc import Callable
from typing import NoReturn

from cctui.core.policy.verdict import Verdict
from cctui.core.session.inputs import Decision, PendingInput, Resolution
from cctui.errors import InputAlreadyAnswered, InputNotFound

# How many answered ids we remember, so a late answer hears "already answered", not "unknown".
_REMEMBERED = 1024


class PendingInputs:
    """All open inputs across sessions, and the futures their sessions await."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[PendingInput, asyncio.Future[Resolution]]] = {}
        self._answered: OrderedDict[str, Resolution] = OrderedDict()

    def open(self, item: PendingInput) -> asyncio.Future[Resolution]:
        """Register ``item``; the returned future completes when anyone resolves it."""
        future: asyncio.Future[Resolution] = asyncio.get_running_loop().create_future()
        self._open[item.id] = (item, future)
        return future

    def get(self, input_id: str) -> PendingInput:
        """The open input with this id."""
        try:
            return self._open[input_id][0]
        except KeyError:
            self._raise_missing(input_id)

    def list(self, session_id: str | None = None) -> builtins.list[PendingInput]:
        """Open inputs, oldest first, optionally for one session."""
        items = [item for item, _ in self._open.values()]
        if session_id is not None:
            items = [i for i in items if i.session_id == session_id]
        return sorted(items, key=lambda i: i.created_at)

    def update(self, item: PendingInput) -> None:
        """Replace an open input's record (e.g. its route), keeping its future."""
        _, future = self._open[item.id]
        self._open[item.id] = (item, future)

    def resolve(
        self, input_id: str, decision: Decision, decided_by: str, why: Verdict | None = None
    ) -> Resolution:
        """Answer an open input. The first call wins.

        Raises:
            InputAlreadyAnswered: someone answered first (the message says who).
            InputNotFound: no input ever had this id (or it was long forgotten).
        """
        entry = self._open.pop(input_id, None)
        if entry is None:
            self._raise_missing(input_id)
        _, future = entry
        resolution = Resolution(
            input_id=input_id, decision=decision, decided_by=decided_by, why=why
        )
        self._answered[input_id] = resolution
        while len(self._answered) > _REMEMBERED:
            self._answered.popitem(last=False)
        if not future.done():
            future.set_result(resolution)
        return resolution

    def withdraw_session(self, session_id: str) -> builtins.list[Resolution]:
        """Deny every open input of a session that ended; returns what was withdrawn."""
        ids = [i.id for i in self.list(session_id)]
        deny = Decision(behavior="deny", message="The session ended before this was answered.")
        return [self.resolve(i, deny, "session-ended") for i in ids]

    def _raise_missing(self, input_id: str) -> NoReturn:
        done = self._answered.get(input_id)
        if done is not None:
            raise InputAlreadyAnswered(
                f"Input {input_id} was already answered ({done.decision.behavior}) "
                f"by {done.decided_by}.",
                suggestion="Call claude_get_status to see what is still pending.",
            )
        raise InputNotFound(
            f"No pending input has id {input_id!r}.",
            suggestion="Pending input ids are listed by claude_get_status.",
        )


async def await_resolution(
    future: asyncio.Future[Resolution],
    timeout_s: float,
    *,
    on_timeout: Callable[[], Resolution],
    on_cancel: Callable[[], object],
) -> Resolution:
    """Wait for an input's answer (``future`` from ``PendingInputs.open``).

    After ``timeout_s``, ``on_timeout`` closes the input and its resolution is returned,
    unless an answer won the race (then that answer). Cancelled, ``on_cancel`` closes the
    input (if nobody answered) and the cancellation goes on.
    """
    try:
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        except TimeoutError:
            try:
                return on_timeout()
            except (InputAlreadyAnswered, InputNotFound):
                return future.result()
    except asyncio.CancelledError:
        with contextlib.suppress(InputAlreadyAnswered, InputNotFound):
            on_cancel()
        raise
