"""Read-only git facts about a directory: branch, uncommitted changes, tracked-or-not files.

The one place cctui runs ``git``: always as a subprocess with a bounded time, no stdin and
no optional locks; cctui never changes a repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

GIT_TIMEOUT_S = 20.0


def git_available() -> bool:
    """A ``git`` binary is on PATH."""
    return shutil.which("git") is not None


def _git(root: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> bytes | None:
    """stdout of ``git -C root args``, or None when it fails (not a repo, no git, timeout)."""
    if not git_available():
        return None
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            # No stdin: under `serve --stdio` cctui's stdin is the MCP stream.
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def list_files(root: Path) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files under ``root`` (``git ls-files -co
    --exclude-standard``), relative and ``/``-separated; None when ``root`` is not a repo."""
    out = _git(root, "ls-files", "-co", "--exclude-standard", "-z")
    if out is None:
        return None
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def git_dir(root: Path) -> Path | None:
    """The repository's git directory for ``root`` (``git rev-parse --absolute-git-dir``):
    ``root/.git`` for a repository's top, the top's ``.git`` for a subdirectory, and
    ``.git/worktrees/<name>`` for a linked worktree (whose ``.git`` is a file). None when
    ``root`` is not in a repository."""
    out = _git(root, "rev-parse", "--absolute-git-dir")
    text = (out or b"").decode("utf-8", "surrogateescape").strip()
    return Path(text) if text else None


def main_checkout(path: Path) -> Path | None:
    """The top of the repository's main checkout for ``path``: the top of ``path``'s own
    checkout, or, for a linked worktree, of the checkout that owns it (whose ``.git`` holds
    the worktree's). None when ``path`` is not in a repository."""
    common = _git(path, "rev-parse", "--path-format=absolute", "--git-common-dir")
    text = (common or b"").decode("utf-8", "surrogateescape").strip()
    if text and Path(text).name == ".git":
        return Path(text).parent
    top = _git(path, "rev-parse", "--show-toplevel")  # a separate git dir: its own top
    text = (top or b"").decode("utf-8", "surrogateescape").strip()
    return Path(text) if text else None


def current_branch(root: Path) -> str | None:
    """The checked-out branch (also on a repository with no commits yet); None when
    ``root`` is not in a repository or HEAD is detached."""
    out = _git(root, "symbolic-ref", "--short", "-q", "HEAD")
    text = (out or b"").decode("utf-8", "surrogateescape").strip()
    return text or None


@dataclass
class GitStatus:
    """The branch and what is uncommitted."""

    branch: str | None
    uncommitted: int
    changed: dict[str, str] = field(default_factory=dict)
    """path -> two-letter porcelain code (``??`` untracked, `` M`` modified, ...)."""


def status(root: Path, *, every_untracked: bool = True) -> GitStatus | None:
    """``git status --porcelain`` of the work tree; None when not a repo.

    ``every_untracked=False`` lists a new directory once instead of each file in it (much
    faster on a big untracked tree; enough for a count).
    """
    untracked = "--untracked-files=all" if every_untracked else "--untracked-files=normal"
    out = _git(root, "status", "--porcelain=v1", "-b", "-z", untracked)
    if out is None:
        return None
    records = out.decode("utf-8", "surrogateescape").split("\0")
    # Porcelain paths are relative to the repository's top; the project may be below it.
    prefix = (_git(root, "rev-parse", "--show-prefix") or b"").decode().strip()
    branch: str | None = None
    changed: dict[str, str] = {}
    skip = False
    for rec in records:
        if skip:  # the source path of a rename
            skip = False
            continue
        if not rec:
            continue
        if rec.startswith("## "):
            head = rec[3:].split("...", 1)[0]
            branch = None if head.startswith(("HEAD (no branch)", "No commits yet on ")) else head
            if head.startswith("No commits yet on "):
                branch = head.removeprefix("No commits yet on ")
            continue
        code, path = rec[:2], rec[3:]
        skip = code[0] in "RC"
        if path.startswith(prefix):
            changed[path[len(prefix) :]] = code
    return GitStatus(branch=branch, uncommitted=len(changed), changed=changed)


def status_text(root: Path, *, timeout: float = GIT_TIMEOUT_S) -> str | None:
    """``git status --porcelain=v1 --branch`` as text, to show as it is (its first line is
    ``## branch...upstream``); None when ``root`` is not in a repository."""
    out = _git(root, "status", "--porcelain=v1", "--branch", timeout=timeout)
    return None if out is None else out.decode("utf-8", errors="replace")


def head(root: Path) -> str | None:
    """The commit HEAD points at; None when not a repo or no commit yet."""
    out = _git(root, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    if out is None:
        return None
    return out.decode().strip() or None


def committed(root: Path, old: str | None, new: str) -> dict[str, str] | None:
    """Files under ``root`` that differ between commits ``old`` and ``new``: relative path ->
    ``A`` added, ``D`` deleted, ``M`` modified (``T`` type changed). Renames count as a
    deletion and an addition. ``old=None`` (no commit before): every file of ``new`` is added.
    None when git fails."""
    if old is None:
        out = _git(root, "ls-tree", "-r", "-z", "--name-only", new)
        return None if out is None else dict.fromkeys(_split(out), "A")
    out = _git(root, "diff", "--name-status", "-z", "--no-renames", "--relative", old, new)
    if out is None:
        return None
    fields = _split(out)
    return {path: code[:1] for code, path in zip(fields[::2], fields[1::2], strict=False)}


def _split(out: bytes) -> list[str]:
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
