"""A project's file tree: built off the event loop, cached, rebuilt when files change.

In a git work tree the file list is ``git ls-files -co --exclude-standard`` (exactly what
git itself ignores is left out, at git's speed); elsewhere a ``scandir`` walk that skips
``.git`` and the root ``.gitignore``'s simple patterns. Either way ``.git`` never appears.
Each cached tree has a watcher (watchfiles, in a thread of its own); a change marks it stale
and schedules one debounced rebuild in the background, and readers keep getting the last tree
meanwhile. The watcher watches the directories the walk would list, each on its own: a
recursive watch follows links (a project holding a link to ``/`` had it add a watch on every
directory of the disk: 30 s with the event loop blocked, and the user's inotify watches spent)
and watches what ``.gitignore`` leaves out (``node_modules``).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import fnmatch
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cctui.fs import git

log = logging.getLogger(__name__)

EntryType = Literal["file", "directory", "symlink"]
SKIP_DIRS = frozenset({".git"})
REBUILD_DEBOUNCE_S = 0.5
CATCH_UP_MS = 2_000
"""How soon after the watcher takes in a new directory the tree is rebuilt once more, for
what was made in it before its watch was in place (the wait of a watch with no change)."""


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


def _scan(
    root: Path, ignore: _Ignore, start: str = ""
) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Each entry under ``root/start`` a tree lists, with its path from ``root`` and whether it
    is a directory: links are not followed; ``.git`` and ``ignore``'s patterns are left out."""
    stack = [(start + "/" if start else "", os.path.join(root, start))]
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
                except OSError:
                    continue
                if (is_dir and de.name in SKIP_DIRS) or ignore.ignored(rel, de.name, is_dir):
                    continue
                yield rel, de, is_dir
                if is_dir:
                    stack.append((rel + "/", de.path))


def walk(root: Path) -> list[Entry]:
    """Every file and directory under ``root`` (not following links), minus ignored ones."""
    out: list[Entry] = []
    for rel, de, _ in _scan(root, _Ignore(root)):
        try:
            out.append(_entry(rel, de.stat(follow_symlinks=False)))
        except OSError:
            continue
    return out


def watched_dirs(root: Path, ignore: _Ignore, start: str = "") -> list[str]:
    """``root/start`` and every directory under it that :func:`walk` lists: what the watcher
    watches, each directory on its own. Empty when ``start`` itself is left out."""
    if start:
        name = start.rpartition("/")[2]
        if name in SKIP_DIRS or ignore.ignored(start, name, True):
            return []
    top = os.path.join(root, start) if start else str(root)
    return [top, *(de.path for _, de, is_dir in _scan(root, ignore, start) if is_dir)]


def _wanted(_change: object, path: str) -> bool:
    return f"{os.sep}.git{os.sep}" not in path and not path.endswith(f"{os.sep}.git")


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def follow(
    root: Path, stop: threading.Event, debounce_ms: int, changed: Callable[[], None]
) -> None:
    """Watch ``root``'s directories until ``stop`` is set, calling ``changed`` for each batch
    of changes (blocking: run it in a thread of its own). A directory made since is taken in
    (with what was already made in it): the watch starts again over the larger set, and once
    it is in place, ``changed`` is called again for what was written there meanwhile (so too
    when the first watch is in place, for what changed while it was being set up)."""
    from watchfiles import Change, watch

    ignore = _Ignore(root)
    dirs = set(watched_dirs(root, ignore))
    catch_up = True
    while dirs:
        try:
            for batch in watch(
                *sorted(dirs),
                watch_filter=_wanted,
                stop_event=stop,
                debounce=debounce_ms,
                rust_timeout=CATCH_UP_MS,
                yield_on_timeout=True,
                recursive=False,
                ignore_permission_denied=True,
                raise_interrupt=False,
            ):
                grown: set[str] = set()
                if catch_up:
                    # The first yield: the watch is in place. A rebuild for what changed while
                    # it was set up, and a directory made between the listing and its
                    # parent's watch (it had no event) is taken in.
                    catch_up = False
                    grown = set(watched_dirs(root, ignore))
                    changed()
                elif batch:
                    changed()
                for change, p in batch:
                    if change == Change.added and p not in dirs and p not in grown and _is_dir(p):
                        rel = os.path.relpath(p, root).replace(os.sep, "/")
                        grown.update(watched_dirs(root, ignore, rel))
                if grown - dirs:
                    dirs |= grown
                    break
            else:
                return  # stopped
        except FileNotFoundError:
            if all(_is_dir(d) for d in dirs):
                raise  # not one that went between the listing and its watch
        dirs = {d for d in dirs if _is_dir(d)}  # a deleted one cannot be watched again
        catch_up = True


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
    """Runs while :func:`follow` does, in its thread; cancelling it stops that."""
    stop: threading.Event = field(default_factory=threading.Event)
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
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()

        def changed() -> None:  # on the loop
            if slot.stop.is_set():
                return
            slot.changes += 1
            slot.stale = True
            if slot.building is None:
                self._start_build(slot)

        def run() -> None:
            try:
                follow(
                    slot.root, slot.stop, int(self._debounce_s * 1000), lambda: _post(loop, changed)
                )
            except Exception:
                log.warning("file watcher for %s stopped", slot.root, exc_info=True)
            finally:
                _post(loop, lambda: _settle(ended))

        threading.Thread(target=run, name=f"cctui-watch-{slot.root.name}", daemon=True).start()
        try:
            await ended
        finally:
            slot.stop.set()

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


def _post(loop: asyncio.AbstractEventLoop, call: Callable[[], object]) -> None:
    """``call`` on ``loop`` from a watcher's thread; nothing once the loop has closed."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(call)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():  # a cancelled waiter has already given up on it
        future.set_result(None)
