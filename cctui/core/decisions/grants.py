"""A client asks to "always allow in this project": an agent must not silently widen a
repository's allow list.

The human at the TUI pressing ``P`` is trusted: the rule goes back to the CLI for
``localSettings`` and the CLI writes it. A client (an MCP agent) asking the same
(``claude_respond`` with ``allowForProject``) gets, in this order:

- ``sent``: the configuration lets clients persist rules (``mcp_may_persist_rules``), so
  it is treated as ``P``;
- ``awaiting_confirmation``: a human is at the TUI; the call is allowed for the session now
  (the agent is not held up), and the human is asked whether the rule goes into the file; on
  yes cctui adds it there (atomically, with a backup), on no or silence it does not;
- ``session_only``: nobody could confirm it; allowed for the session, and the answer says why;
- ``not_offered``: Claude Code suggested no rule that may be kept (a whole tool, a mode, a
  directory); allowed for the session.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from cctui.core.audit import AuditLog
from cctui.core.rules import add_rule
from cctui.core.session.inputs import PendingInput

log = logging.getLogger(__name__)

WRITE = "write the rule"
SESSION_ONLY = "this session only"

Confirm = Callable[..., Awaitable[tuple[str, str]]]
"""``Decisions.confirm``: ask the human to pick one of a few choices."""


class ProjectGrant(BaseModel):
    """What became of a client's request to always allow something in the project."""

    model_config = ConfigDict(defer_build=True)

    status: Literal["sent", "awaiting_confirmation", "session_only", "not_offered"]
    rules: tuple[str, ...] = ()
    file: str | None = None
    note: str
    """One sentence for the client: what was (or will be) written where, or why not."""


def plan(item: PendingInput, *, may_persist: bool, human: bool, client: str) -> ProjectGrant:
    """What to do with ``client``'s request on ``item`` (see the module docstring)."""
    rules, file = item.project_rules, item.project_file
    shown = ", ".join(rules)
    if not rules or file is None:
        return ProjectGrant(
            status="not_offered",
            note="Claude Code suggested no rule that may be kept for the project (only a "
            "rule with a command or path pattern is); allowed for this session.",
        )
    if may_persist:
        return ProjectGrant(
            status="sent",
            rules=rules,
            file=file,
            note=f"Sent back for the project: claude writes {shown} to {file}.",
        )
    if human:
        return ProjectGrant(
            status="awaiting_confirmation",
            rules=rules,
            file=file,
            note=f"Allowed for this session. Writing {shown} to {file} waits for the human "
            "at cctui to confirm it (an MCP client may not widen a project's allow list "
            "alone).",
        )
    return ProjectGrant(
        status="session_only",
        rules=rules,
        file=file,
        note=f"Allowed for this session only; {shown} was not written to {file}: an MCP "
        "client may not widen a project's allow list without the human at cctui confirming "
        "it, and no cctui TUI is running (or set mcp_may_persist_rules = true).",
    )


async def confirm_and_write(
    grant: ProjectGrant,
    item: PendingInput,
    *,
    client: str,
    confirm: Confirm,
    audit: AuditLog,
) -> bool:
    """Ask the human whether ``grant``'s rules go into its file; write them on yes.

    Returns whether they were written. Never raises: this runs in the background.
    """
    shown = ", ".join(grant.rules)
    try:
        project = Path(grant.file).parent.parent.name if grant.file else "?"
        choice, by = await confirm(
            f"project:{project}",
            "Always allow in this project?",
            f"The MCP client {client!r} asks to always allow {shown} in this project "
            f"(session {item.session_id[:8]}). Add it to {grant.file}? It is allowed for the "
            "session already.",
            (WRITE, SESSION_ONLY),
            cancel=SESSION_ONLY,
        )
        if choice != WRITE or grant.file is None:
            return False
        for rule in grant.rules:
            change = await asyncio.to_thread(add_rule, Path(grant.file), rule)
            if change.changed:
                audit.rule_change(
                    action="add",
                    rule=rule,
                    behavior="allow",
                    file=grant.file,
                    by=by,
                    reason=f"asked by mcp:{client}",
                )
        return True
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("writing the project rule %s to %s failed", shown, grant.file)
        return False
