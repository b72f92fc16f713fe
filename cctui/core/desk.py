"""A session's pending inputs: the driver's permission asks become ``PendingInput``s that
any channel may answer once; the answers go back to the CLI.

Routing, the timeout (always a deny), withdrawal when a turn is interrupted or the
process ends, "allow for the rest of the session", publishing and auditing all live here.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cctui.claude.frames import PermissionAnswer, PermissionAsk
from cctui.claude.transcripts import PLAN_WRITERS, read_plan
from cctui.core import inputs
from cctui.core.allow import call_detail, call_key, session_allowance
from cctui.core.events import InputRequestedEvent, InputResolvedEvent
from cctui.core.pending import Decision, PendingInput, Resolution, await_resolution
from cctui.core.states import SessionStatus
from cctui.errors import InputAlreadyAnswered, InputNotFound

if TYPE_CHECKING:
    from cctui.core.session import Session

S = SessionStatus
# decided_by values that mean "nobody decided: the question went away".
WITHDRAWN_BY = ("session-ended", "interrupted")


class InputDesk:
    """Opens, awaits, answers and records the pending inputs of one session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.items: dict[str, PendingInput] = {}
        """Open inputs of this session, by id (for the audit record when they close)."""
        self.allowed_calls: set[str] = set()
        """Exact calls (tool + input) allowed for the rest of the live process ("A" on an
        ask with no usable CLI rule); forgotten when the process ends."""
        self.denied: set[str] = set()
        """tool_use ids we denied, so their outcome reads ``denied``, not ``failed``."""

    async def ask(self, ask: PermissionAsk) -> PermissionAnswer:
        """The driver's permission callback: open a pending input and await its answer."""
        session, host = self.session, self.session.host
        if call_key(ask.tool_name, ask.input) in self.allowed_calls:
            host.audit.decision(
                session_id=session.id,
                input_id="-",
                tool=ask.tool_name,
                kind="permission",
                decision="allow",
                decided_by="always-allow",
                detail=call_detail(ask.tool_name, ask.input),
            )
            return PermissionAnswer(allow=True, updated_input=dict(ask.input))
        timeout_s = host.settings.permission_timeout_ms / 1000
        plan = await self._find_plan(ask) if ask.tool_name == inputs.PLAN_TOOL else None
        item = inputs.build_input(session.id, ask, plan).model_copy(
            update={"expires_at": datetime.fromtimestamp(time.time() + timeout_s, UTC)}
        )
        item = host.route(item)
        future = host.pending_inputs.open(item)
        self.items[item.id] = item
        session.set_status(S.WAITING_FOR_INPUT)
        session.publish(InputRequestedEvent(session_id=session.id, input=item))
        timeout_deny = Decision(
            behavior="deny", message=f"No answer within {timeout_s:g} s; denied."
        )
        try:
            resolution = await await_resolution(
                future,
                timeout_s,
                on_timeout=lambda: self.resolve(item.id, timeout_deny, "timeout"),
                # Cancelled: the CLI withdrew the request (interrupt) or the process is going.
                on_cancel=lambda: self.resolve(
                    item.id, Decision(behavior="deny", message="Cancelled."), "interrupted"
                ),
            )
        finally:
            if session.status == S.WAITING_FOR_INPUT and not host.pending_inputs.list(session.id):
                session.set_status(S.RUNNING if session.process.alive else session.status)
        decision = resolution.decision
        rules: tuple[int, ...] = ()
        if decision.behavior == "allow" and decision.always and item.kind == "permission":
            # The CLI keeps its own (narrow) rules for this process; without one, only this
            # exact call is remembered. Never the whole tool: that would allow any Bash
            # command after one was approved.
            allowance = session_allowance(ask.tool_name, ask.input, ask.suggestions)
            rules = allowance.suggestions
            if allowance.exact:
                self.allowed_calls.add(call_key(ask.tool_name, ask.input))
        if decision.behavior == "deny" and ask.tool_use_id:
            self.denied.add(ask.tool_use_id)
        return inputs.to_answer(item, decision, rules)

    async def _find_plan(self, ask: PermissionAsk) -> str | None:
        """The plan: the ask's own input, the model's ExitPlanMode call, or the plan file
        this session wrote (the path the CLI's plan-mode reminder named; never the newest
        file of the shared plans directory, which may be another session's)."""
        if isinstance(ask.input.get("plan"), str):
            return str(ask.input["plan"])
        for _ in range(10):  # the tool_use frame may trail the ask by a few ms
            call = self.session.translator.tools.get(ask.tool_use_id or "")
            if call is not None:
                if isinstance(call.input.get("plan"), str):
                    return str(call.input["plan"])
                break
            await asyncio.sleep(0.02)
        config_dir = self.session.host.settings.claude_config_dir
        for call in reversed(list(self.session.translator.tools.values())):
            path = call.input.get("file_path")
            if call.name in PLAN_WRITERS and isinstance(path, str):
                plan = read_plan(config_dir, path)
                if plan is not None:
                    return plan
        return None

    def resolve(self, input_id: str, decision: Decision, decided_by: str) -> Resolution:
        """Answer an input of this session (first answer wins), publish and audit it."""
        session = self.session
        resolution = session.host.pending_inputs.resolve(input_id, decision, decided_by)
        self.record(resolution)
        if (
            session.status == S.WAITING_FOR_INPUT
            and session.process.alive
            and not session.host.pending_inputs.list(session.id)
        ):
            session.set_status(S.RUNNING)  # at once: whoever answered reads "running" back
        return resolution

    def record(self, res: Resolution) -> None:
        item = self.items.pop(res.input_id, None)
        withdrawn = res.decided_by in WITHDRAWN_BY
        verdict = "withdrawn" if withdrawn else res.decision.behavior
        self.session.publish(
            InputResolvedEvent(
                session_id=self.session.id,
                input_id=res.input_id,
                decision=verdict,
                decided_by=res.decided_by,
                message=res.decision.message,
            )
        )
        self.session.host.audit.decision(
            session_id=self.session.id,
            input_id=res.input_id,
            tool=item.tool_name if item else "",
            kind=item.kind if item else "",
            decision=verdict,
            decided_by=res.decided_by,
            message=res.decision.message,
            detail=call_detail(item.tool_name, item.tool_input) if item else "",
            always=res.decision.always and res.decision.behavior == "allow",
        )

    def forget_allowances(self) -> None:
        """The process ended: what "allow for the session" allowed is gone with it."""
        self.allowed_calls.clear()

    def withdraw(self, decided_by: str) -> None:
        """Close every open input of the session without an answer (interrupt, exit)."""
        message = (
            "Interrupted."
            if decided_by == "interrupted"
            else "The session ended before this was answered."
        )
        for item in self.session.host.pending_inputs.list(self.session.id):
            with contextlib.suppress(InputAlreadyAnswered, InputNotFound):
                self.resolve(item.id, Decision(behavior="deny", message=message), decided_by)
