"""The services both front ends share, built once by the composition root (``cli.py``).

The TUI and the MCP server see one session manager, one history index and one project
registry: a project registered through an MCP tool is in the TUI's project list, and a
session the TUI's watcher indexed is in ``claude_list_sessions``. Headless: no textual, no
mcp (an import contract says so).

A TUI window is built on one bundle too, a ``WindowServices``: the ``Services`` themselves
in the window that owns the sessions, an ``AttachedServices`` in a window attached to the
cctui that owns them (its core reached over that owner's tools). Either way the window
reaches the core only through ``CoreApi``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.core.api import CoreApi
from cctui.errors import CctuiError
from cctui.history import HistoryIndex
from cctui.projects import ProjectRegistry, ProjectService

if TYPE_CHECKING:  # the review room is imported at its first use (``Services.review``)
    from cctui.review import ReviewService
    from cctui.review.documents import RootsProvider


@dataclass(frozen=True, kw_only=True)
class Services:
    """What cctui runs on, whichever front end asks."""

    manager: SessionManager
    """Every session cctui drives."""
    projects: ProjectService
    """The registered projects: their registry, files, session state and trees."""
    make_review: Callable[[], ReviewService]
    """Makes ``review``, once (``build``'s)."""
    history: HistoryIndex | None = None
    """Claude Code's sessions on disk, kept live by a watcher (the TUI's). ``None`` under
    ``cctui serve``, which has no watcher: the history tools keep an index of their own and
    refresh it on each call."""

    @property
    def registry(self) -> ProjectRegistry:
        """The project registry (the project service's own: one cache, one file)."""
        return self.projects.registry

    @cached_property
    def review(self) -> ReviewService:
        """The review menu's fixed-prompt runs, made at first use (the MCP server's tools,
        after the TUI's first frame: the review room's imports are ~15 ms of CPU the first
        frame does not need)."""
        return self.make_review()

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

        def make_review() -> ReviewService:
            from cctui.review import ReviewService

            return ReviewService(manager, settings, roots)

        return cls(manager=manager, projects=projects, make_review=make_review, history=history)

    async def close(self) -> None:
        """Stop the project trees' prefetch and watchers, and keep what the history index
        read of history.jsonl for the next start (the manager's owner shuts it down; the
        index stays open: a refresh abandoned by a quit may still be using it)."""
        await self.projects.close()
        if self.history is not None:
            self.history.save_prompts()


class WindowServices(Protocol):
    """What a TUI window is built on: the core it drives, Claude Code's history, the
    registered projects."""

    @property
    def manager(self) -> CoreApi:
        """The core: every call the window makes on sessions goes through ``CoreApi``."""
        ...

    @property
    def history(self) -> HistoryIndex | None:
        """The history index the window's watcher keeps live; ``None``: the window reads
        one of its own from the settings."""
        ...

    @property
    def registry(self) -> ProjectRegistry:
        """The project registry the main screen's filter and the projects page read."""
        ...


@dataclass(frozen=True, kw_only=True)
class AttachedServices:
    """A window attached to the cctui that owns the sessions: its core over the owner's
    tools; the history and the project registry are this machine's files, read here."""

    manager: CoreApi
    """The owner's core, over its MCP tools (``cctui.remote.attached.AttachedCore``)."""
    registry: ProjectRegistry
    """The project registry (the same ``projects.json`` the owner writes)."""
    history: HistoryIndex | None = None
    """Claude Code's sessions on disk, read by the window's own watcher."""


def _registered_roots(registry: ProjectRegistry) -> RootsProvider:
    """The registered projects' roots, read per call (projects come and go while serving)."""

    def roots() -> list[Path]:
        try:
            return [p.root for p in registry.all()]
        except CctuiError:
            return []  # a broken registry is reported by the project tools, not here

    return roots
