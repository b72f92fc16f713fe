"""A session's git worktree: where Claude Code puts it, and finishing it (merge, keep,
discard).

Claude Code creates the worktree itself (``claude --worktree <name>``): the directory
``<main work tree>/.claude/worktrees/<name>`` on a new branch ``worktree-<name>`` (a ``/``
in the name becomes ``+`` in both). The names follow the CLI's rules, checked here first so
a bad one is refused before a process starts. Finishing is cctui's: nothing here runs
unless a person (or a client) asked for it, and nothing that is not merged or committed is
removed without ``force``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cctui.errors import ValidationFailed
from cctui.fs import git
from cctui.fs.errors import GitFailed, NotAGitRepository
from cctui.pids import pid_alive

NAME_MAX = 64
_SEGMENT = re.compile(r"^[A-Za-z0-9._-]+$")
WORKTREES_DIR = (".claude", "worktrees")
"""Where Claude Code puts worktrees, under the main work tree."""


def check_name(name: str) -> None:
    """Raise ``ValidationFailed`` unless ``name`` is a worktree name the CLI takes:
    at most 64 characters, ``/``-separated segments of letters, digits, ``.``, ``_``, ``-``,
    none of them ``.``, ``..`` or ``.git``."""
    why = None
    if not name or len(name) > NAME_MAX:
        why = f"it must be 1 to {NAME_MAX} characters"
    else:
        for seg in name.split("/"):
            if seg in (".", ".."):
                why = "it must not contain '.' or '..' segments"
            elif seg.lower() == ".git":
                why = "'.git' is git's own name"
            elif not _SEGMENT.match(seg):
                why = "each '/'-separated part may only hold letters, digits, '.', '_' and '-'"
            if why:
                break
    if why:
        raise ValidationFailed(
            f"worktree name {name[:80]!r} is refused: {why}.",
            suggestion="Pick a name like 'fix-login' or 'feature/search'.",
        )


def slug(text: str, fallback: str) -> str:
    """A short worktree name from free text (a title): its first words, lower case, joined
    by ``-``, at most 24 characters."""
    name = ""
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(name) + len(word) + 1 > 24:
            break
        name = f"{name}-{word}" if name else word
    return name or fallback


def branch_for(name: str) -> str:
    """The branch Claude Code makes for a worktree name."""
    return "worktree-" + name.replace("/", "+")


@dataclass(frozen=True)
class WorktreePlan:
    """Where a new session's worktree will be and what it starts from."""

    name: str
    repo: Path
    """The repository's main work tree."""
    path: Path
    branch: str
    base_branch: str | None
    """The branch checked out where the session was asked for (None: a detached HEAD)."""
    base_commit: str


def plan(cwd: Path, name: str) -> WorktreePlan:
    """Check that ``cwd`` is in a repository with a commit and that ``name`` is free.

    Raises:
        NotAGitRepository: ``cwd`` is not in a git work tree.
        ValidationFailed: a bad name, no commit yet, or the name's branch or directory is
            taken (the CLI would silently reuse, and reset, an existing branch).
    """
    check_name(name)
    top = git.toplevel(cwd)
    repo = git.main_worktree(cwd) if top is not None else None
    if top is None or repo is None:
        raise NotAGitRepository(
            f"{cwd} is not in a git repository, so a session there cannot have a worktree.",
            suggestion="Start it without a worktree, or run `git init` and commit first.",
        )
    base = git.head(cwd)
    if base is None:
        raise ValidationFailed(
            f"the repository at {top} has no commit yet; a worktree branches from one.",
            suggestion="Commit once, or start the session without a worktree.",
        )
    path = repo.joinpath(*WORKTREES_DIR, name.replace("/", "+"))
    branch = branch_for(name)
    if path.exists() or git.branch_exists(repo, branch):
        raise ValidationFailed(
            f"worktree name {name!r} is taken ({path if path.exists() else 'branch ' + branch} "
            "exists).",
            suggestion="Pick another name, or finish the session that has it.",
        )
    return WorktreePlan(name, repo, path, branch, git.current_branch(cwd), base)


def find(repo: Path, path: Path) -> git.Worktree | None:
    """The repository's worktree at ``path``, if git lists one there."""
    for wt in git.worktrees(repo) or []:
        if wt.path == path:
            return wt
    return None


def dirty(path: Path) -> list[str]:
    """Uncommitted files of a work tree (modified, staged, untracked), porcelain lines."""
    status = git.status(path)
    if status is None:
        return []
    return [f"{code.strip() or code} {p}" for p, code in sorted(status.changed.items())]


_LOCK_PID = re.compile(r"\(pid (\d+)")


def lock_holder(wt: git.Worktree) -> int | None:
    """The live process holding Claude Code's lock on ``wt`` ("claude session NAME (pid N
    …)"); None when unlocked, locked by someone else, or the process is gone."""
    found = _LOCK_PID.search(wt.locked or "")
    if found is None:
        return None
    pid = int(found.group(1))
    return pid if pid_alive(pid) else None


def unlock_stale(repo: Path, path: Path) -> bool:
    """Lift Claude Code's lock on the worktree at ``path`` when the process it names has
    ended (a lock by anyone else, or a live process, stays). True when it was lifted."""
    wt = find(repo, path)
    if wt is None or wt.locked is None or not _LOCK_PID.search(wt.locked):
        return False
    if lock_holder(wt) is not None:
        return False
    return git.run(repo, "worktree", "unlock", str(path)).ok


def _must(done: git.GitRun, what: str) -> git.GitRun:
    if not done.ok:
        raise GitFailed(f"{what} failed: {done.err or 'git exited with ' + str(done.code)}")
    return done


def commit_all(path: Path, message: str) -> str | None:
    """Commit everything uncommitted in the work tree at ``path`` (its own index) on its
    branch; the new commit, or None when there was nothing to commit.

    Raises:
        GitFailed: git refused (no identity configured, a hook said no).
    """
    if not dirty(path):
        return None
    _must(git.run(path, "add", "-A"), "git add")
    _must(git.run(path, "commit", "-q", "-m", message, timeout=120), "git commit")
    return git.head(path)


def remove(repo: Path, path: Path, *, force: bool = False) -> None:
    """Remove the worktree at ``path`` (its lock, left by an ended CLI, first) and prune.

    Raises:
        GitFailed: git refused (without ``force``, a dirty tree is refused).
    """
    wt = find(repo, path)
    if wt is not None and wt.locked is not None:
        _must(git.run(repo, "worktree", "unlock", str(path)), "git worktree unlock")
    if path.exists():
        args = ["worktree", "remove", *(["--force"] if force else []), str(path)]
        _must(git.run(repo, *args, timeout=120), "git worktree remove")
    git.run(repo, "worktree", "prune")


def delete_branch(repo: Path, branch: str, *, force: bool = False) -> bool:
    """Delete ``branch``: ``-d`` (only when merged into HEAD or its upstream), ``-D`` with
    ``force``. False when git refused (the branch stays)."""
    if not git.branch_exists(repo, branch):
        return True
    return git.run(repo, "branch", "-D" if force else "-d", "--", branch).ok


@dataclass
class Merged:
    """What a merge did."""

    into: str
    fast_forward: bool
    commit: str | None
    """The branch's new tip (None: nothing to merge, it already contained the branch)."""
    where: Path | None = None
    """The work tree the merge ran in (None: the ref was moved without one)."""
    conflicts: list[str] = field(default_factory=list)


def conflicts(repo: Path, into: str, branch: str) -> tuple[str | None, list[str]]:
    """Merge ``branch`` into ``into`` in memory (``git merge-tree --write-tree``): the
    merged tree and no conflicts, or None and the conflicting files. Touches no work tree.

    Raises:
        GitFailed: git could not run the merge (an unknown ref, git older than 2.38).
    """
    args = ("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", into, branch)
    done = git.run(repo, *args, timeout=120)
    if done.code not in (0, 1):
        raise GitFailed(f"git merge-tree failed: {done.err or done.code}")
    fields = done.out.decode("utf-8", "surrogateescape").split("\0")
    if done.code == 0:
        return fields[0].strip(), []
    files: list[str] = []
    for item in fields[1:]:
        if not item:  # the conflicted-file list ends at an empty field; messages follow
            break
        files.append(item)
    return None, sorted(set(files))


def merge(repo: Path, branch: str, into: str, message: str) -> Merged:
    """Merge ``branch`` into ``into``: fast-forward when possible, else a merge commit.

    Conflicts are found first, in memory: then nothing changes and ``conflicts`` lists the
    files. Where ``into`` is checked out, git merges in that work tree (and refuses if that
    would overwrite its uncommitted changes: nothing is lost); elsewhere the ref is moved
    (``update-ref`` with the old value, so a concurrent change is not overwritten).

    Raises:
        GitFailed: an unknown branch, or git refused.
    """
    tip = git.rev_parse(repo, f"refs/heads/{branch}")
    target = git.rev_parse(repo, f"refs/heads/{into}")
    if tip is None or target is None:
        missing = branch if tip is None else into
        raise GitFailed(f"branch {missing!r} does not exist in {repo}.")
    if git.is_ancestor(repo, tip, target):
        return Merged(into, fast_forward=False, commit=None)
    ff = git.is_ancestor(repo, target, tip)
    tree: str | None = None
    if not ff:
        tree, clash = conflicts(repo, target, tip)
        if clash or tree is None:
            return Merged(into, fast_forward=False, commit=None, conflicts=clash)
    where = next((w.path for w in git.worktrees(repo) or [] if w.branch == into), None)
    if where is not None and where.exists():
        args = ["merge", "--ff-only", tip] if ff else ["merge", "--no-ff", "-m", message, branch]
        done = git.run(where, *args, timeout=120)
        if not done.ok:
            if git.rev_parse(where, "MERGE_HEAD") is not None:
                git.run(where, "merge", "--abort")
            raise GitFailed(f"git merge into {into} (checked out at {where}) refused: {done.err}")
        return Merged(into, fast_forward=ff, commit=git.head(where), where=where)
    if ff:
        new = tip
    else:
        made = _must(
            git.run(repo, "commit-tree", str(tree), "-p", target, "-p", tip, "-m", message),
            "git commit-tree",
        )
        new = made.text
    ref = f"refs/heads/{into}"
    _must(git.run(repo, "update-ref", "-m", message, ref, new, target), "git update-ref")
    return Merged(into, fast_forward=ff, commit=new)
