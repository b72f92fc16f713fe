"""What every tool family shares, defined once: the output base, annotations, ids, timings."""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Out(BaseModel):
    """Base of every output model: camelCase on the wire."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
"""Reads cctui's or the machine's state; changes nothing."""
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
"""Writes within cctui's world (a project's files and state), never deletes."""
ACT = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=True)
"""Sets Claude Code to work: what it does next is open-ended."""
STOP = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False
)
"""Ends or interrupts a session; doing it twice is the same as once."""

SessionId = Annotated[str, Field(min_length=1, max_length=200, description="The session ID")]

MAX_WAIT_MS = 55_000
"""The ``claude_*`` waiting tools return before common client timeouts (60 s); call again to
go on. Seed 004's own tools wait as long as asked (``SEED_MAX_WAIT_MS``)."""
SEED_MAX_WAIT_MS = 86_400_000
"""Seed 004's ``timeout_ms`` has no maximum; a day bounds it. A wait past a client's request
timeout is kept alive by progress notifications (``asking.waiting.heartbeat``)."""
UNCLAIMED_TTL_S = 600.0
"""A run that ended between the rounds of a 2026-07-28 call keeps its result this long for
the caller's retry."""

HostName = Annotated[
    str | None,
    Field(
        max_length=100,
        description="Another machine: a [[hosts]] name in cctui's config; the call goes to "
        "that machine's cctui through the host's command (ssh), its session ids are that "
        "machine's. Default: this machine",
    ),
]
HOST_TOOLS = frozenset(
    {
        "claude_create_session",
        "claude_list_sessions",
        "claude_get_status",
        "claude_send_message",
        "claude_wait",
        "claude_respond",
    }
)
"""The tools that take ``host`` (``server.CctuiMCPServer`` sends such a call there)."""
