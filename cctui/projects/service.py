"""ProjectService: the one object the front ends use for projects.

Blocking file work (locks, fsync, reads) is plain synchronous code here; the MCP tools run
it in a worker thread so the event loop (and the TUI drawn on it) never waits on a disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cctui.errors import CctuiError
from cctui.fs import git
from cctui.fs.errors import PathRefused
from cctui.fs.reading import ReadResult, read_lines
from cctui.fs.safepath import (
    WriteMode,
    WriteResult,
    check_relative,
    exists,
    fold_name,
    resolve_inside,
    write_file,
)
from cctui.projects.registry import Project, ProjectRegistry, check_root
from cctui.projects.state import (
    Artifact,
    Checkpoint,
    ProjectState,
    StateFile,
    TaskRecord,
    owned_by_cctui,
)
from cctui.projects.tree import Tree, TreeCache

log = logging.getLogger(__name__)

DOCS_MAX_BYTES = 512 * 1024
"""The ``/docs`` resource stops adding files past this much text."""
DOC_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".adoc")
PREFETCH_MAX = 20
"""``start`` builds at most this many trees (each project's watcher stays on after it)."""
PREFETCH_DELAY_S = 5.0
"""``start`` waits this long first: cctui's own start-up (the TUI's first frame, the session
history index) comes before trees nobody has asked for yet."""


def ago(when: datetime | str | None, now: datetime | None = None) -> str | None:
    """``2 hours ago``, ``just now``, ``3 days ago``; None for None."""
    if when is None:
        return None
    if isinstance(when, str):
        try:
            when = datetime.fromisoformat(when.replace("Z", "+00:00"))
        except ValueError:
            return str(when)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return ago_seconds(((now or datetime.now(UTC)) - when).total_seconds())


def ago_seconds(elapsed: float) -> str:
    """``ago`` for a number of seconds (the tree renders 10,000 of these at a time)."""
    seconds = int(elapsed)
    if seconds < 45:
        return "just now"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size) if unit != "day" else seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


def _existing_dir(path: Path) -> Path | None:
    """``path`` resolved, when it is a directory."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        return None
    return resolved if resolved.is_dir() else None


def _mtimes(*paths: Path) -> tuple[int, ...]:
    out = []
    for path in paths:
        try:
            out.append(os.stat(path).st_mtime_ns)
        except OSError:
            out.append(0)
    return tuple(out)


def _refuse_state_files(project: Project, rel: str) -> None:
    """Refuse ``rel`` when it is (or creates, or replaces) the session state, its lock or
    its backups: a write there bypasses the lock and the format, and every later state
    update would then fail on the file it left. Compared as a case-insensitive
    filesystem would (``.CLAUDE/Session_State.json`` is the same file on macOS)."""
    _, inside = resolve_inside(project.root, rel)
    try:
        _, state_dir = resolve_inside(project.root, project.claude_state_path)
    except CctuiError:
        return  # a state dir that leaves the root is never written (StateFile refuses it)
    folded = [fold_name(p) for p in inside]
    n = len(state_dir)
    if folded[:n] != [fold_name(p) for p in state_dir]:
        return
    if len(inside) == n or owned_by_cctui(inside[n]):
        raise PathRefused(
            f"{rel} is cctui's session state (or its lock or backup); it is written only "
            "through create_checkpoint and cctui's own records.",
            why="it is cctui's session state",
            suggestion="Call create_checkpoint to save state, or write to another path.",
        )


@dataclass(frozen=True)
class ProjectStatus:
    """What ``get_project_status`` reports."""

    project: Project
    state: ProjectState
    state_path: Path
    recent_files: list[str]
    git: git.GitStatus | None


class ProjectService:
    """Registry, files, session state and trees of the registered projects."""

    def __init__(
        self,
        registry_path: Path,
        *,
        keep: Callable[[asyncio.Task[Any]], None] | None = None,
        watch: bool = True,
    ) -> None:
        self.registry = ProjectRegistry(registry_path)
        self.trees = TreeCache(keep, watch=watch)
        self._keep = keep
        self._prefetching: asyncio.Task[None] | None = None
        self._git_cache: dict[str, tuple[tuple[int, ...], git.GitStatus | None]] = {}
        self._git_dirs: dict[str, tuple[Path, Path | None]] = {}
        """project id -> (root, its git directory or None outside a repository)."""

    # -- registry ------------------------------------------------------------------------

    def projects(self, include_inactive: bool = False) -> list[Project]:
        """Registered projects (active ones unless ``include_inactive``)."""
        return [p for p in self.registry.all() if p.active or include_inactive]

    def get(self, project_id: str) -> Project:
        """A project by id, recording the access. Raises ``ProjectNotFound``."""
        project = self.registry.get(project_id)
        try:
            self.registry.touch(project_id)
        except CctuiError as exc:  # a read-only registry must not block reading the project
            log.warning("could not record access to %s: %s", project_id, exc.message)
        return project

    def register(
        self,
        name: str,
        root_path: str,
        *,
        project_id: str | None = None,
        spec_paths: list[str] | None = None,
        overwrite: bool = False,
    ) -> Project:
        """Register a directory (see ``ProjectRegistry.register``)."""
        for spec in spec_paths or ():
            check_relative(spec)
        return self.registry.register(
            name,
            root_path,
            project_id=project_id,
            spec_paths=spec_paths,
            overwrite=overwrite,
            default_branch=git.current_branch(check_root(root_path)),
        )

    def has_claude_state(self, project: Project) -> bool:
        """The project has a ``.claude/`` directory."""
        return (project.root / project.claude_state_path).is_dir()

    # -- files ---------------------------------------------------------------------------

    def file_exists(self, project_id: str, rel: str) -> bool:
        """``rel`` exists inside the project (the path is checked like for any access)."""
        return exists(self.registry.get(project_id).root, rel)

    def write(
        self,
        project_id: str,
        rel: str,
        content: str,
        *,
        mode: WriteMode,
        create_dirs: bool = True,
        record: bool = True,
    ) -> WriteResult:
        """Write a file inside the project and record it as an artifact.

        The record is best-effort: the file is written either way, and when the session
        state cannot be updated the result says so in ``note`` instead of failing.
        """
        project = self.get(project_id)
        _refuse_state_files(project, rel)
        result = write_file(
            project.root, rel, content.encode("utf-8"), mode=mode, create_dirs=create_dirs
        )
        if record:
            shown = str(result.path.relative_to(project.root.resolve()))
            try:
                self.state_file(project).add_artifact(Artifact(path=shown, action=result.action))
            except CctuiError as exc:
                log.warning("wrote %s but could not record it: %s", result.path, exc.message)
                note = f"The file was written, but not recorded in the session state: {exc.message}"
                result = replace(result, note=note)
        return result

    def read(
        self, project_id: str, rel: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult:
        """Lines of a text file inside the project."""
        return read_lines(self.get(project_id).root, rel, start_line, end_line)

    # -- session state -------------------------------------------------------------------

    def state_file(self, project: Project) -> StateFile:
        """The project's ``session_state.json``."""
        return StateFile(project.root, project.claude_state_path)

    def state(self, project_id: str) -> tuple[ProjectState, Path]:
        """The session state and where it lives."""
        sf = self.state_file(self.get(project_id))
        return sf.read(), sf.path

    def checkpoint(self, project_id: str, checkpoint: Checkpoint) -> tuple[ProjectState, Path]:
        """Append a checkpoint."""
        sf = self.state_file(self.get(project_id))
        return sf.add_checkpoint(checkpoint), sf.path

    def put_task(self, project_id: str, task: TaskRecord) -> None:
        """Record (or update) an ``invoke_claude_code`` task."""
        self.state_file(self.registry.get(project_id)).put_task(task)

    def status(self, project_id: str, include_git: bool) -> ProjectStatus:
        """Checkpoints, tasks, recent files and (optionally) git facts."""
        project = self.get(project_id)
        sf = self.state_file(project)
        state = sf.read()
        recent: list[str] = []
        for name in [a.path for a in reversed(state.artifacts)] + [
            f for t in reversed(state.claude_code_tasks) for f in t.files_created + t.files_modified
        ]:
            if name not in recent:
                recent.append(name)
        return ProjectStatus(
            project=project,
            state=state,
            state_path=sf.path,
            recent_files=recent[:20],
            git=self._git_status(project) if include_git else None,
        )

    def _git_status(self, project: Project) -> git.GitStatus | None:
        """``git status``, reused while nothing changed: the tree's watcher has seen no
        change batch and git's index and HEAD are untouched. (On 100,000 files git status
        stats every one; a watched project answers from memory until something moves.)"""
        root = project.root.resolve()
        watched = self.trees.watching(project.id, root)
        gdir = self._git_dir(project.id, root)
        key = (
            self.trees.changes(project.id),
            # The reflog moves on every commit even when the index and HEAD (a symref) do not.
            *_mtimes(gdir / "index", gdir / "HEAD", gdir / "logs" / "HEAD"),
        )
        hit = self._git_cache.get(project.id)
        if watched and hit is not None and hit[0] == key:
            return hit[1]
        status = git.status(root, every_untracked=False)
        if (status is None) != (self._git_dirs[project.id][1] is None):
            del self._git_dirs[project.id]  # a repository appeared or went: look again
        self._git_cache[project.id] = (key, status)
        return status

    def _git_dir(self, project_id: str, root: Path) -> Path:
        """Where git keeps the project's index and HEAD, found once per project: a project
        below a repository's top or in a linked worktree has no ``root/.git`` directory
        of its own. ``root/.git`` when the project is in no repository (a ``git init``
        there then changes the key)."""
        known = self._git_dirs.get(project_id)
        if known is None or known[0] != root:
            known = self._git_dirs[project_id] = (root, git.git_dir(root))
        return known[1] or root / ".git"

    # -- trees and docs ------------------------------------------------------------------

    async def tree(self, project_id: str, *, fresh: bool = False) -> Tree:
        """The project's file tree (cached; built in a thread the first time)."""
        project = self.get(project_id)
        return await self.trees.get(project.id, project.root.resolve(), fresh=fresh)

    def watch(self, project_id: str) -> None:
        """Make sure the project's tree is built and watched (call on the event loop)."""
        project = self.registry.get(project_id)
        if project.root.is_dir():
            self.trees.prefetch(project.id, project.root.resolve())

    def start(self) -> None:
        """Build the registered projects' trees in the background, so the first ``/files``
        read after a restart finds one instead of waiting seconds for a big project.
        Cheap: after ``PREFETCH_DELAY_S``, one build at a time, the ``PREFETCH_MAX`` most
        recently used active projects only. Nothing happens without a running event loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._prefetching is None:
            self._prefetching = loop.create_task(self._prefetch_all())
            if self._keep is not None:
                self._keep(self._prefetching)

    async def _prefetch_all(self) -> None:
        await asyncio.sleep(PREFETCH_DELAY_S)
        try:
            projects = await asyncio.to_thread(self.projects)
        except CctuiError as exc:  # reported by the tools; nothing to prefetch
            log.warning("not prefetching project trees: %s", exc.message)
            return
        projects.sort(key=lambda p: (p.last_accessed or p.created).timestamp(), reverse=True)
        for project in projects[:PREFETCH_MAX]:
            root = await asyncio.to_thread(_existing_dir, project.root)
            if root is None or self.trees.peek(project.id) is not None:
                continue
            try:
                await self.trees.get(project.id, root)
            except Exception:  # one unreadable project must not stop the others
                log.warning("prefetching the tree of %s failed", project.id, exc_info=True)

    def docs(self, project_id: str, tree: Tree) -> str:
        """Every text doc under the spec paths as one markdown document (bounded)."""
        project = self.get(project_id)
        prefixes = tuple(s.strip("/") + "/" for s in project.spec_paths if s.strip("/"))
        parts = [f"# Project Documentation: {project.name}\n"]
        used = 0
        skipped: list[str] = []
        for entry in tree.entries:
            if entry.type != "file" or not entry.path.startswith(prefixes):
                continue
            if not entry.path.lower().endswith(DOC_SUFFIXES):
                continue
            if used >= DOCS_MAX_BYTES:
                skipped.append(entry.path)
                continue
            try:
                got = read_lines(project.root, entry.path)
            except Exception as exc:  # one unreadable doc must not hide the others
                parts.append(f"\n## {entry.path}\n\n_(not readable: {exc})_\n")
                continue
            used += len(got.content.encode())
            more = "\n\n_(truncated; read the file for the rest)_" if got.has_more else ""
            parts.append(f"\n## {entry.path}\n\n{got.content.rstrip()}{more}\n")
        if len(parts) == 1:
            wanted = ", ".join(project.spec_paths) or "(none)"
            parts.append(f"\nNo documents found under the spec paths ({wanted}).\n")
        if skipped:
            parts.append(
                f"\n_{len(skipped)} more documents not shown: {', '.join(skipped[:50])}_\n"
            )
        return "".join(parts)

    async def close(self) -> None:
        """Stop the prefetch and the watchers."""
        if self._prefetching is not None:
            self._prefetching.cancel()
            with contextlib.suppress(BaseException):
                await self._prefetching
        await self.trees.close()
