"""The MCP tools, resources and prompts: one module per family, each with a ``register()``.

``server.build_server`` calls each one, one line per family, for the groups it serves.
"""

from cctui.mcp_server.tools import (
    dispatch,
    follow,
    health,
    history,
    invoke,
    metrics,
    projects,
    prompts,
    query,
    resources,
    review,
    rewind,
    rules,
    seed004,
    sessions,
    steering,
    team,
    window,
    worktrees,
)

__all__ = [
    "dispatch",
    "follow",
    "health",
    "history",
    "invoke",
    "metrics",
    "projects",
    "prompts",
    "query",
    "resources",
    "review",
    "rewind",
    "rules",
    "seed004",
    "sessions",
    "steering",
    "team",
    "window",
    "worktrees",
]
