"""Settling an existing file or a taken project id: ask the client, else the human, else fail.

One resolver body for ``write_to_project`` and ``register_project``: elicitation when the
client supports it (``Elicit`` works on both protocol eras), else a ``confirmation`` input
for the human at the TUI (``SessionManager.confirm``), else the given structured error.
"""

from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult
from pydantic import BaseModel

from cctui.core import SessionManager
from cctui.errors import CctuiError
from cctui.mcp_server.decisions import can_elicit


@dataclass
class NoQuestion:
    """A resolver's "nothing to ask this round" (the session tools' and the project tools')."""


@dataclass
class Chosen:
    """The human (TUI) answered a confirmation."""

    choice: str
    decided_by: str


def choice_of(answer: ElicitationResult[Any]) -> tuple[str | None, str | None]:
    """``(choice, decided_by)`` from a resolver outcome; ``(None, None)`` when nobody was asked."""
    if isinstance(answer, AcceptedElicitation):
        data = answer.data
        if isinstance(data, NoQuestion):
            return None, None
        if isinstance(data, Chosen):
            return data.choice, data.decided_by
        if isinstance(data, BaseModel):
            return str(getattr(data, "choice", "cancel")), None
    return "cancel", None  # declined or cancelled the form


async def ask_or_refuse(
    ctx: Context,
    manager: SessionManager,
    *,
    subject: str,
    title: str,
    message: str,
    form: type[BaseModel],
    choices: tuple[str, ...],
    refuse: CctuiError,
) -> Any:
    """The shared resolver body: elicit, else ask the human, else raise ``refuse``."""
    if can_elicit(ctx):
        return Elicit(message, form)
    if manager.human_attached:
        choice, by = await manager.confirm(subject, title, message, choices)
        return Chosen(choice, by)
    raise refuse
