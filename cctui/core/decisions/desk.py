"""One session's desk: the driver's permission asks become ``PendingInput``s that any
channel may answer once; the answers go back to the CLI.

The timeout (always a deny), withdrawal when a turn is interrupted or the process ends,
"allow for the rest of the session", publishing and auditing live here; the router
(``routing.py``) says who is asked first.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from cctui.claude.frames import PermissionAnswer, PermissionAsk
from cctui.claude.transcripts import PLAN_WRITERS, read_plan
from cctui.config import Settings
from cctui.core.audit import AuditLog
from cctui.core.decisions import requests
from cctui.core.decisions.allowances import (
    ProjectAllowance,
    call_detail,
    call_key,
    project_allowance,
    session_allowance,
)
from cctui.core.decisions.registry import PendingInputs, await_resolution
from cctui.core.decisions.requests import Decision, PendingInput, Resolution
from cctui.core.decisions.routing import Router
from cctui.core.events import InputRequestedEvent, InputResolvedEvent, ToolUseEvent
from cctui.core.rules import local_settings_file
from cctui.core.session_state import SessionState
from cctui.core.states import SessionStatus
from cctui.errors import InputAlreadyAnswered, InputNotFound

S = SessionStatus
# decided_by values that mean "nobody decided: the question went away".
WITHDRAWN_BY = ("session-ended", "interrupted")


class InputDesk:
    """Opens, awaits, answers and records the pending inputs of one session."""

    def __init__(
        self,
        state: SessionState,
        *,
        inputs: PendingInputs,
        router: Router,
        audit: AuditLog,
        settings: Settings,
        tools: Mapping[str, ToolUseEvent],
        alive: Callable[[], bool],
        on_denied: Callable[[str], None],
        cwd: Path,
    ) -> None:
        """``tools``: the session's recent tool calls (where a plan may be found);
        ``alive``: whether its process runs; ``on_denied``: a tool use was denied; ``cwd``:
        the session's directory (whose repository's settings a project rule goes to)."""
        self._state = state
        self._inputs = inputs
        self._router = router
        self._audit = audit
        self._settings = settings
        self._tools = tools
        self._alive = alive
        self._on_denied = on_denied
        self._cwd = cwd
        self._settings_file: Path | None = None
        self.items: dict[str, PendingInput] = {}
        """Open inputs of this session, by id (for the audit record when they close)."""
        self.allowed_calls: set[str] = set()
        """Exact calls (tool + input) allowed for the rest of the live process ("A" on an
        ask with no usable CLI rule); forgotten when the process ends."""

    async def ask(self, ask: PermissionAsk) -> PermissionAnswer:
        """The driver's permission callback: open a pending input and await its answer."""
        state = self._state
        if call_key(ask.tool_name, ask.input) in self.allowed_calls:
            self._audit.decision(
                session_id=state.id,
                input_id="-",
                tool=ask.tool_name,
                kind="permission",
                decision="allow",
                decided_by="always-allow",
                detail=call_detail(ask.tool_name, ask.input),
            )
            return PermissionAnswer(allow=True, updated_input=dict(ask.input))
        timeout_s = self._settings.permission_timeout_ms / 1000
        plan = await self._find_plan(ask) if ask.tool_name == requests.PLAN_TOOL else None
        project = await self._project_allowance(ask)
        item = requests.from_ask(state.id, ask, plan, project).model_copy(
            update={"expires_at": datetime.fromtimestamp(time.time() + timeout_s, UTC)}
        )
        item = self._router.route(item)
        future = self._inputs.open(item)
        self.items[item.id] = item
        state.set_status(S.WAITING_FOR_INPUT)
        self.announce(item)
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
            if state.status == S.WAITING_FOR_INPUT and not self._inputs.list(state.id):
                state.set_status(S.RUNNING if self._alive() else state.status)
        decision = resolution.decision
        rules: tuple[int, ...] = ()
        persist: tuple[int, ...] = ()
        if (
            decision.behavior == "allow"
            and (decision.always or decision.for_project)
            and item.kind == "permission"
        ):
            # The CLI keeps its own (narrow) rules for this process; without one, only this
            # exact call is remembered. Never the whole tool: that would allow any Bash
            # command after one was approved.
            allowance = session_allowance(ask.tool_name, ask.input, ask.suggestions)
            rules = allowance.suggestions
            if decision.for_project and project is not None:
                # These go back for localSettings: the CLI writes them to the project.
                persist = project.suggestions
                rules = tuple(sorted({*rules, *persist}))
            elif allowance.exact:
                self.allowed_calls.add(call_key(ask.tool_name, ask.input))
        if decision.behavior == "deny" and ask.tool_use_id:
            self._on_denied(ask.tool_use_id)
        return requests.to_answer(item, decision, rules, persist)

    async def _project_allowance(self, ask: PermissionAsk) -> ProjectAllowance | None:
        """What allow-for-the-project would write; the settings file is looked up (a git
        call, off the loop) once per session, and only when some suggestion qualifies."""
        if requests.kind_of(ask.tool_name) != "permission":
            return None
        if project_allowance(ask.suggestions, self._cwd) is None:
            return None
        if self._settings_file is None:
            self._settings_file = await asyncio.to_thread(local_settings_file, self._cwd)
        return project_allowance(ask.suggestions, self._settings_file)

    async def _find_plan(self, ask: PermissionAsk) -> str | None:
        """The plan: the ask's own input, the model's ExitPlanMode call, or the plan file
        this session wrote (the path the CLI's plan-mode reminder named; never the newest
        file of the shared plans directory, which may be another session's)."""
        if isinstance(ask.input.get("plan"), str):
            return str(ask.input["plan"])
        for _ in range(10):  # the tool_use frame may trail the ask by a few ms
            call = self._tools.get(ask.tool_use_id or "")
            if call is not None:
                if isinstance(call.input.get("plan"), str):
                    return str(call.input["plan"])
                break
            await asyncio.sleep(0.02)
        config_dir = self._settings.claude_config_dir
        for call in reversed(list(self._tools.values())):
            path = call.input.get("file_path")
            if call.name in PLAN_WRITERS and isinstance(path, str):
                plan = read_plan(config_dir, path)
                if plan is not None:
                    return plan
        return None

    def resolve(self, input_id: str, decision: Decision, decided_by: str) -> Resolution:
        """Answer an input of this session (first answer wins), publish and audit it."""
        state = self._state
        resolution = self._inputs.resolve(input_id, decision, decided_by)
        self._router.done(input_id)  # whoever answered: nobody else is asked any more
        self.record(resolution)
        if (
            state.status == S.WAITING_FOR_INPUT
            and self._alive()
            and not self._inputs.list(state.id)
        ):
            state.set_status(S.RUNNING)  # at once: whoever answered reads "running" back
        return resolution

    def announce(self, item: PendingInput) -> None:
        """Publish an input in this session: new, or routed anew."""
        self._state.publish(InputRequestedEvent(session_id=self._state.id, input=item))

    def record(self, res: Resolution) -> None:
        """Publish and audit how an input of this session closed."""
        item = self.items.pop(res.input_id, None)
        withdrawn = res.decided_by in WITHDRAWN_BY
        verdict = "withdrawn" if withdrawn else res.decision.behavior
        self._state.publish(
            InputResolvedEvent(
                session_id=self._state.id,
                input_id=res.input_id,
                decision=verdict,
                decided_by=res.decided_by,
                message=res.decision.message,
            )
        )
        self._audit.decision(
            session_id=self._state.id,
            input_id=res.input_id,
            tool=item.tool_name if item else "",
            kind=item.kind if item else "",
            decision=verdict,
            decided_by=res.decided_by,
            message=res.decision.message,
            detail=call_detail(item.tool_name, item.tool_input) if item else "",
            always=res.decision.always and res.decision.behavior == "allow",
            project_rules=(
                item.project_rules
                if item and res.decision.for_project and res.decision.behavior == "allow"
                else ()
            ),
            project_file=item.project_file or "" if item else "",
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
        for item in self._inputs.list(self._state.id):
            with contextlib.suppress(InputAlreadyAnswered, InputNotFound):
                self.resolve(item.id, Decision(behavior="deny", message=message), decided_by)
