"""Decisions, as an MCP client sees them: an elicitation form and its wording, and what the
client can do (elicit mid-call, or only between rounds on 2026-07-28 connections).

Who is asked about an input, and until when, is the core's ``Router``
(``manager.decisions.router``); this module only translates an input into an elicitation
and the client's form back into a ``Decision``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from mcp.server.mcpserver import Context
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

from cctui.core import Decision, PendingInput, SessionManager
from cctui.core.policy.clients import CLIENT_KEY

MODERN = "2026-07-28"
ELICIT_TEXT_MAX = 20_000
"""Characters of tool input an elicitation message shows (more is said to be cut)."""


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


UNVERIFIED = " (unverified)"
"""Added to a declared name that is a registered client's: only its token makes it that."""


def client_label(ctx: Context[Any, Any]) -> str:
    """Who is calling: a registered client's name when the request carried its own token
    (``BearerAuth`` said so), else the name the client declared in its clientInfo (stable
    across 2026-07-28 retry rounds), marked unverified if a registered client has it."""
    verified = _verified_client(ctx)
    if verified is not None:
        return verified
    try:
        params = ctx.session.client_params
    except ValueError:  # no request (direct call)
        return "client"
    name = params.client_info.name if params is not None else ""
    label = (name or "client").strip()[:64]
    if label in _registered_names(ctx):
        label += UNVERIFIED
    return label


def _verified_client(ctx: Context[Any, Any]) -> str | None:
    try:
        request = ctx.request_context.request
    except ValueError:  # outside a request
        return None
    state = getattr(request, "scope", {}).get("state") if request is not None else None
    found = state.get(CLIENT_KEY) if isinstance(state, dict) else None
    return found if isinstance(found, str) else None


def _registered_names(ctx: Context[Any, Any]) -> frozenset[str]:
    try:
        manager = getattr(ctx.mcp_server, "manager", None)
    except ValueError:
        return frozenset()
    if not isinstance(manager, SessionManager):
        return frozenset()
    clients = manager.decisions.ladder.clients
    return clients.names() if clients is not None else frozenset()


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
