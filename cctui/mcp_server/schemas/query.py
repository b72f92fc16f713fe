"""What ``claude_query`` returns: the run's messages and seed 003's result."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cctui.mcp_server.schemas.common import Out
from cctui.mcp_server.schemas.sessions import PendingInputOut


class QueryResult(Out):
    """Seed 003's ``result`` object."""

    success: bool
    summary: str
    """The run's final text."""
    error: str | None = None


class QueryOut(Out):
    """``claude_query``: the run's messages (the last ``maxMessages``) and its result.

    Seed 003's ``{sessionId, messages, executionTime, usage, result: {success, summary,
    error}}``; ``success``/``error``/``text`` repeat the result flat.
    """

    session_id: str
    messages: list[dict[str, Any]]
    """The SDK's message objects (``type`` assistant | user | result | system, with
    ``message.content`` blocks; the result's ``subtype``), in the SDK's own field names;
    cctui's ``seq``, ``kind``, ``text`` and ``timestamp`` ride along."""
    total_messages: int
    truncated: bool
    execution_time: int
    """Milliseconds (seed 003's name); ``executionTimeMs`` is the same."""
    execution_time_ms: int
    api_retries: int = 0
    """Seed 003's retries of transient API failures: how many times the CLI retried a
    request, each after an exponential back-off (each is a ``system``/``api_retry``
    message with its attempt, delay and error)."""
    timed_out: bool = False
    """Seed 003's timeout indication: maxTimeMs stopped the run; ``messages`` and
    ``result`` hold the partial results."""
    result: QueryResult
    success: bool
    text: str | None = None
    """The run's final text (``result.summary``)."""
    error: str | None = None
    cost_usd: float | None = None
    turn_count: int = 0
    usage: dict[str, Any] | None = None
    """Seed 003: the CLI's token usage for the run (input/output/cache tokens); null when
    the run ended without a result."""
    pending_inputs: list[PendingInputOut] = Field(default_factory=list)
