"""``claude_rewind_files``: a session's files back to how they were before one of its prompts.

Thin over ``SessionManager.rewind_files`` (``core/rewind.py`` has the rules and the
reasons a rewind is refused).
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui.core import SessionManager
from cctui.mcp_server.asking.decisions import client_label
from cctui.mcp_server.schemas.common import SessionId
from cctui.mcp_server.schemas.rewind import RewindOut

REWIND = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False
)
"""Overwrites files in the session's project; doing it twice is the same as once."""


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add ``claude_rewind_files`` to ``server``."""

    @server.tool(annotations=REWIND)
    async def claude_rewind_files(
        sessionId: SessionId,
        ctx: Context,
        userMessageId: Annotated[
            str | None,
            Field(
                max_length=100,
                description="The prompt's user message id (a UUID); or give promptIndex",
            ),
        ] = None,
        promptIndex: Annotated[
            int | None,
            Field(
                ge=0,
                description="Which prompt, counting the session's prompts from 0: files go "
                "back to just before it was sent",
            ),
        ] = None,
        dryRun: Annotated[
            bool, Field(description="Only say which files would change, and by how many lines")
        ] = False,
    ) -> RewindOut:
        """Put a session's files back as they were just before one of its prompts.

        Works for sessions cctui started with file checkpointing (its default). Only files
        Claude wrote with its edit tools are restored; the conversation is not rewound. Call
        with dryRun first to see the files and line counts. An ended session is resumed for
        the rewind and ended again.
        """
        result = await manager.rewind_files(
            sessionId,
            prompt_id=userMessageId,
            prompt_index=promptIndex,
            dry_run=dryRun,
            by=f"mcp:{client_label(ctx)}",
        )
        return RewindOut.of(result, manager.get(sessionId).config.cwd)
