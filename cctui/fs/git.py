"""Git facts about a directory (branch, uncommitted changes, files, commits) and the runner
every git call in cctui goes through.

The one place cctui runs ``git``: always as a subprocess with a bounded time, no stdin and
no optional locks. Reading is all this module does; the only changes cctui ever makes to a
repository are a session's worktree being finished (``worktree.py``, on a person's request),
and the diff's temporary index (``gitdiff.py``) never touches the user's own.
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


@dataclass(frozen=True)
class GitRun:
    """One finished ``git`` call."""

    code: int
    """The exit code; -1 when git could not run (missing, timed out)."""
    out: bytes
    err: str

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def text(self) -> str:
        """stdout as text, stripped."""
        return self.out.decode("utf-8", "surrogateescape").strip()


def run(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = GIT_TIMEOUT_S,
) -> GitRun:
    """``git -C root args`` with ``env`` added to the environment; never raises."""
    if not git_available():
        return GitRun(-1, b"", "git is not installed")
    full = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", **(env or {})}
    # Never prompt: an editor for a merge message or a credential helper would hang.
    full |= {"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            # No stdin: under `serve --stdio` cctui's stdin is the MCP stream.
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=full,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return GitRun(-1, b"", f"git {args[0] if args else ''} timed out after {timeout:g} s")
    except OSError as exc:
        return GitRun(-1, b"", str(exc))
    return GitRun(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace").strip())


def _git(root: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> bytes | None:
    """stdout of ``git -C root args``, or None when it fails (not a repo, no git, timeout)."""
    done = run(root, *args, timeout=timeout)
    return done.out if done.ok else None


_DISCOVERY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)
"""Variables that change where git looks for a repository; with any set, git is asked."""

_TOPS: dict[Path, tuple[tuple[str, int], Path | None]] = {}
"""``toplevel`` answers by directory, with the ``.git`` they were found under."""


def _marker(root: Path) -> tuple[str, int] | None:
    """The nearest ``.git`` (directory, or a worktree's file) at or above ``root``, as its
    path and inode: where git's own discovery starts."""
    # String paths, not ``Path`` arithmetic: asked as every message is sent (``TurnChanges``),
    # where pathlib's joins cost more than the ``stat`` calls themselves.
    where = str(root)
    while True:
        marker = os.path.join(where, ".git")
        try:
            found = os.stat(marker)
        except OSError:
            parent = os.path.dirname(where)
            if parent == where:
                return None
            where = parent
            continue
        return marker, found.st_ino


def _steered() -> bool:
    return any(k in os.environ for k in _DISCOVERY_ENV)


def maybe_repository(root: Path) -> bool:
    """False when ``root`` is surely outside any repository (no ``.git`` above it, git's
    discovery not steered by the environment): a check of a few ``stat`` calls."""
    return _steered() or _marker(root.absolute()) is not None


def toplevel(root: Path) -> Path | None:
    """The top of the work tree ``root`` is in (a linked worktree's own top); None outside
    a repository.

    Asked once per turn and per diff, so git is only run when it has to be: with no ``.git``
    above ``root`` there is no repository (a few ``stat`` calls), and git's answer is kept
    while the ``.git`` it was found under stays the same one.
    """
    root = root.absolute()
    steered = _steered()
    marker = None if steered else _marker(root)
    if marker is None and not steered:
        return None
    known = _TOPS.get(root)
    if marker is not None and known is not None and known[0] == marker:
        return known[1]
    done = run(root, "rev-parse", "--show-toplevel")
    top = Path(done.text) if done.ok and done.text else None
    if marker is not None and done.code != -1:  # a timeout or a missing git is not an answer
        if len(_TOPS) >= 512:
            _TOPS.clear()
        _TOPS[root] = (marker, top)
    return top


def main_worktree(root: Path) -> Path | None:
    """The repository's main work tree (the one holding ``.git``), also from inside a
    linked worktree; None outside a repository or for a bare one."""
    done = run(root, "worktree", "list", "--porcelain", "-z")
    if not done.ok:
        return None
    for rec in _split(done.out):
        if rec.startswith("worktree "):
            return Path(rec.removeprefix("worktree "))
    return None


@dataclass(frozen=True)
class Worktree:
    """One entry of ``git worktree list --porcelain``."""

    path: Path
    head: str | None
    branch: str | None
    """Short name (``main``), None when detached."""
    locked: str | None = None
    """The lock's reason ("" when locked without one); None when not locked."""
    prunable: bool = False
    """Its directory is gone (removed by hand)."""


def worktrees(root: Path) -> list[Worktree] | None:
    """Every work tree of the repository ``root`` is in, the main one first."""
    done = run(root, "worktree", "list", "--porcelain", "-z")
    if not done.ok:
        return None
    found: list[Worktree] = []
    fields: dict[str, str] = {}

    def flush() -> None:
        if "worktree" in fields:
            branch = fields.get("branch")
            found.append(
                Worktree(
                    path=Path(fields["worktree"]),
                    head=fields.get("HEAD"),
                    branch=branch.removeprefix("refs/heads/") if branch else None,
                    locked=fields.get("locked"),
                    prunable="prunable" in fields,
                )
            )
        fields.clear()

    for rec in done.out.decode("utf-8", "surrogateescape").split("\0"):
        if not rec:  # an empty record ends an entry
            flush()
            continue
        key, _, value = rec.partition(" ")
        fields[key] = value
    flush()
    return found


def rev_parse(root: Path, rev: str) -> str | None:
    """The commit ``rev`` names; None when it names none."""
    done = run(root, "rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}")
    return done.text if done.ok and done.text else None


def object_exists(root: Path, oid: str) -> bool:
    """The object ``oid`` is in the repository (an unreachable one may be pruned by gc)."""
    return run(root, "cat-file", "-e", "--end-of-options", oid).ok


def branch_exists(root: Path, branch: str) -> bool:
    """``refs/heads/<branch>`` exists."""
    return run(root, "show-ref", "--verify", "-q", f"refs/heads/{branch}").ok


def merge_base(root: Path, a: str, b: str) -> str | None:
    """The best common ancestor of two commits; None when they have none."""
    done = run(root, "merge-base", "--end-of-options", a, b)
    return done.text if done.ok and done.text else None


def is_ancestor(root: Path, a: str, b: str) -> bool:
    """Commit ``a`` is ``b`` or one of its ancestors."""
    return run(root, "merge-base", "--is-ancestor", "--end-of-options", a, b).ok


def commits_between(root: Path, base: str, tip: str, limit: int = 50) -> list[str]:
    """``<short sha> <subject>`` of the commits in ``tip`` not in ``base``, newest first."""
    done = run(root, "log", f"--max-count={limit}", "--format=%h %s", f"{base}..{tip}", "--")
    return done.text.splitlines() if done.ok and done.text else []


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
