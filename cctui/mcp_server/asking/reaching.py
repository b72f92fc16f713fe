"""Asking a client between its calls (seed 002's Flow A).

A client that created a session and then only polls ``claude_get_status`` has no call in
flight when the session needs a decision. Where its connection lets the server send a
request of its own (stdio; Streamable HTTP with the standalone GET stream; both only in the
2025-11-25 handshake era, since 2026-07-28 forbids server-initiated requests), the
connection kept from the client's last call carries an ``elicitation/create`` with no
related request. Who is asked, and what happens when the client cannot decide, is the
core's ``Router``; this module only turns an input into that request and its answer back.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.elicitation import AcceptedElicitation, elicit_with_validation
from mcp.server.mcpserver import Context

from cctui.core import Decision, PendingInput, Router
from cctui.mcp_server.asking.decisions import (
    DecisionForm,
    can_elicit,
    client_label,
    form_to_decision,
    is_modern,
    question_text,
)

PING_S = 5.0
"""How long a reachability ping may take: over Streamable HTTP without a standalone GET
stream the server's request goes nowhere, and the human should not wait the full bound."""


def keep_reachable(router: Router, ctx: Context[Any, Any]) -> None:
    """Remember how to ask this client between calls, if its connection allows it."""
    if not can_elicit(ctx) or is_modern(ctx):
        return
    try:
        session = ctx.session
    except ValueError:  # a direct call, no connection
        return

    async def ask(item: PendingInput) -> Decision | None:
        with anyio.fail_after(PING_S):
            await session.send_ping()  # no standalone channel: fails here, fast
        result = await elicit_with_validation(session, question_text(item), DecisionForm)
        if isinstance(result, AcceptedElicitation) and isinstance(result.data, DecisionForm):
            return form_to_decision(item, result.data)
        return None  # declined or cancelled

    label = client_label(ctx)
    router.reach(label, ask, f"mcp:{label}")
