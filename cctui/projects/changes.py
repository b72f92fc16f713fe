"""Which files a task created, modified or deleted: from git when the project is a
repository, from a before/after scan of the same tree walker otherwise.

A git snapshot is HEAD, the porcelain status and each listed path's size and mtime, so a
file that was already dirty and got edited again still counts as modified, and a file the
task committed (clean again afterwards, invisible to the status) is found by diffing the
commits HEAD moved over.

cctui's own files in the project's state directory (the session state, its lock, backups
and temp files) are left out: cctui writes the task's record while the task runs, and that
write is not the task's work.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cctui.fs import git
from cctui.fs.safepath import fold_name
from cctui.projects.state import owned_by_cctui
from cctui.projects.tree import walk

Signature = tuple[int, int]


def _sig(root: Path, rel: str) -> Signature | None:
    try:
        st = os.lstat(root / rel)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


@dataclass
class Snapshot:
    """The state of a project's files at one moment."""

    source: str
    """``git`` or ``scan``."""
    codes: dict[str, str] = field(default_factory=dict)
    """git: path -> porcelain code; scan: unused."""
    sigs: dict[str, Signature | None] = field(default_factory=dict)
    head: str | None = None
    """git: the commit HEAD pointed at (None before the first commit)."""
    state_dir: tuple[str, ...] = (".claude",)
    """The project's state directory (folded parts): cctui's files in it are left out."""


EDIT_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
"""The tools whose own input names the file they change (Bash's files cannot be told)."""


def edited_path(root: Path, tool: str, tool_input: dict[str, object]) -> str | None:
    """The file (relative to ``root``) an edit tool's call changes; None for other tools or
    a file outside the project."""
    key = EDIT_TOOLS.get(tool)
    target = tool_input.get(key) if key is not None else None
    if not isinstance(target, str) or not target:
        return None
    path = Path(target)
    full = Path(os.path.normpath(path if path.is_absolute() else root / path))
    try:
        return full.relative_to(root).as_posix()
    except ValueError:  # outside the project: in no diff
        return None


@dataclass
class Changes:
    """What changed between two snapshots (paths relative to the root, sorted)."""

    created: list[str]
    modified: list[str]
    deleted: list[str]

    def only(self, own: set[str]) -> tuple[Changes, list[str]]:
        """The changes limited to ``own`` paths, and the others (sorted): for a task that
        shared its project with others, whose files cannot be told from the diff alone."""
        others = sorted({*self.created, *self.modified, *self.deleted} - own)
        kept = Changes(
            *(
                [p for p in paths if p in own]
                for paths in (self.created, self.modified, self.deleted)
            )
        )
        return kept, others


def _parts(state_dir: str) -> tuple[str, ...]:
    return tuple(
        fold_name(p) for p in state_dir.replace("\\", "/").split("/") if p not in ("", ".")
    )


def is_cctuis(rel: str, state_dir: tuple[str, ...]) -> bool:
    """``rel`` is one of cctui's own state files (compared as a case-insensitive file
    system would, like the guard that refuses writes there)."""
    *parent, name = rel.split("/")
    return tuple(fold_name(p) for p in parent) == state_dir and owned_by_cctui(name)


def snapshot(root: Path, state_dir: str = ".claude/") -> Snapshot:
    """Take a snapshot (blocking); ``state_dir`` is the project's ``claudeStatePath``."""
    ours = _parts(state_dir)
    status = git.status(root)
    if status is not None:
        codes = {p: c for p, c in status.changed.items() if not is_cctuis(p, ours)}
        dirty = {p: _sig(root, p) for p in codes}
        return Snapshot("git", codes, dirty, git.head(root), ours)
    sigs: dict[str, Signature | None] = {}
    for entry in walk(root):
        if entry.type != "directory" and not is_cctuis(entry.path, ours):
            sigs[entry.path] = _sig(root, entry.path)
    return Snapshot("scan", {}, sigs, state_dir=ours)


def diff(root: Path, before: Snapshot, after: Snapshot) -> Changes:
    """Files created, modified and deleted from ``before`` to ``after``."""
    created: set[str] = set()
    modified: set[str] = set()
    deleted: set[str] = set()
    if after.source == "git" and before.source == "git":
        for path, code in after.codes.items():
            if "D" in code:
                if before.codes.get(path) != code:
                    deleted.add(path)
            elif path not in before.codes:
                (created if code in ("??", "A ", "AM") else modified).add(path)
            elif before.sigs.get(path) != after.sigs.get(path):
                modified.add(path)
        for path in before.codes.keys() - after.codes.keys():
            # Dirty before, clean now: reverted (modified) or committed; either way touched.
            if _sig(root, path) is None:
                deleted.add(path)
            elif before.sigs.get(path) != _sig(root, path):
                modified.add(path)
        for path, code in _committed(root, before, after).items():
            # What HEAD moved over trumps the status: with it we know whether the file was there.
            existed = _existed(before, path, code)
            exists = _sig(root, path) is not None
            created.discard(path)
            modified.discard(path)
            deleted.discard(path)
            if exists:
                (modified if existed else created).add(path)
            elif existed:
                deleted.add(path)
    else:
        for path, sig in after.sigs.items():
            if path not in before.sigs:
                created.add(path)
            elif before.sigs[path] != sig:
                modified.add(path)
        deleted = set(before.sigs.keys() - after.sigs.keys())
    return Changes(sorted(created), sorted(modified), sorted(deleted))


def _committed(root: Path, before: Snapshot, after: Snapshot) -> dict[str, str]:
    """Path -> ``A``/``M``/``D``/``T`` for what changed between the two snapshots' HEADs."""
    if after.head is None or after.head == before.head:
        return {}
    found = git.committed(root, before.head, after.head) or {}
    return {p: c for p, c in found.items() if not is_cctuis(p, after.state_dir)}


def _existed(before: Snapshot, path: str, code: str) -> bool:
    """Was a file HEAD moved over (``code``) in the work tree at ``before``? In the old
    commit (not added) or untracked then, and not deleted from the work tree."""
    was_there = code != "A" or path in before.codes
    return was_there and "D" not in before.codes.get(path, "")
