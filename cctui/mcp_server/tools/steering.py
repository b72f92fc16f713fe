"""Mode and model tools: steer a session, live or for its next start (``core.steering``).

No ``from __future__ import annotations``: the SDK reads the evaluated annotations.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from cctui.core import SessionManager
from cctui.mcp_server.schemas.common import WRITE, SessionId
from cctui.mcp_server.schemas.steering import ModelOut, SettingOut


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add ``claude_set_permission_mode`` and ``claude_set_model`` to ``server``."""

    @server.tool(annotations=WRITE)
    async def claude_set_permission_mode(
        sessionId: SessionId,
        mode: Annotated[
            Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"],
            Field(
                description="plan: plan first, ask for a plan review; acceptEdits: file edits "
                "without asking; default: ask; dontAsk: deny what no rule allows; auto: a "
                "classifier decides; bypassPermissions: only for a session started with "
                "dangerouslySkipPermissions"
            ),
        ],
    ) -> SettingOut:
        """Switch a Claude Code session's permission mode, also mid-turn (like shift+tab).

        A live session switches at once (claude confirms it); an ended one resumes in the
        mode. A resume or a restart of cctui keeps it. What claude refuses comes back as an
        error in claude's words (setting_refused) with a suggestion.
        """
        return SettingOut.of(await manager.set_permission_mode(sessionId, mode))

    @server.tool(annotations=WRITE)
    async def claude_set_model(
        sessionId: SessionId,
        model: Annotated[
            str | None,
            Field(
                max_length=200,
                description="An alias ('opus', 'sonnet', 'haiku'), a full model id, or null "
                "(or 'default') for claude's default",
            ),
        ],
    ) -> SettingOut:
        """Switch a Claude Code session's model, also mid-turn (its next API request uses it).

        An ended session resumes with it; a resume or a restart of cctui keeps it. A model
        claude cannot use is refused (setting_refused, claude's words). The answer lists the
        models claude offers.
        """
        change = await manager.set_model(sessionId, model)
        models = [
            ModelOut(value=m.value, display_name=m.display_name, description=m.description)
            for m in manager.models(sessionId)
        ]
        return SettingOut.of(change, models)
