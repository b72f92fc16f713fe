"""What changed in a work tree since a commit, read through a temporary index.

The user's own index (``.git/index``) is never written: it is copied to a temporary file
(the copy keeps git's stat cache, so unchanged files are not hashed again), ``git add -A``
runs on the copy (``GIT_INDEX_FILE``) and ``git write-tree`` turns it into a tree: the work
tree as it is now, committed, staged, unstaged and untracked-but-not-ignored files alike.
The diff is between a base commit and that tree. The blobs and trees this writes are
unreachable objects in the repository's object store, which ``git gc`` prunes in time (as
``git stash create`` leaves them); no ref, index or file of the user's changes.

Other work trees nested inside this one (Claude Code puts its worktrees under
``.claude/worktrees/``) are left out: they are not this tree's files.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cctui.fs import git

MAX_PATCH_BYTES = 256_000
"""How much unified diff a caller gets by default before it is cut (with a note)."""


@dataclass(frozen=True)
class FileChange:
    """One changed file."""

    path: str
    """Relative to the work tree's top, ``/``-separated."""
    status: str
    """``A`` added, ``M`` modified, ``D`` deleted, ``T`` type changed."""
    added: int | None
    """Lines added; None for a binary file."""
    removed: int | None

    @property
    def binary(self) -> bool:
        return self.added is None


@dataclass
class TreeDiff:
    """The changes from ``base`` to a snapshot of the work tree."""

    base: str
    files: list[FileChange] = field(default_factory=list)
    patch: str | None = None
    """The unified diff (None when only the counts were asked for)."""
    cut: list[str] = field(default_factory=list)
    """Files whose diff was left out of ``patch`` (or cut short) to stay within the bound."""

    @property
    def added(self) -> int:
        return sum(f.added or 0 for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed or 0 for f in self.files)


@contextlib.contextmanager
def _temp_index(top: Path) -> Iterator[dict[str, str]]:
    """An environment whose ``GIT_INDEX_FILE`` is a private copy of ``top``'s index."""
    real = git.run(top, "rev-parse", "--path-format=absolute", "--git-path", "index")
    tmpdir = tempfile.mkdtemp(prefix="cctui-index-")
    try:
        index = Path(tmpdir) / "index"
        if real.ok and real.text:
            with contextlib.suppress(OSError):  # no index yet: start from an empty one
                # copy2 keeps the index's time: git hashes a file changed in the index's own
                # second ("racily clean") only while the index is no newer than that file.
                shutil.copy2(real.text, index)
        yield {"GIT_INDEX_FILE": str(index)}
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _nested(top: Path) -> list[str]:
    """Pathspecs leaving out other work trees (and their admin files) inside ``top``."""
    found = git.worktrees(top) or []
    out = []
    for wt in found:
        try:
            rel = wt.path.resolve().relative_to(top.resolve())
        except (ValueError, OSError):
            continue
        if rel.parts:
            out.append(f":(exclude,top){rel.as_posix()}")
    return out


def snapshot(root: Path) -> str | None:
    """A tree object of the work tree ``root`` is in, as it is now; None outside git or
    when git fails."""
    top = git.toplevel(root)
    if top is None:
        return None
    with _temp_index(top) as env:
        added = git.run(top, "add", "-A", "--", ".", *_nested(top), env=env, timeout=60)
        if not added.ok:
            return None
        tree = git.run(top, "write-tree", env=env)
    return tree.text if tree.ok and tree.text else None


def empty_tree(root: Path) -> str | None:
    """The empty tree's id in this repository's hash (for a base before the first commit)."""
    done = git.run(root, "hash-object", "-t", "tree", "/dev/null")
    return done.text if done.ok else None


def changes(
    root: Path,
    base: str,
    tree: str,
    *,
    path: str | None = None,
    patch: bool = True,
    max_bytes: int = MAX_PATCH_BYTES,
) -> TreeDiff | None:
    """The files that differ from ``base`` (a commit or tree) to ``tree``, with line counts
    and, with ``patch``, the unified diff cut at about ``max_bytes``; ``path`` limits it to
    one file or directory (relative to the top). None when git fails."""
    top = git.toplevel(root) or root
    spec = ["--", path] if path else []
    common = ("diff", "--no-renames", "--no-color", "--no-ext-diff", "-z")
    names = git.run(top, *common, "--name-status", base, tree, *spec, timeout=60)
    counts = git.run(top, *common, "--numstat", base, tree, *spec, timeout=60)
    if not names.ok or not counts.ok:
        return None
    name_fields = _split(names.out)
    status = {p: c[:1] for c, p in zip(name_fields[::2], name_fields[1::2], strict=False)}
    files: list[FileChange] = []
    for rec in _split(counts.out):
        plus, minus, rel = rec.split("\t", 2)
        binary = plus == "-"
        files.append(
            FileChange(
                path=rel,
                status=status.get(rel, "M"),
                added=None if binary else int(plus),
                removed=None if binary else int(minus),
            )
        )
    result = TreeDiff(base=base, files=files)
    if patch:
        body = git.run(top, *common[:-1], "-U3", base, tree, *spec, timeout=60)
        if not body.ok:
            return None
        result.patch, result.cut = _bounded(body.out, max_bytes)
    return result


def _bounded(raw: bytes, max_bytes: int) -> tuple[str, list[str]]:
    """The patch cut at a file boundary near ``max_bytes`` (a single file larger than the
    bound is cut at a line), and the files that did not fit."""
    text = raw.decode("utf-8", "replace")
    if len(raw) <= max_bytes:
        return text, []
    parts = text.split("\ndiff --git ")
    chunks = [parts[0]] + ["diff --git " + p for p in parts[1:]]
    kept: list[str] = []
    cut: list[str] = []
    size = 0
    for chunk in chunks:
        name = _file_of(chunk)
        if size + len(chunk.encode()) + 1 <= max_bytes:
            kept.append(chunk)
            size += len(chunk.encode()) + 1
        elif not kept:  # even the first file is too big: keep its first lines
            head = chunk.encode()[:max_bytes].decode("utf-8", "ignore").rsplit("\n", 1)[0]
            kept.append(head)
            size = max_bytes
            cut.append(name)
        else:
            cut.append(name)
    return "\n".join(kept) + "\n", cut


def _file_of(chunk: str) -> str:
    first = chunk.split("\n", 1)[0]
    return first.removeprefix("diff --git a/").split(" b/", 1)[0]


def _split(out: bytes) -> list[str]:
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def unified(path: str, before: str | None, after: str | None) -> str:
    """A unified diff of one file's two texts (None: the file did not exist), git-style
    headers, for files outside git (``difflib``)."""
    import difflib

    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    lines = list(
        difflib.unified_diff(
            old,
            new,
            fromfile="/dev/null" if before is None else f"a/{path}",
            tofile="/dev/null" if after is None else f"b/{path}",
        )
    )
    fixed = [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines]
    return f"diff --git a/{path} b/{path}\n" + "".join(fixed) if fixed else ""


def count(patch: str) -> tuple[int, int]:
    """Lines added and removed in a unified diff."""
    plus = minus = 0
    for line in patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return plus, minus
