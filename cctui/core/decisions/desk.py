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
from typing import Any, Literal

from cctui import paths
from cctui.claude.frames import (
    DENIED_IN_RESULT,
    PermissionAnswer,
    PermissionAsk,
    PermissionDenied,
    ToolAbout,
)
from cctui.claude.oneshot import ask_once
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
from cctui.core.decisions.pending import PendingInputs, await_resolution
from cctui.core.decisions.routing import Router
from cctui.core.policy import Ladder, Policy, PolicyStore, Verdict, judge
from cctui.core.policy.patterns import replay_input
from cctui.core.rules import local_settings_file
from cctui.core.session.events import InputRequestedEvent, InputResolvedEvent, ToolUseEvent
from cctui.core.session.inputs import Decision, PendingInput, Resolution
from cctui.core.session.session_state import SessionState
from cctui.core.session.states import SessionStatus
from cctui.errors import CctuiError, InputAlreadyAnswered, InputNotFound

S = SessionStatus
# decided_by values that mean "nobody decided: the question went away".
WITHDRAWN_BY = ("session-ended", "interrupted")
_CLI_REFUSALS = {
    DENIED_IN_RESULT: "refused by Claude Code's settings (a path deny rule, or a hook)",
    "mode": "refused by the session's dontAsk mode (it asks nobody)",
}
"""Why the CLI refused a call itself, by the refusal's ``reason_type``, when it is not one
of cctui's hard denies; any other type is a deny rule in Claude Code's settings."""


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
        ladder: Ladder | None = None,
    ) -> None:
        """``tools``: the session's recent tool calls (where a plan may be found);
        ``alive``: whether its process runs; ``on_denied``: a tool use was denied; ``cwd``:
        the session's directory (whose repository's settings a project rule goes to);
        ``ladder``: the policy's rules rung and breaker (None: a bare policy, built here)."""
        self._state = state
        self._inputs = inputs
        self._router = router
        self._audit = audit
        self._settings = settings
        self._tools = tools
        self._alive = alive
        self._on_denied = on_denied
        self._cwd = cwd
        self._ladder = ladder or Ladder(PolicyStore(None), home=str(paths.home()))
        self._settings_file: Path | None = None
        self.items: dict[str, PendingInput] = {}
        """Open inputs of this session, by id (for the audit record when they close)."""
        self.allowed_once: dict[str, str] = {}
        """Exact calls (tool + input) the human allowed once after auto mode refused them,
        and who: the next ask of that call is allowed at once, then forgotten."""
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
        once_by = self.allowed_once.pop(call_key(ask.tool_name, ask.input), None)
        if once_by is not None:
            return self._allowed_once(ask, once_by)
        kind = requests.kind_of(ask.tool_name)
        force = self._ladder.in_force(self._cwd)
        verdict = self._ladder.screen(state.id, kind, ask.tool_name, ask.input, self._cwd, force)
        if verdict is None and kind == "permission":
            verdict = await self._judge(ask, force.policy)
        if verdict is not None and verdict.behavior != "escalate":
            return self._decided_by_rules(ask, verdict, force.policy)
        escalation = verdict.reason if verdict is not None else None
        opened = self._ladder.breaker_open(state.id)
        if escalation is None and opened is not None:
            escalation = f"the breaker is open ({opened}): the human decides"
        timeouts = force.policy.timeouts
        if "delegate_s" in timeouts.model_fields_set:
            self._router.elicit_bound_s = timeouts.delegate_s
        timeout_s = timeouts.human_s or self._settings.permission_timeout_ms / 1000
        plan = await self._find_plan(ask) if ask.tool_name == requests.PLAN_TOOL else None
        project = await self._project_allowance(ask)
        item = requests.from_ask(state.id, ask, plan, project).model_copy(
            update={"expires_at": datetime.fromtimestamp(time.time() + timeout_s, UTC)}
        )
        if escalation is None:
            item = self._router.route(item)
        else:  # the ladder sends it straight to the human
            item = item.model_copy(
                update={"route": self._router.fallback(), "escalation": escalation}
            )
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

    async def guard(self, call: ToolAbout) -> str | None:
        """The session's ``PreToolUse`` check, before every tool call runs and in every
        permission mode: a hard deny or a policy deny rule refuses the call even where the
        CLI would not ask cctui (its own allow rules, acceptEdits, bypassPermissions, what
        auto mode's classifier allows). Published and audited like the rules rung's
        refusal; returns what the model is told, or None."""
        if requests.kind_of(call.tool_name) != "permission":
            return None
        force = self._ladder.in_force(self._cwd)
        # Writes outside the project are the CLI's to refuse (cli_limits): it knows which
        # of its own files (plans, scratchpad, memory) a session may write out there.
        verdict = self._ladder.refusal(
            force, call.tool_name, call.input, self._cwd, writes_outside=False
        )
        if verdict is None:
            return None
        self._ladder.count(self._state.id, verdict, force.policy)
        message = refusal_message(verdict)
        self._decided_at_once(
            call.tool_name, call.input, verdict, decided_by="policy", message=message
        )
        if call.tool_use_id:
            self._on_denied(call.tool_use_id)
        return message

    async def _judge(self, ask: PermissionAsk, policy: Policy) -> Verdict | None:
        """The judge rung (``policy.judge``): an allow within a class; None when it does
        not decide (not enabled, no class covers the call, the breaker is open, or it said
        ESCALATE: the delegates and the human come next); an ``escalate`` verdict straight
        to the human when it failed or ran out of time (a timeout never allows)."""
        classes = judge.candidates(
            policy,
            lambda rules: self._ladder.first_match(rules, ask.tool_name, ask.input, self._cwd),
        )
        if not classes or self._ladder.breaker_open(self._state.id) is not None:
            return None
        limit = policy.judge.timeout_s
        try:
            answer = await ask_once(
                judge.question(ask.tool_name, ask.input, str(self._cwd), classes),
                system_prompt=judge.SYSTEM_PROMPT,
                model=policy.judge.model,
                timeout_s=limit,
                cwd=self._settings.state_dir,
                cli_path=self._settings.claude_code_path,
            )
        except TimeoutError:
            return Verdict(
                behavior="escalate",
                rung="judge",
                reason=f"the judge did not answer within {limit:g} s: the human decides",
            )
        except CctuiError as exc:
            return Verdict(
                behavior="escalate",
                rung="judge",
                reason=f"the judge failed ({exc.message[:120]}): the human decides",
            )
        verdict = judge.read_verdict(answer, classes)
        return verdict if verdict.behavior == "allow" else None

    def _allowed_once(self, ask: PermissionAsk, by: str) -> PermissionAnswer:
        """The human allowed this exact call once (after auto mode refused it)."""
        why = Verdict(
            behavior="allow",
            rung="human",
            basis="allow once",
            reason="allowed once from the inbox after auto mode refused it",
        )
        self._decided_at_once(
            ask.tool_name,
            ask.input,
            why,
            decided_by=by,
            words="the human (allow once, after auto mode refused it)",
        )
        return PermissionAnswer(allow=True, updated_input=dict(ask.input))

    def refused(self, denial: PermissionDenied, tool_input: dict[str, Any]) -> str | None:
        """The CLI refused a call without asking: published (the pane's tool line) and
        audited. Auto mode's refusal is counted by the breaker; a deny rule's (cctui's hard
        denies passed at launch, or Claude Code's own deny rules) is the policy working,
        and is not. Returns why the breaker is open, if it is now."""
        state = self._state
        force = self._ladder.in_force(self._cwd)
        if not denial.by_auto_mode:
            verdict = self._ladder.hard_denied(
                force, denial.tool_name, tool_input, self._cwd
            ) or Verdict(
                behavior="deny",
                rung="cli-rule",
                basis=denial.reason_type or "",
                reason=f"refused by Claude Code: {denial.reason}"
                if denial.reason_type == "other"  # e.g. a settings file while writes are held in
                else _CLI_REFUSALS.get(
                    denial.reason_type or "", "denied by a deny rule in Claude Code's settings"
                ),
            )
            self._decided_at_once(
                denial.tool_name,
                tool_input,
                verdict,
                decided_by="cli",
                message=denial.message,
            )
            return self._ladder.breaker_open(state.id)
        verdict = Verdict(
            behavior="deny",
            rung="auto-mode",
            basis=denial.reason_code or denial.reason_type or "",
            reason=f"denied by auto mode: {denial.reason}",
        )
        self._ladder.count(state.id, verdict, force.policy)
        self._decided_at_once(
            denial.tool_name,
            tool_input,
            verdict,
            decided_by="auto-mode",
            words=f"auto mode: {denial.reason}",
            message=denial.message,
        )
        return self._ladder.breaker_open(state.id)

    def _decided_at_once(
        self,
        tool: str,
        tool_input: dict[str, Any],
        verdict: Verdict,
        *,
        decided_by: str,
        words: str | None = None,
        message: str = "",
    ) -> None:
        """Publish (the pane's tool line) and audit a decision no pending input was opened
        for: a policy rule, auto mode's refusal, an allow-once."""
        behavior: Literal["allow", "deny"] = "allow" if verdict.behavior == "allow" else "deny"
        self._state.publish(
            InputResolvedEvent(
                session_id=self._state.id,
                input_id="-",
                decision=behavior,
                decided_by=decided_by,
                message=message,
                why=verdict.words() if words is None else words,
                tool_name=tool,
            )
        )
        self._audit.decision(
            session_id=self._state.id,
            input_id="-",
            tool=tool,
            kind="permission",
            decision=behavior,
            decided_by=decided_by,
            message=message,
            detail=call_detail(tool, tool_input),
            why=verdict,
            cwd=str(self._cwd),
            tool_input=replay_input(tool_input),
        )

    def _decided_by_rules(
        self, ask: PermissionAsk, verdict: Verdict, policy: Policy
    ) -> PermissionAnswer:
        """The policy (or the judge) decided at once: no pending input; published (for the
        pane's tool line), audited with its rung and rule, counted by the breaker."""
        state = self._state
        self._ladder.count(state.id, verdict, policy)
        allow = verdict.behavior == "allow"
        message = "" if allow else refusal_message(verdict)
        self._decided_at_once(
            ask.tool_name,
            ask.input,
            verdict,
            decided_by="judge" if verdict.rung == "judge" else "policy",
            message=message,
        )
        if not allow and ask.tool_use_id:
            self._on_denied(ask.tool_use_id)
        if allow:
            return PermissionAnswer(allow=True, updated_input=dict(ask.input))
        return PermissionAnswer(allow=False, message=message)

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

    def resolve(
        self, input_id: str, decision: Decision, decided_by: str, why: Verdict | None = None
    ) -> Resolution:
        """Answer an input of this session (first answer wins), publish and audit it."""
        state = self._state
        if why is None:
            why = _why(decided_by, decision.behavior)
        resolution = self._inputs.resolve(input_id, decision, decided_by, why)
        if decided_by == "tui":
            self._ladder.human_answered(state.id)  # the human decided: the breaker closes
        elif why is not None and why.rung == "delegate":
            # Every automated answer counts, a client's answer to a session it created too:
            # a driver approving its own session in a loop is what the breaker is for.
            self._ladder.count(state.id, why, self._ladder.in_force(self._cwd).policy)
        self._router.done(input_id)  # whoever answered: nobody else is asked any more
        self.record(resolution)
        if (
            state.status == S.WAITING_FOR_INPUT
            and self._alive()
            and not self._inputs.list(state.id)
        ):
            state.set_status(S.RUNNING)  # at once: whoever answered reads "running" back
        return resolution

    def cli_limits(self) -> tuple[tuple[str, ...], bool]:
        """What this session's CLI is launched with (every launch): the hard denies in force
        as deny rules, and whether it blocks writes outside its working directories."""
        cwd = self._cwd
        return self._ladder.cli_deny_rules(cwd), self._ladder.cli_blocks_writes_outside(cwd)

    @property
    def cwd(self) -> Path:
        """The session's directory (the project its policy and grants are read for)."""
        return self._cwd

    def move(self, cwd: Path) -> None:
        """The session moved (into the worktree the CLI made for it, or a resume elsewhere):
        its policy, grants, relative rules and "outside the project" are read for ``cwd``
        from now on (a worktree session writing into the main checkout is outside it)."""
        if cwd != self._cwd:
            self._cwd = cwd
            self._settings_file = None

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
                why=res.why.words() if res.why is not None and res.why.rung != "human" else "",
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
            why=res.why,
            cwd=str(self._cwd),
            tool_input=replay_input(item.tool_input)
            if item and item.kind == "permission"
            else None,
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


def refusal_message(verdict: Verdict) -> str:
    """What the model is told when cctui's policy refuses its call."""
    if verdict.rung == "hard-deny":
        return (
            f"Denied by cctui's policy: {verdict.reason}. Only the user can change this, in "
            "the policy file; do not try to reach the same result another way."
        )
    return f"Denied by cctui's policy: {verdict.reason}."


def _why(decided_by: str, behavior: Literal["allow", "deny"]) -> Verdict | None:
    """The rung of an answer that came without a verdict (the human, the timeout)."""
    if decided_by == "tui":
        return Verdict(behavior=behavior, rung="human", reason="the human at cctui")
    if decided_by == "timeout":
        return Verdict(behavior="deny", rung="timeout", reason="nobody answered in time")
    return None
