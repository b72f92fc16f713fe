"""Asking a caller about a decision from inside a long tool call, in either protocol era.

On 2026-07-28 connections a tool cannot ask mid-call: it ends the round with an
input-required result whose request state names the run, and the client's retry carries the
answer (``answer_of``). Handshake-era callers are asked right away (``ask_midcall``). One
call of a tool that follows a run (``claude_query``, ``invoke_claude_code``) is one
``Rounds.call``: start the run or continue it, follow it, end the round.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    ElicitationResult,
)
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from pydantic import ValidationError

from cctui.core import PendingInput, Router, SessionManager
from cctui.core.runs import Run as SessionRun
from cctui.errors import ValidationFailed
from cctui.mcp_server.asking.decisions import (
    DecisionForm,
    can_elicit,
    client_label,
    is_modern,
    question_text,
)
from cctui.mcp_server.asking.waiting import Tally, apply_answer
from cctui.mcp_server.schemas.common import UNCLAIMED_TTL_S

ASK_KEY = "decision"
"""The input-required round's one request."""
RECHECK_S = 1.0
"""A call following a run looks again at least this often (human attached, routes)."""


@dataclass(kw_only=True)
class Followed:
    """A run that calls follow for its messages and decisions (``claude_query``'s,
    ``invoke_claude_code``'s): the core run, the client that started it, and what its
    rounds asked and gathered. ``runs.query`` and ``runs.invoke`` say what a caller sees."""

    run: SessionRun
    router: Router
    label: str
    """The client that started it; only it continues it in later rounds."""
    round_id: str
    """The request state of its input-required rounds: the retry names the run by it."""
    tally: Tally = field(default_factory=Tally)
    asked: PendingInput | None = None
    """The input the last input-required round asked the caller about."""

    @property
    def manager(self) -> SessionManager:
        """The sessions' manager."""
        return self.run.manager

    @property
    def sid(self) -> str:
        """The Claude Code session doing the work."""
        return self.run.sid

    @property
    def ended(self) -> bool:
        """The run is over: nothing more to decide."""
        return self.run.over

    @property
    def changed(self) -> asyncio.Event:
        """Set at the run's next event (a new one is made each time)."""
        return self.run.changed

    def waiting_on(self, items: list[PendingInput]) -> None:
        """Decisions routed to the human at the TUI, still open (nothing to add here)."""

    def nobody_decides(self, pending: list[PendingInput]) -> str:
        """The note for a caller nobody asks: that nobody will, and how to answer."""
        calls = "; ".join(
            f'claude_respond(sessionId="{self.sid}", inputId="{p.id}", '
            f'decision="allow"|"deny") for {p.tool_name}'
            for p in pending
        )
        return (
            "that nobody here will make (this client cannot or did not decide it, and no "
            f'human is at cctui). Answer with {calls}, then claude_wait(sessionId="{self.sid}").'
        )

    async def notify(self, ctx: Context[Any, Any]) -> None:
        """Send the caller what it has not been sent yet (nothing here)."""

    async def cancel(self) -> None:
        """The caller went away: stop the turn and end the process now."""
        await self.run.stop("cancelled", grace_s=0)

    async def follow(self, ctx: Context[Any, Any], streaming: bool = True) -> PendingInput | None:
        """Follow the run for one call until it ended, or a decision needs this caller,
        sending what happens as it happens (``notify``) when ``streaming``.

        Returns the input to ask about in an input-required round (2026-07-28);
        handshake-era callers are asked right here. Returns None when the run ended, or
        when nobody can answer an open decision (no elicitation, no human at the TUI): the
        caller is told at once rather than left to sleep into the run's time limit.
        """
        label = client_label(ctx)
        elicits = can_elicit(ctx)
        async with anyio.create_task_group() as tg:
            if streaming:
                tg.start_soon(self._stream, ctx)
            with self.router.waiting(self.sid, label, elicits):
                item = await next_decision(ctx, self, label, elicits)
            tg.cancel_scope.cancel()
        if streaming:
            await self.notify(ctx)
        return item

    async def _stream(self, ctx: Context[Any, Any]) -> None:
        while True:
            changed = self.run.changed
            await self.notify(ctx)
            await changed.wait()


async def next_decision(
    ctx: Context[Any, Any], run: Followed, label: str, elicits: bool
) -> PendingInput | None:
    """Follow ``run`` until it ends or a decision needs this caller.

    Returns the input to ask about in an input-required round (2026-07-28, where a tool
    cannot ask mid-call); handshake-era callers are asked right here. Returns None when the
    run ended, or when nobody can answer an open decision (no elicitation, no human at the
    TUI): the caller is told at once rather than left to sleep into a timeout.
    """
    while not run.ended:
        changed = run.changed
        pending = run.manager.pending(run.sid)
        item = run.router.claim(pending, label) if elicits and pending else None
        if item is not None:
            if is_modern(ctx):
                run.asked = item
                return item
            await ask_midcall(ctx, run.manager, run.router, label, item, run.tally)
            continue
        for_human = [p for p in pending if p.route != "client"]
        if for_human and not run.manager.decisions.human_attached:
            return None  # nobody would answer: say so now
        run.waiting_on(for_human)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), RECHECK_S)
    return None


def take_answer(run: Followed, ctx: Context[Any, Any]) -> None:
    """A 2026-07-28 retry: apply its answer to the input the last round asked about."""
    item, run.asked = run.asked, None
    if item is not None:
        apply_answer(run.manager, run.router, client_label(ctx), item, answer_of(ctx), run.tally)


F = TypeVar("F", bound=Followed)


class Rounds(Generic[F]):
    """The runs of one tool kept between the rounds of 2026-07-28 calls, by round id, and
    what one call of the tool does with them."""

    def __init__(self, what: str, suggestion: str) -> None:
        """``what`` the tool runs (for a retry that finds it gone), ``suggestion`` where to
        look for it then."""
        self._runs: dict[str, F] = {}
        self._what = what
        self._suggestion = suggestion

    async def call(
        self, ctx: Context[Any, Any], start: Callable[[], Awaitable[F]], streaming: bool = True
    ) -> F | InputRequiredResult:
        """One call: a retry continues its run with its answer, else ``start`` starts one;
        then follow it. Returns the run once it ended or nobody can answer what it waits
        for (the tool reports it), or the round asking this caller a decision (the run is
        kept for the retry). A call cancelled or failed mid-follow cancels its run."""
        if ctx.input_responses is not None:
            run = self._continued(ctx)
            take_answer(run, ctx)
        else:
            run = await start()
        try:
            item = await run.follow(ctx, streaming)
        except BaseException:
            with anyio.CancelScope(shield=True):
                self._runs.pop(run.round_id, None)
                await run.cancel()
            raise
        if item is not None:
            self._runs[run.round_id] = run
            return ask_round(item, run.round_id)
        self._runs.pop(run.round_id, None)
        return run

    def forget_later(self, round_id: str) -> None:
        """Drop a run kept between rounds (once over) after its caller has had
        ``UNCLAIMED_TTL_S`` to retry."""
        asyncio.get_running_loop().call_later(UNCLAIMED_TTL_S, self._runs.pop, round_id, None)

    def _continued(self, ctx: Context[Any, Any]) -> F:
        """The run a 2026-07-28 retry continues (its request state is the run's id).

        Raises:
            ValidationFailed: another client's run, or one that is gone (restart, collected).
        """
        run_id = str(ctx.request_state or "")
        run = self._runs.get(run_id)
        if run is not None and run.label != client_label(ctx):
            raise ValidationFailed(
                f"{run_id} is waiting for an answer from the client that started it "
                f"({run.label}), not from {client_label(ctx)}.",
                suggestion=f'Answer its open decision with claude_respond(sessionId="{run.sid}", '
                "...) (claude_get_status lists it), or let that client retry.",
            )
        if run is None:
            raise ValidationFailed(
                f"This answer is for {self._what} that is no longer waiting for it here (cctui "
                "restarted, or it was collected).",
                suggestion=self._suggestion,
            )
        return run


def ask_round(item: PendingInput, state: str) -> InputRequiredResult:
    """A 2026-07-28 round asking ``item``; the retry names the run (``state``)."""
    form = ElicitRequestFormParams(
        message=question_text(item), requested_schema=render_elicitation_schema(DecisionForm)
    )
    return InputRequiredResult(
        input_requests={ASK_KEY: ElicitRequest(params=form)}, request_state=state
    )


def answer_of(ctx: Context[Any, Any]) -> ElicitationResult[Any]:
    """The answer a 2026-07-28 retry carries (missing or malformed counts as cancel)."""
    responses = ctx.input_responses or {}
    return outcome_of(responses.get(ASK_KEY))


def outcome_of(response: Any) -> ElicitationResult[Any]:
    """The client's answer as the SDK would inject it (a malformed one counts as cancel)."""
    if isinstance(response, ElicitResult):
        if response.action == "accept":
            with contextlib.suppress(ValidationError):
                return AcceptedElicitation(data=DecisionForm.model_validate(response.content or {}))
        elif response.action == "decline":
            return DeclinedElicitation()
    return CancelledElicitation()


async def ask_midcall(
    ctx: Context[Any, Any],
    manager: SessionManager,
    router: Router,
    label: str,
    item: PendingInput,
    tally: Tally,
) -> None:
    """Handshake era: elicit now, bounded so a silent client cannot hold the decision."""
    result: ElicitationResult[Any] | None = None
    try:
        with anyio.move_on_after(router.elicit_bound_s):
            result = await ctx.elicit(question_text(item), DecisionForm)
    except ValueError:
        # The SDK's word for an accepted answer that does not fit the form: not an answer,
        # so handled as the session tools handle a cancelled form.
        result = CancelledElicitation()
        tally.notes.append(
            f"Your answer to {item.id} did not fit the question (decision: allow or deny)."
        )
    if result is None:
        router.gave_up(item.id)
        tally.notes.append(f"No elicitation answer for {item.id} in time; the human decides.")
        return
    apply_answer(manager, router, label, item, result, tally)
