"""Telling a caller how a long call goes: one progress notification, and for the seeds
whose clients read the log channel (003's ``claude-code/messages``, 004's
``claude-code/output``) one log message with it.

Every long tool sends through ``notify``: the waits' heartbeat, claude_query's messages,
invoke_claude_code's progress lines, the reviews' steps and seed 004's output chunks.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPDeprecationWarning


async def notify(
    ctx: Context[Any, Any],
    sequence: int,
    message: str,
    *,
    logger: str | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Progress ``sequence`` saying ``message`` (nothing for a client that sent no progress
    token), and ``data`` as an info log message from ``logger`` when both are given.

    A client gone mid-call ends nothing: a failed send is dropped, the run goes on.
    """
    with contextlib.suppress(Exception):
        await ctx.report_progress(sequence, None, message)
        if logger is not None and data is not None:
            # The SDK deprecates server log messages; seed 003's and 004's clients read them.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await ctx.log("info", data, logger_name=logger)
