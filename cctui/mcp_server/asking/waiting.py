"""Waiting on a session, and asking the waiting client to decide (both protocol eras).

2026-07-28: a tool cannot ask mid-call, so the waiting happens in a ``Resolve`` resolver
(``checkpoint``) that ends the round with an ``Elicit`` when the session needs this client's
decision; the SDK turns that into an ``InputRequiredResult`` and the client retries with the
answer, when the resolver finds the same input again (``asked_open``) and words the same
question. Handshake era: the tool body waits and asks with a bounded ``ctx.elicit``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult

from cctui.core import PendingInput, Router, SessionManager, WaitOutcome
from cctui.errors import BeyondAuthority, InputAlreadyAnswered, InputNotFound, ValidationFailed
from cctui.mcp_server.asking.confirming import NoQuestion
from cctui.mcp_server.asking.decisions import (
    DecisionForm,
    can_elicit,
    client_label,
    form_to_decision,
    is_modern,
    question_text,
)
from cctui.mcp_server.asking.progress import notify
from cctui.mcp_server.schemas.common import MAX_WAIT_MS
from cctui.mcp_server.schemas.sessions import AnsweredOut, PendingInputOut, SentRecord, WaitOut


@dataclass
class Checkpoint:
    """What the resolver saw: the wait's outcome, and the input to ask about (if any)."""

    deadline: float
    started: float
    """When the call began (loop time), for ``waitedMs``."""
    deferred: bool = False
    """Handshake era: the body does the work (it can ask mid-call)."""
    outcome: WaitOutcome | None = None
    ask: PendingInput | None = None


@dataclass
class Tally:
    """Decisions made and advice gathered during one call."""

    answered: list[AnsweredOut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


ACCEPTED_ANY = AcceptedElicitation[Any]
"""Held for the life of the process. The SDK wraps every resolver's value as
``AcceptedElicitation[Any]`` (mcp 2.3, ``mcpserver.resolve._accepted``), and pydantic keeps a
parametrized class only weakly: with nothing else holding it, a garbage collection frees it
and the next call builds the class again, 0.6 ms, about one call in ten (47 of 500 waiting
calls, measured in stop 37)."""

HEARTBEAT_S = 15.0
"""A wait longer than this sends a progress notification this often, so a client whose
request timeout restarts on progress (the TypeScript SDK's ``resetTimeoutOnProgress``)
keeps waiting as long as it asked to."""


def _now() -> float:
    return asyncio.get_running_loop().time()


@contextlib.contextmanager
def heartbeat(ctx: Context[Any, Any], session_id: str) -> Iterator[None]:
    """Send a progress notification every ``HEARTBEAT_S`` while the block runs (none for a
    shorter wait; a no-op for a client that sent no progress token).

    A timer, not a task: nearly every wait is shorter than a beat, and a task made and
    cancelled per wait cost each turn two trips through the event loop."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    beats = 0
    sending: set[asyncio.Task[None]] = set()
    timer: asyncio.TimerHandle | None = None

    async def report(n: int) -> None:
        await notify(ctx, n, f"waiting on session {session_id}: {int(loop.time() - started)} s")

    def beat() -> None:
        nonlocal beats, timer
        beats += 1
        task = loop.create_task(report(beats))
        sending.add(task)
        task.add_done_callback(sending.discard)
        timer = loop.call_later(HEARTBEAT_S, beat)

    timer = loop.call_later(HEARTBEAT_S, beat)
    try:
        yield
    finally:
        timer.cancel()  # the one armed last
        for task in sending:
            task.cancel()


async def checkpoint(
    ctx: Context[Any, Any],
    manager: SessionManager,
    router: Router,
    session_id: str,
    timeout_ms: int,
    before: Callable[[], Awaitable[object]] | None = None,
    wait: bool = True,
) -> Checkpoint:
    """The resolver half of a waiting tool (see the module docstring)."""
    # Taken before waiting: the Checkpoint is built after the wait it measures.
    started = _now()
    deadline = started + timeout_ms / 1000
    if not is_modern(ctx):
        return Checkpoint(deadline, started, deferred=True)
    label = client_label(ctx)
    if ctx.input_responses is not None:
        # A retry carrying answers: re-ask exactly what was asked, never redo ``before``.
        asked = router.asked_open(session_id, label)
        if asked is not None:
            return Checkpoint(deadline, started, ask=asked)
    elif before is not None:
        await before()
    if not wait:
        return Checkpoint(deadline, started)
    elicits = can_elicit(ctx)
    with router.waiting(session_id, label, elicits), heartbeat(ctx, session_id):
        outcome = await manager.wait(session_id, max(0.0, deadline - _now()))
    ask = None
    if elicits and outcome.reason == "input_needed":
        ask = router.claim(outcome.pending, label)
    return Checkpoint(deadline, started, outcome=outcome, ask=ask)


def question(cp: Checkpoint) -> NoQuestion | Elicit[DecisionForm]:
    """The question resolver: ask about ``cp.ask`` (worded only from the input)."""
    if cp.ask is None:
        return NoQuestion()
    return Elicit(question_text(cp.ask), DecisionForm)


def apply_answer(
    manager: SessionManager,
    router: Router,
    label: str,
    item: PendingInput,
    result: ElicitationResult[Any],
    tally: Tally,
) -> None:
    """Record the client's answer, or hand the input to the human if it could not decide."""
    if isinstance(result, AcceptedElicitation) and isinstance(result.data, DecisionForm):
        decision = form_to_decision(item, result.data)
        try:
            res = manager.respond(item.id, decision, f"mcp:{label}")
        except (InputAlreadyAnswered, InputNotFound) as exc:
            tally.notes.append(exc.message)
        except BeyondAuthority as exc:  # the core sent it up to the human already
            tally.notes.append(exc.message)
            return
        except ValidationFailed as exc:  # e.g. an answer that is not an option
            router.gave_up(item.id)
            tally.notes.append(
                f"Your answer to {item.id} was not used: {exc.message} {exc.suggestion or ''} "
                "It now waits for the human or claude_respond."
            )
            return
        else:
            tally.answered.append(
                AnsweredOut(input_id=item.id, decision=decision.behavior, decided_by=res.decided_by)
            )
        router.done(item.id)
        return
    router.gave_up(item.id)
    tally.notes.append(
        f"Input {item.id} was not decided by this client ({result.action}); it now waits "
        f'for the human at cctui or claude_respond(sessionId="{item.session_id}", '
        f'inputId="{item.id}", decision="allow"|"deny").'
    )


async def drive(
    ctx: Context[Any, Any],
    manager: SessionManager,
    router: Router,
    session_id: str,
    deadline: float,
    tally: Tally,
) -> WaitOutcome:
    """Wait until the turn ends, input is needed that this call cannot ask, or the deadline.

    On handshake-era connections with elicitation, inputs routed to this client are asked
    right here (bounded by the router's elicitation bound).
    """
    label = client_label(ctx)
    ask_midcall = can_elicit(ctx) and not is_modern(ctx)
    while True:
        with router.waiting(session_id, label, ask_midcall), heartbeat(ctx, session_id):
            outcome = await manager.wait(session_id, max(0.0, deadline - _now()))
        if outcome.reason != "input_needed" or not ask_midcall:
            return outcome
        item = router.claim(outcome.pending, label)
        if item is None:
            # Already being asked of this client between calls: wait for that answer
            # rather than report an input the client is deciding right now.
            asks = [t for p in outcome.pending if (t := router.asking(p.id, label)) is not None]
            if asks and len(asks) == len(outcome.pending) and deadline > _now():
                await asyncio.wait(asks, timeout=max(0.0, deadline - _now()))
                continue
            return outcome
        result: ElicitationResult[Any] | None = None
        with anyio.move_on_after(router.elicit_bound_s):
            result = await ctx.elicit(question_text(item), DecisionForm)
        if result is None:
            router.gave_up(item.id)
            tally.notes.append(f"No elicitation answer for {item.id} in time; the human decides.")
            continue
        apply_answer(manager, router, label, item, result, tally)


async def finish(
    ctx: Context[Any, Any],
    manager: SessionManager,
    router: Router,
    session_id: str,
    cp: Checkpoint,
    answer: ElicitationResult[Any],
    *,
    message_sent: bool | None = None,
    sent: SentRecord | None = None,
) -> WaitOut:
    """The body half of a waiting tool: apply the answer, keep waiting, report."""
    label = client_label(ctx)
    tally = Tally()
    outcome = cp.outcome
    if cp.ask is not None:
        apply_answer(manager, router, label, cp.ask, answer, tally)
        outcome = None  # the session moved on; see what it does next
    if outcome is None:
        outcome = await drive(ctx, manager, router, session_id, cp.deadline, tally)
    return wait_out(
        manager,
        router,
        label,
        outcome,
        tally,
        message_sent=message_sent,
        waited_ms=int((_now() - cp.started) * 1000),
        sent=sent,
    )


def wait_out(
    manager: SessionManager,
    router: Router,
    label: str,
    outcome: WaitOutcome,
    tally: Tally,
    *,
    message_sent: bool | None = None,
    waited_ms: int = 0,
    sent: SentRecord | None = None,
) -> WaitOut:
    """Report the outcome with fresh session state and advice on open inputs."""
    info = manager.get(outcome.session.session_id)
    pending = manager.pending(info.session_id)
    notes = list(tally.notes)
    for item in pending:
        if item.route == "client" and item.route_label == label:
            notes.append(
                f"Input {item.id} is for you: call claude_wait to be asked, or "
                f'claude_respond(sessionId="{item.session_id}", inputId="{item.id}", ...).'
            )
        else:
            notes.append(
                f"Input {item.id} ({item.tool_name}) waits for a decision: the human at "
                f'cctui, or claude_respond(sessionId="{item.session_id}", inputId="{item.id}", '
                'decision="allow"|"deny").'
            )
    if outcome.reason == "timeout" and not notes:
        notes.append(
            f"The turn is still going after {waited_ms} ms: call claude_wait to keep waiting "
            f"(claude_wait and claude_send_message wait at most {MAX_WAIT_MS} ms a call; "
            "wait_for_completion waits as long as asked)."
        )
    return WaitOut.build(
        info,
        outcome.reason,
        [PendingInputOut.of(p) for p in pending],
        answered=tally.answered,
        note=" ".join(notes) or None,
        message_sent=message_sent,
        waited_ms=waited_ms,
        sent=sent,
    )
