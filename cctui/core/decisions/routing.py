"""Who is asked about a pending input, by which channel, and until when.

An input goes to a client (a front end that can put the question to its own user, e.g. an
MCP client by elicitation) when that client has a call in flight on the session and can
ask right then; otherwise the human at the TUI gets it at once. Answering by id
(``claude_respond``, the inbox) always works, whoever was asked. The client that created or
last drove a session (and can ask) still gets the session's inputs the human has not
answered yet, on its next waiting call: both channels are open and the first answer wins.
A client that could not decide (declined, cancelled, an unusable answer) is never asked
again about that input; it stays with the human. A client-routed input left unanswered
past ``elicit_bound_s`` goes to the human too, so a silent client can never hold a decision.

A client can also be *reachable* between its calls (seed 002's Flow A: it created a
session, then only polls its status): the front end registers an ``Asker`` for it
(``reach``), and a new input of a session the client owns, with no waiting call to take
it, is put to that asker at once. Declined, cancelled, unreachable or silent past
``elicit_bound_s``: the human gets it, and with no human attached nobody is asked (route
``nobody``) and the input waits for an answer by id until the permission timeout denies it.

The router is front-end neutral: it knows clients only by label. The MCP server translates
its calls into waiters and its answers into elicitation; the TUI only shows what is routed
to the human.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from cctui.core.decisions.pending import PendingInputs
from cctui.core.session.inputs import Decision, PendingInput
from cctui.errors import CctuiError

log = logging.getLogger(__name__)

ELICIT_BOUND_S = 120.0
"""How long a client may take to answer before the human gets the input."""


Asker = Callable[[PendingInput], Awaitable[Decision | None]]
"""Puts an input to a client between its calls; ``None`` when the client could not decide
(declined, cancelled). Raising means it could not be reached."""
Answer = Callable[[str, Decision, str], object]
"""Answers an input: ``(input_id, decision, decided_by)``; raises if it is already closed."""


@dataclass
class _Waiter:
    label: str
    can_ask: bool


class Router:
    """The routing state of every open input: waiters, owners, who was asked, who gave up."""

    def __init__(
        self,
        inputs: PendingInputs,
        republish: Callable[[PendingInput], None],
        *,
        elicit_bound_s: float = ELICIT_BOUND_S,
        humans: Callable[[], bool] = lambda: True,
        answer: Answer | None = None,
        may_answer: Callable[[PendingInput, str], bool] = lambda item, label: True,
    ) -> None:
        """``republish`` announces an input again when its route changes (to the human);
        ``humans`` says whether a human is attached; ``answer`` records a reachable
        client's decision (without it, no client is asked between calls); ``may_answer``
        says whether a client's authority covers an input (one beyond it is never asked)."""
        self._inputs = inputs
        self._republish = republish
        self._humans = humans
        self._answer = answer
        self._may_answer = may_answer
        self._askers: dict[str, tuple[Asker, str]] = {}
        """Clients reachable between calls: their asker and who they answer as."""
        self._reaching: dict[str, asyncio.Task[None]] = {}
        """Between-calls asks in flight, by input id."""
        self._reaching_whom: dict[str, str] = {}
        self.elicit_bound_s = elicit_bound_s
        """How long a client may hold an input it was asked about."""
        self._waiters: dict[str, builtins.list[_Waiter]] = {}
        self._owners: dict[str, str] = {}
        self._creators: dict[str, str] = {}
        self._asked: dict[str, str] = {}
        self._gave_up: set[str] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def route(self, item: PendingInput) -> PendingInput:
        """A new input: routed to the first waiting client that can ask, else to the
        session's owner if it is reachable between calls, else to the human (or nobody)."""
        for waiter in self._waiters.get(item.session_id, []):
            if waiter.can_ask and self._may_answer(item, waiter.label):
                self._arm(item.id)
                return item.model_copy(update={"route": "client", "route_label": waiter.label})
        owner = self._owners.get(item.session_id)
        reachable = self._askers.get(owner) if owner is not None else None
        if (
            owner is not None
            and reachable is not None
            and self._answer is not None
            and self._may_answer(item, owner)
        ):
            asker, decided_by = reachable
            self._arm(item.id)
            # Started on the next loop turn: by then the caller has opened the input.
            self._reaching_whom[item.id] = owner
            self._reaching[item.id] = asyncio.get_running_loop().create_task(
                self._reach(item, owner, asker, decided_by), name=f"ask {owner} about {item.id}"
            )
            return item.model_copy(update={"route": "client", "route_label": owner})
        return item.model_copy(update={"route": self.fallback(), "route_label": None})

    def asking(self, input_id: str, label: str) -> asyncio.Task[None] | None:
        """The between-calls ask of client ``label`` about ``input_id``, while it runs."""
        if self._reaching_whom.get(input_id) != label:
            return None
        return self._reaching.get(input_id)

    def fallback(self) -> Literal["human", "nobody"]:
        """Who gets an input no client takes: the human, if one is attached."""
        return "human" if self._humans() else "nobody"

    def reach(self, label: str, asker: Asker, decided_by: str) -> None:
        """Client ``label`` can be asked between its calls, through ``asker``; its answers
        are recorded as ``decided_by`` (the newest registration wins: one connection per
        client name)."""
        self._askers[label] = (asker, decided_by)

    def unreach(self, label: str, asker: Asker | None = None) -> None:
        """Client ``label`` can no longer be asked between calls (its connection closed)."""
        kept = self._askers.get(label)
        if asker is None or (kept is not None and kept[0] is asker):
            self._askers.pop(label, None)

    async def _reach(self, item: PendingInput, label: str, asker: Asker, decided_by: str) -> None:
        """Ask a reachable client; whatever goes wrong, the input goes on to the human."""
        decision: Decision | None = None
        try:
            decision = await asker(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # unreachable: a closed or one-way connection
            log.info("input %s: client %s could not be reached (%s)", item.id, label, exc)
            self.unreach(label, asker)
        finally:
            self._reaching.pop(item.id, None)
            self._reaching_whom.pop(item.id, None)
        if decision is None or self._answer is None:
            self.gave_up(item.id)
            return
        try:
            self._answer(item.id, decision, decided_by)
        except CctuiError as exc:  # answered meanwhile, or an unusable answer
            log.info("input %s: answer of %s not used: %s", item.id, label, exc.message)
            if any(p.id == item.id for p in self._inputs.list()):
                self.gave_up(item.id)
                return
        self.done(item.id)

    @contextlib.contextmanager
    def waiting(self, session_id: str, label: str, can_ask: bool) -> Iterator[None]:
        """Mark a call of client ``label`` in flight on ``session_id`` (``can_ask``: it can
        put a new input to its user right now)."""
        waiter = _Waiter(label, can_ask)
        self._waiters.setdefault(session_id, []).append(waiter)
        try:
            yield
        finally:
            waiters = self._waiters.get(session_id, [])
            if waiter in waiters:
                waiters.remove(waiter)
            if not waiters:
                self._waiters.pop(session_id, None)

    def note_owner(self, session_id: str, label: str, can_ask: bool) -> None:
        """The client that creates or drives a session owns its inputs, if it can ask."""
        if can_ask:
            self._owners[session_id] = label
        elif self._owners.get(session_id) != label:
            self._owners.pop(session_id, None)

    def note_created(self, session_id: str, label: str, can_ask: bool) -> None:
        """Client ``label`` created ``session_id`` (a create, fork, query or task): it owns
        the session's inputs as ``note_owner`` says, and may answer them by default."""
        self._creators.setdefault(session_id, label)
        self.note_owner(session_id, label, can_ask)

    def creator(self, session_id: str) -> str | None:
        """The client that created ``session_id``, if a client did."""
        return self._creators.get(session_id)

    def claim(self, pending: builtins.list[PendingInput], label: str) -> PendingInput | None:
        """The oldest of ``pending`` that client ``label`` may be asked about now (routed to
        it, asked before, or its own session's input the human has); marks it asked."""
        for item in pending:
            if item.id in self._gave_up or item.id in self._reaching:
                continue  # given up, or being asked between calls already
            owner = self._owners.get(item.session_id) == label
            if not self._may_answer(item, label):
                continue
            if (
                self._asked.get(item.id) == label
                or (item.route == "client" and item.route_label == label)
                or (item.route != "client" and owner)
            ):
                self._asked[item.id] = label
                self._arm(item.id)
                return item
        return None

    def asked_open(self, session_id: str, label: str) -> PendingInput | None:
        """An open input client ``label`` was asked about and has not given up."""
        for item in self._inputs.list(session_id):
            if self._asked.get(item.id) == label and item.id not in self._gave_up:
                return item
        return None

    def gave_up(self, input_id: str) -> None:
        """The client could not decide: the human gets it, and no client is asked again."""
        self._gave_up.add(input_id)
        self._disarm(input_id)
        self._reaching_whom.pop(input_id, None)
        task = self._reaching.pop(input_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()  # out of time: stop asking the client
        routed_to_client = any(
            p.id == input_id and p.route == "client" for p in self._inputs.list()
        )
        if routed_to_client:  # the human may already have it (then it is on screen already)
            with contextlib.suppress(CctuiError):  # answered meanwhile: nothing to hand over
                self.to_human(input_id)

    def to_human(self, input_id: str, escalation: str | None = None) -> PendingInput:
        """Route an open input to the human, announcing it again (``InputRequestedEvent``);
        ``escalation`` says why the ladder sent it up (the inbox shows it).

        Raises:
            InputNotFound, InputAlreadyAnswered: it is no longer open.
        """
        item = self._inputs.get(input_id)
        route = self.fallback()
        if item.route == route and (escalation is None or item.escalation == escalation):
            return item
        update: dict[str, object] = {"route": route, "route_label": None}
        if escalation is not None:
            update["escalation"] = escalation
        item = item.model_copy(update=update)
        self._inputs.update(item)
        self._republish(item)
        return item

    def done(self, input_id: str) -> None:
        """The input was answered: forget its deadline and who was asked."""
        self._disarm(input_id)
        self._asked.pop(input_id, None)
        self._reaching_whom.pop(input_id, None)
        task = self._reaching.pop(input_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()  # answered elsewhere: stop asking the client

    def _arm(self, input_id: str) -> None:
        self._disarm(input_id)
        loop = asyncio.get_running_loop()
        self._timers[input_id] = loop.call_later(self.elicit_bound_s, self._expire, input_id)

    def _disarm(self, input_id: str) -> None:
        timer = self._timers.pop(input_id, None)
        if timer is not None:
            timer.cancel()

    def _expire(self, input_id: str) -> None:
        self._timers.pop(input_id, None)
        if any(p.id == input_id for p in self._inputs.list()):
            log.info("input %s: no client answer in time, handing it to the human", input_id)
            self.gave_up(input_id)
