"""``cctui_attach_window``: a cctui window attached to this one counts as its human.

Internal (left out of ``tools/list``): the window of ``cctui`` started beside a running owner
calls it again and again. While a call lasts, and for ``LEASE_S`` after it returns (the next
call overlaps), the owner has a human attached: inputs that fall back to "the human" are
routed there (inputs that waited for nobody are announced again), and the attached window
pops them as modals. The first answer wins, by ``claude_respond``, as for every channel.
"""

from __future__ import annotations

import asyncio
import os
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui import __version__
from cctui.core import SessionManager

TOOL = "cctui_attach_window"
LEASE_S = 15.0
"""How long a window still counts after its last call returned: the next call starts
before this runs out, so the human never drops out between two calls."""

WINDOW = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add the internal ``cctui_attach_window``."""

    @server.tool(name=TOOL, annotations=WINDOW)
    async def cctui_attach_window(
        holdSeconds: Annotated[  # noqa: N803 -- the wire's camelCase
            float, Field(ge=0, le=50, description="How long this call holds the window")
        ] = 30.0,
    ) -> dict[str, Any]:
        """Internal: a cctui window attached to this cctui is its human while it calls."""
        detach = manager.decisions.attach_human()
        loop = asyncio.get_running_loop()
        try:
            await asyncio.sleep(holdSeconds)
        finally:
            loop.call_later(LEASE_S, detach)
        return {"pid": os.getpid(), "version": __version__}
