"""The services both front ends share, built once by the composition root (``cli.py``).

The TUI and the MCP server see one session manager, one history index and one project
registry: a project registered through an MCP tool is in the TUI's project list, and a
session the TUI's watcher indexed is in ``claude_list_sessions``. Headless: no textual, no
mcp (an import contract says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.errors import CctuiError
from cctui.history import HistoryIndex
from cctui.projects import ProjectRegistry, ProjectService
from cctui.review import ReviewService
from cctui.review.documents import RootsProvider


@dataclass(frozen=True, kw_only=True)
class Services:
    """What cctui runs on, whichever front end asks."""

    manager: SessionManager
    """Every session cctui drives."""
    projects: ProjectService
    """The registered projects: their registry, files, session state and trees."""
    review: ReviewService
    """The review menu's fixed-prompt runs."""
    history: HistoryIndex | None = None
    """Claude Code's sessions on disk, kept live by a watcher (the TUI's). ``None`` under
    ``cctui serve``, which has no watcher: the history tools keep an index of their own and
    refresh it on each call."""

    @property
    def registry(self) -> ProjectRegistry:
        """The project registry (the project service's own: one cache, one file)."""
        return self.projects.registry

    @classmethod
    def build(
        cls,
        settings: Settings,
        manager: SessionManager,
        *,
        history: HistoryIndex | None = None,
        project_roots: RootsProvider | None = None,
    ) -> Services:
        """The services over ``manager``; ``project_roots`` replaces the registered projects'
        roots as the review tools' allowed places (tests)."""
        projects = ProjectService(settings.projects_file, keep=manager.keep)
        roots = project_roots or _registered_roots(projects.registry)
        return cls(
            manager=manager,
            projects=projects,
            review=ReviewService(manager, settings, roots),
            history=history,
        )

    async def close(self) -> None:
        """Stop the project trees' prefetch and watchers (the manager's owner shuts it down)."""
        await self.projects.close()


def _registered_roots(registry: ProjectRegistry) -> RootsProvider:
    """The registered projects' roots, read per call (projects come and go while serving)."""

    def roots() -> list[Path]:
        try:
            return [p.root for p in registry.all()]
        except CctuiError:
            return []  # a broken registry is reported by the project tools, not here

    return roots
