"""Permission-rule tools: the allow, deny and ask rules in force for a project or
directory, and removing one (``core.rules``; the file is rewritten atomically, a backup
kept).

No ``from __future__ import annotations``: the SDK reads the evaluated annotations.
"""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from pathlib import Path
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui.core import SessionManager
from cctui.core.launch import check_cwd, resolve_dir
from cctui.errors import ValidationFailed
from cctui.mcp_server.asking.decisions import client_label
from cctui.mcp_server.schemas.common import READ
from cctui.mcp_server.schemas.rules import RuleRemovedOut, RulesOut
from cctui.projects import ProjectRegistry

REMOVE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False
)
"""Deletes something (a rule; its file is kept as a backup)."""

ProjectIdArg = Annotated[
    str | None, Field(max_length=64, description="A registered project's ID (or give cwd)")
]
CwdArg = Annotated[
    str | None, Field(max_length=4096, description="A directory (or give projectId)")
]


def register(server: MCPServer, manager: SessionManager, registry: ProjectRegistry) -> None:
    """Add ``claude_list_rules`` and ``claude_remove_rule`` to ``server``."""

    def directory(projectId: str | None, cwd: str | None) -> Path:
        if (projectId is None) == (cwd is None):
            raise ValidationFailed(
                "Give either projectId or cwd.",
                suggestion="list_projects lists the project IDs.",
            )
        if projectId is not None:
            return registry.get(projectId).root.resolve()
        where = resolve_dir(cwd or "")
        check_cwd(where)
        return where

    @server.tool(annotations=READ)
    async def claude_list_rules(projectId: ProjectIdArg = None, cwd: CwdArg = None) -> RulesOut:
        """The permission rules in force for a project or directory, each with its source.

        From the managed, user (~/.claude/settings.json), project (.claude/settings.json)
        and local (the repository root's .claude/settings.local.json, where "always allow in
        this project" writes) settings files.
        """
        return RulesOut.of(await manager.rules_for(directory(projectId, cwd)))

    @server.tool(annotations=REMOVE)
    async def claude_remove_rule(
        ctx: Context,
        rule: Annotated[
            str,
            Field(min_length=1, max_length=1000, description="As listed, e.g. 'Bash(npm test *)'"),
        ],
        source: Annotated[
            Literal["user", "project", "local"],
            Field(description="Which settings file holds it (claude_list_rules says)"),
        ],
        projectId: ProjectIdArg = None,
        cwd: CwdArg = None,
        behavior: Annotated[
            Literal["allow", "deny", "ask"] | None,
            Field(description="Which list it is in (default: whichever holds it)"),
        ] = None,
    ) -> RuleRemovedOut:
        """Remove one permission rule from a settings file of a project or directory.

        The file is rewritten atomically with every other key kept, and the old one is kept
        beside it (<name>.bak). Managed rules cannot be removed. New sessions follow the
        file; a running claude process may keep a rule it already loaded.
        """
        change = await manager.remove_rule(
            directory(projectId, cwd),
            rule,
            source=source,
            behavior=behavior,
            by=f"mcp:{client_label(ctx)}",
        )
        return RuleRemovedOut.of(change)
