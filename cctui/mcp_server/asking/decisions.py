"""Who answers a session's decision: the MCP client waiting on it (by elicitation) or the human.

The router (installed with ``SessionManager.set_input_router``) sends an input to a client
when that client has a call in flight on the session and can ask its user right then.
Otherwise the human at the TUI gets it at once, and ``claude_respond`` always works. The
client that created or last drove a session (and declared elicitation) is still asked on
its next waiting call about inputs the human has not answered yet: both channels are open
and the first answer wins. A client that declines or cancels is never asked again for that
input (it stays with the human, ``route_to_human``), and the tool result says how to answer
it. A client-routed input left unanswered past a bound goes to the human too, so a silent
client can never hold a decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp.server.mcpserver import Context
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

from cctui.core import Decision, PendingInput, SessionManager
from cctui.errors import CctuiError

log = logging.getLogger(__name__)

MODERN = "2026-07-28"
ELICIT_TEXT_MAX = 20_000
"""Characters of tool input an elicitation message shows (more is said to be cut)."""
ELICIT_BOUND_S = 120.0
"""How long a client may take to answer an elicitation before the human gets the input."""


class DecisionForm(BaseModel):
    """The elicitation form (flat primitives only, as elicitation requires)."""

    decision: Literal["allow", "deny"] = Field(
        description="allow lets Claude go ahead (approves a plan); deny stops it"
    )
    reason: str = Field(
        default="", description="Shown to Claude: why it was denied, or feedback on a plan"
    )
    answer: str = Field(
        default="",
        description="For questions: the chosen option label ('Other: <text>' for your own "
        "answer); several questions: answers in order separated by ' | '",
    )


def client_label(ctx: Context[Any, Any]) -> str:
    """The client's name from its clientInfo (stable across 2026-07-28 retry rounds)."""
    try:
        params = ctx.session.client_params
    except ValueError:  # no request (direct call)
        return "client"
    name = params.client_info.name if params is not None else ""
    return (name or "client").strip()[:64]


def is_modern(ctx: Context[Any, Any]) -> bool:
    """True on 2026-07-28 connections, where a tool cannot ask mid-call."""
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, MODERN)


def can_elicit(ctx: Context[Any, Any]) -> bool:
    """The client declared form elicitation (a bare ``elicitation: {}`` counts)."""
    try:
        caps = ctx.client_capabilities
    except ValueError:
        return False
    el = caps.elicitation if caps is not None else None
    return el is not None and (el.form is not None or el.url is None)


def question_text(item: PendingInput) -> str:
    """The elicitation message, built only from the input so a retry words it identically."""
    head = f"Claude Code session {item.session_id}"
    if item.kind == "plan_review":
        body = f"{head} finished a plan. Approve it (allow) or send feedback (deny + reason):\n\n"
        body += item.plan or _fields(item)
    elif item.kind == "user_question":
        lines = [f"{head} asks:"]
        for q in item.questions:
            opts = ", ".join(o.label for o in q.options)
            lines.append(f"- {q.question}" + (f" (options: {opts})" if opts else ""))
        lines.append("Put your choice in 'answer' (several: separate with ' | ').")
        body = "\n".join(lines)
    else:
        what = f" ({item.description})" if item.description else ""
        body = f"{head} wants to use {item.tool_name}{what}:\n{_fields(item)}"
    return f"{body}\n[input {item.id}]"


def _fields(item: PendingInput) -> str:
    """Every field of the tool input, one per line (strings as they are, the rest as JSON);
    past ``ELICIT_TEXT_MAX`` characters the text says what was cut and where to read it."""
    lines = []
    for key, value in item.tool_input.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    text = "\n".join(lines) or "(no input)"
    if len(text) > ELICIT_TEXT_MAX:
        text = (
            text[:ELICIT_TEXT_MAX]
            + f"\n… (input truncated: {ELICIT_TEXT_MAX} of {len(text)} characters shown; "
            f'claude_get_status(sessionId="{item.session_id}") has it whole)'
        )
    return text


def form_to_decision(item: PendingInput, form: DecisionForm) -> Decision:
    """Turn the flat form into the core's Decision."""
    answers = None
    if item.kind == "user_question" and form.answer:
        parts = [p.strip() for p in form.answer.split(" | ")]
        answers = {q.question: parts[min(i, len(parts) - 1)] for i, q in enumerate(item.questions)}
    return Decision(behavior=form.decision, message=form.reason, answers=answers)


@dataclass
class _Waiter:
    label: str
    can_ask: bool


@dataclass
class DecisionBroker:
    """The router's state: who waits on which session, who was asked what."""

    manager: SessionManager
    elicit_bound_s: float = ELICIT_BOUND_S
    _waiters: dict[str, list[_Waiter]] = field(default_factory=dict)
    _owners: dict[str, str] = field(default_factory=dict)
    _asked: dict[str, str] = field(default_factory=dict)
    _gave_up: set[str] = field(default_factory=set)
    _timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)

    def install(self) -> None:
        """Become the manager's input router."""
        self.manager.set_input_router(self.route)

    def route(self, item: PendingInput) -> str | None:
        """InputRouter: a client label to ask first, or None for the human."""
        for waiter in self._waiters.get(item.session_id, []):
            if waiter.can_ask:
                self._arm(item.id, self.elicit_bound_s)
                return waiter.label
        return None

    def note_owner(self, session_id: str, label: str, elicits: bool) -> None:
        """The client that creates or drives a session owns its decisions, if it can elicit."""
        if elicits:
            self._owners[session_id] = label
        elif self._owners.get(session_id) != label:
            self._owners.pop(session_id, None)

    @contextlib.contextmanager
    def waiting(self, session_id: str, label: str, can_ask: bool) -> Iterator[None]:
        """Mark a call in flight on ``session_id`` for the router."""
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

    def claim(self, pending: list[PendingInput], label: str) -> PendingInput | None:
        """The oldest input routed to ``label`` that it may still be asked about."""
        for item in pending:
            if item.id in self._gave_up:
                continue
            owner = self._owners.get(item.session_id) == label
            if (
                self._asked.get(item.id) == label
                or (item.route == "client" and item.route_label == label)
                or (item.route == "human" and owner)
            ):
                self._asked[item.id] = label
                self._arm(item.id, self.elicit_bound_s)
                return item
        return None

    def asked_open(self, session_id: str, label: str) -> PendingInput | None:
        """An open input this client was asked about (a 2026-07-28 retry answers it)."""
        for item in self.manager.pending(session_id):
            if self._asked.get(item.id) == label and item.id not in self._gave_up:
                return item
        return None

    def to_human(self, input_id: str) -> None:
        """The client could not decide: the human gets it, and the client is not asked again."""
        self._gave_up.add(input_id)
        self._disarm(input_id)
        routed_to_client = any(
            p.id == input_id and p.route == "client" for p in self.manager.pending()
        )
        if routed_to_client:  # the human may already have it (then it is on screen already)
            with contextlib.suppress(CctuiError):  # answered meanwhile: nothing to hand over
                self.manager.route_to_human(input_id)

    def done(self, input_id: str) -> None:
        """The input was answered."""
        self._disarm(input_id)
        self._asked.pop(input_id, None)

    def _arm(self, input_id: str, seconds: float) -> None:
        self._disarm(input_id)
        loop = asyncio.get_running_loop()
        self._timers[input_id] = loop.call_later(seconds, self._expire, input_id)

    def _disarm(self, input_id: str) -> None:
        timer = self._timers.pop(input_id, None)
        if timer is not None:
            timer.cancel()

    def _expire(self, input_id: str) -> None:
        self._timers.pop(input_id, None)
        if any(p.id == input_id for p in self.manager.pending()):
            log.info("input %s: no client answer in time, handing it to the human", input_id)
            self.to_human(input_id)
