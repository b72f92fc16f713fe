"""Projects (seed 000): the registry, safe file access inside a root, session state, trees.

Sits beside ``cctui.core``: no textual, no mcp, and no sessions either; the MCP server
composes it with the session manager for ``invoke_claude_code``.
"""

from cctui.projects.registry import Project, ProjectRegistry
from cctui.projects.service import ProjectService, ProjectStatus, ago
from cctui.projects.state import Checkpoint, SessionState, TaskRecord

__all__ = [
    "Checkpoint",
    "Project",
    "ProjectRegistry",
    "ProjectService",
    "ProjectStatus",
    "SessionState",
    "TaskRecord",
    "ago",
]
