"""A project's file tree: built off the event loop, cached, rebuilt when files change.

In a git work tree the file list is ``git ls-files -co --exclude-standard`` (exactly what
git itself ignores is left out, at git's speed); elsewhere a ``scandir`` walk that skips
``.git`` and the root ``.gitignore``'s simple patterns. Either way ``.git`` never appears.
Each cached tree has a watcher (watchfiles); a change marks it stale and schedules one
debounced rebuild in the background, and readers keep getting the last tree meanwhile.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import fnmatch
import logging
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cctui.fs import git

log = logging.getLogger(__name__)

EntryType = Literal["file", "directory", "symlink"]
SKIP_DIRS = frozenset({".git"})
REBUILD_DEBOUNCE_S = 0.5


@dataclass(frozen=True, slots=True)
class Entry:
    """One file or directory; directories end with ``/`` like the seed's tree."""

    path: str
    type: EntryType
    size: int | None = None
    mtime: float | None = None


@dataclass
class Tree:
    """A built tree."""

    entries: list[Entry]
    source: Literal["git", "walk"]
    built_at: float
    """``time.time()`` when the build finished."""
    took_s: float
    files: int = 0


class _Ignore:
    """The root ``.gitignore``'s simple patterns, for projects that are not repositories."""

    def __init__(self, root: Path) -> None:
        self.names: list[str] = []
        self.paths: list[str] = []
        self.dir_names: list[str] = []
        try:
            lines = (root / ".gitignore").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        for raw in lines.splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", "!")):
                continue
            dir_only = line.endswith("/")
            line = line.strip("/")
            if "/" in line:
                self.paths.append(line)
            elif dir_only:
                self.dir_names.append(line)
            else:
                self.names.append(line)

    def ignored(self, rel: str, name: str, is_dir: bool) -> bool:
        if any(fnmatch.fnmatchcase(name, p) for p in self.names):
            return True
        if is_dir and any(fnmatch.fnmatchcase(name, p) for p in self.dir_names):
            return True
        return any(fnmatch.fnmatchcase(rel, p) for p in self.paths)


def _entry(rel: str, st: os.stat_result) -> Entry:
    if stat.S_ISDIR(st.st_mode):
        return Entry(rel + "/", "directory", None, st.st_mtime)
    kind: EntryType = "symlink" if stat.S_ISLNK(st.st_mode) else "file"
    return Entry(rel, kind, st.st_size, st.st_mtime)


def walk(root: Path) -> list[Entry]:
    """Every file and directory under ``root`` (not following links), minus ignored ones."""
    ignore = _Ignore(root)
    out: list[Entry] = []
    stack = [("", str(root))]
    while stack:
        prefix, directory = stack.pop()
        try:
            it = os.scandir(directory)
        except OSError:
            continue
        with it:
            for de in it:
                rel = prefix + de.name
                try:
                    is_dir = de.is_dir(follow_symlinks=False)
                    if is_dir and de.name in SKIP_DIRS:
                        continue
                    if ignore.ignored(rel, de.name, is_dir):
                        continue
                    out.append(_entry(rel, de.stat(follow_symlinks=False)))
                except OSError:
                    continue
                if is_dir:
                    stack.append((rel + "/", de.path))
    return out


def from_git(root: Path) -> list[Entry] | None:
    """The tree of a git work tree, or None when ``root`` is not one."""
    files = git.list_files(root)
    if files is None:
        return None
    out: list[Entry] = []
    dirs: set[str] = set()
    base = str(root) + os.sep
    for rel in files:
        if rel.startswith(".git/") or "/.git/" in rel:
            continue
        try:
            st = os.lstat(base + rel)
        except OSError:
            continue  # deleted but still in the index
        out.append(_entry(rel, st))
        parent = rel.rpartition("/")[0]
        while parent and parent not in dirs:
            dirs.add(parent)
            parent = parent.rpartition("/")[0]
    for d in dirs:
        try:
            out.append(_entry(d, os.lstat(base + d)))
        except OSError:
            continue
    return out


def build(root: Path) -> Tree:
    """Build the tree now (blocking; run it in a thread)."""
    started = time.perf_counter()
    entries = from_git(root)
    source: Literal["git", "walk"] = "git"
    if entries is None:
        entries, source = walk(root), "walk"
    entries.sort(key=lambda e: e.path)
    files = sum(1 for e in entries if e.type != "directory")
    return Tree(entries, source, time.time(), time.perf_counter() - started, files)


@dataclass
class _Slot:
    root: Path
    tree: Tree | None = None
    stale: bool = True
    building: asyncio.Task[Tree] | None = None
    watcher: asyncio.Task[None] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    changes: int = 0
    """Change batches seen by the watcher (tests and the bench read it)."""


class TreeCache:
    """Trees by project id."""

    def __init__(
        self,
        keep: Callable[[asyncio.Task[Any]], None] | None = None,
        *,
        watch: bool = True,
        debounce_s: float = REBUILD_DEBOUNCE_S,
    ) -> None:
        """``keep`` holds background tasks (the manager cancels them at shutdown)."""
        self._slots: dict[str, _Slot] = {}
        self._keep = keep
        self._watch = watch
        self._debounce_s = debounce_s

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(coro)
        if self._keep is not None:
            self._keep(task)
        return task

    def _slot(self, key: str, root: Path) -> _Slot:
        slot = self._slots.get(key)
        if slot is None or slot.root != root:
            if slot is not None:
                self._drop(slot)
            slot = self._slots[key] = _Slot(root)
        return slot

    def prefetch(self, key: str, root: Path) -> None:
        """Start building in the background if nothing is cached (no waiting)."""
        slot = self._slot(key, root)
        if slot.tree is None and slot.building is None:
            self._start_build(slot)

    def peek(self, key: str) -> Tree | None:
        """The cached tree, however old, without building."""
        slot = self._slots.get(key)
        return slot.tree if slot is not None else None

    def watching(self, key: str, root: Path) -> bool:
        """A watcher runs for ``key`` at ``root`` (so ``changes`` means something)."""
        slot = self._slots.get(key)
        return (
            slot is not None
            and slot.root == root
            and slot.watcher is not None
            and not slot.watcher.done()
        )

    def changes(self, key: str) -> int:
        """How many change batches the watcher has seen for ``key``."""
        slot = self._slots.get(key)
        return slot.changes if slot is not None else 0

    async def get(self, key: str, root: Path, *, fresh: bool = False) -> Tree:
        """The tree: cached (a rebuild may be under way) or built now.

        ``fresh`` waits for the rebuild when the cached tree is stale or being rebuilt.
        """
        slot = self._slot(key, root)
        settled = not slot.stale and slot.building is None
        if slot.tree is not None and (not fresh or settled):
            return slot.tree
        if slot.building is None:
            self._start_build(slot)
        assert slot.building is not None
        return await asyncio.shield(slot.building)

    def refreshing(self, key: str) -> bool:
        """A rebuild is running or due (the cached tree may miss a recent change)."""
        slot = self._slots.get(key)
        return slot is not None and (slot.stale or slot.building is not None)

    def note_file(self, key: str, rel: str) -> None:
        """Put a file cctui itself just wrote into the cached tree at once (with its
        parent directories), so readers see it before the watcher's rebuild lands."""
        slot = self._slots.get(key)
        if slot is None or slot.tree is None:
            return
        parts = rel.split("/")
        try:
            fresh = [
                _entry("/".join(parts[:i]), os.lstat(slot.root.joinpath(*parts[:i])))
                for i in range(1, len(parts) + 1)
            ]
        except OSError:
            return
        tree = slot.tree
        entries = list(tree.entries)  # a new list: readers may hold the old tree
        keys = [e.path for e in entries]
        files = tree.files
        for entry in fresh:
            at = bisect.bisect_left(keys, entry.path)
            if at < len(keys) and keys[at] == entry.path:
                entries[at] = entry
            else:
                entries.insert(at, entry)
                keys.insert(at, entry.path)
                files += entry.type != "directory"
        slot.tree = Tree(entries, tree.source, tree.built_at, tree.took_s, files)

    def invalidate(self, key: str) -> None:
        """Mark stale and rebuild in the background (e.g. after cctui wrote a file)."""
        slot = self._slots.get(key)
        if slot is not None:
            slot.stale = True
            if slot.building is None:
                self._start_build(slot)

    def _start_build(self, slot: _Slot) -> None:
        slot.stale = False
        slot.building = self._spawn(self._build(slot))
        if self._watch and slot.watcher is None:
            slot.watcher = self._spawn(self._watch_loop(slot))

    async def _build(self, slot: _Slot) -> Tree:
        try:
            tree = await asyncio.to_thread(build, slot.root)
            slot.tree = tree
            return tree
        finally:
            slot.building = None
            if slot.stale:  # changed while building: once more
                self._spawn(self._rebuild_later(slot))

    async def _rebuild_later(self, slot: _Slot) -> None:
        await asyncio.sleep(self._debounce_s)
        if slot.stale and slot.building is None and slot in self._slots.values():
            self._start_build(slot)

    async def _watch_loop(self, slot: _Slot) -> None:
        from watchfiles import awatch

        def wanted(_change: object, path: str) -> bool:
            return f"{os.sep}.git{os.sep}" not in path and not path.endswith(f"{os.sep}.git")

        try:
            async for _batch in awatch(
                slot.root,
                watch_filter=wanted,
                stop_event=slot.stop,
                debounce=int(self._debounce_s * 1000),
                recursive=True,
                ignore_permission_denied=True,
            ):
                slot.changes += 1
                slot.stale = True
                if slot.building is None:
                    self._start_build(slot)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("file watcher for %s stopped", slot.root, exc_info=True)

    def _drop(self, slot: _Slot) -> None:
        slot.stop.set()
        for task in (slot.building, slot.watcher):
            if task is not None:
                task.cancel()

    async def close(self) -> None:
        """Stop every watcher and build."""
        slots, self._slots = list(self._slots.values()), {}
        for slot in slots:
            self._drop(slot)
        for slot in slots:
            for task in (slot.watcher, slot.building):
                if task is not None:
                    with contextlib.suppress(BaseException):
                        await task
