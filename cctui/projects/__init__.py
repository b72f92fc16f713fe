"""Projects (seed 000): the registry, safe file access inside a root, session state, trees.

Sits on ``cctui.core`` (no textual, no mcp): a task in a project (``tasks``) is a
supervised session run (``cctui.core.runs``); the core knows nothing of projects.
"""

from cctui.projects.registry import Project, ProjectRegistry
from cctui.projects.service import ProjectService, ProjectStatus, ago
from cctui.projects.state import Checkpoint, ProjectState, TaskRecord

__all__ = [
    "Checkpoint",
    "Project",
    "ProjectRegistry",
    "ProjectService",
    "ProjectState",
    "ProjectStatus",
    "TaskRecord",
    "ago",
]
