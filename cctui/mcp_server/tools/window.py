"""``cctui_attach_window``, ``cctui_answer_as_window`` and ``cctui_window_call``: a cctui
window attached to this one is its human, and its keys run on this one's core.

Internal (left out of ``tools/list``): the window of ``cctui`` started beside a running owner
calls it again and again. While a call lasts, and for ``LEASE_S`` after it returns (the next
call overlaps), the owner has a human attached: inputs that fall back to "the human" are
routed there (inputs that waited for nobody are announced again), and the attached window
pops them as modals. The first answer wins, by ``claude_respond``, as for every channel.
"""

from __future__ import annotations

import asyncio
import hmac
import os
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui import __version__
from cctui.config import Settings
from cctui.core import Decision, SessionManager
from cctui.core.calls import run_call
from cctui.errors import ValidationFailed
from cctui.owner import ANSWER_TOOL, ATTACH_TOOL, CALL_TOOL, window_key

LEASE_S = 15.0
"""How long a window still counts after its last call returned: the next call starts
before this runs out, so the human never drops out between two calls."""

CALL = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False
)
"""A window's call may change anything the window's keys change (finish a worktree...)."""
ANSWER = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
WINDOW = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)


def register(server: MCPServer, manager: SessionManager, settings: Settings) -> None:
    """Add the internal window tools (attach, answer as the window, a core call)."""
    expected = window_key(settings.state_dir, create=True) or ""

    def check(key: str) -> None:
        if not hmac.compare_digest(key.encode(), expected.encode()):
            raise ValidationFailed("Not a cctui window of this machine (wrong window key).")

    @server.tool(name=ATTACH_TOOL, annotations=WINDOW)
    async def cctui_attach_window(
        windowKey: Annotated[str, Field(max_length=200)],  # noqa: N803 -- wire camelCase
        holdSeconds: Annotated[  # noqa: N803
            float, Field(ge=0, le=50, description="How long this call holds the window")
        ] = 30.0,
    ) -> dict[str, Any]:
        """Internal: a cctui window attached to this cctui is its human while it calls."""
        check(windowKey)
        detach = manager.decisions.attach_human()
        loop = asyncio.get_running_loop()
        try:
            await asyncio.sleep(holdSeconds)
        finally:
            loop.call_later(LEASE_S, detach)
        return {"pid": os.getpid(), "version": __version__}

    @server.tool(name=ANSWER_TOOL, annotations=ANSWER)
    async def cctui_answer_as_window(
        windowKey: Annotated[str, Field(max_length=200)],  # noqa: N803 -- wire camelCase
        sessionId: Annotated[str, Field(max_length=200)],  # noqa: N803
        inputId: Annotated[str, Field(max_length=200)],  # noqa: N803
        decision: dict[str, Any],
        via: Annotated[
            str | None,
            Field(
                max_length=100,
                pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]*$",
                description="The window answering from another machine (its cctui's client "
                "name): decided_by is tui:VIA, so it knows its own answer from another's",
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Internal: the human at an attached window answers a pending input."""
        check(windowKey)
        try:
            parsed = Decision.model_validate(decision)
        except ValueError as exc:
            raise ValidationFailed(f"Not a decision: {exc}") from None
        by = f"tui:{via}" if via else "tui:window"
        done = manager.respond(inputId, parsed, decided_by=by, session_id=sessionId)
        return {"inputId": done.input_id, "decidedBy": done.decided_by}

    @server.tool(name=CALL_TOOL, annotations=CALL)
    async def cctui_window_call(
        windowKey: Annotated[str, Field(max_length=200)],  # noqa: N803 -- wire camelCase
        method: Annotated[str, Field(max_length=100)],
        arguments: dict[str, Any] | None = None,
        via: Annotated[
            str | None,
            Field(
                max_length=100,
                pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]*$",
                description="The window calling from another machine (its cctui's client "
                "name): the call is by tui:VIA",
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Internal: an attached window's key (diff, finish, mode, model, rules, rewind...)
        runs here, on this cctui's core: one ``CoreApi`` call (``cctui.core.calls``)."""
        check(windowKey)
        by = f"tui:{via}" if via else "tui:window"
        result = await run_call(manager, method, arguments or {}, by=by)
        return {"result": result}
