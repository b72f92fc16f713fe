"""What the policy page shows for one session: read by the core, drawn by the TUI."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from cctui.core.policy.clients import ClientRecord
from cctui.core.policy.ladder import BreakerState, Ladder
from cctui.core.policy.load import InForce


class PolicyView(BaseModel):
    """The authority ladder in force for a directory and, given one, a session."""

    model_config = ConfigDict(defer_build=True)

    force: InForce
    """The policy files merged for the directory, and where each rule came from."""
    clients: list[ClientRecord]
    """The registered clients (their token digests left out)."""
    breaker: BreakerState | None
    """The session's breaker, None without a session."""
    human_s: float
    """How long an input waits for the human before it is denied."""


async def read_view(
    ladder: Ladder, directory: Path, session_id: str | None, timeout_s: float
) -> PolicyView:
    """Read the policy files (off the loop) for ``directory``; ``timeout_s`` is the
    permission timeout the policy's own ``human_s`` overrides."""
    force = await asyncio.to_thread(ladder.in_force, directory)
    clients = await asyncio.to_thread(ladder.clients.records) if ladder.clients else []
    return PolicyView(
        force=force,
        clients=[c.model_copy(update={"token_sha256": ""}) for c in clients],
        breaker=ladder.breaker(session_id) if session_id else None,
        human_s=force.policy.timeouts.human_s or timeout_s,
    )
