"""A session's worktree: planned before its first process, recorded after, and finished
(merge, keep, discard) on request.

Claude Code makes the worktree (``claude --worktree <name>``, branched from HEAD); cctui
checks the name and the repository first, records where it went, and finishes it. git
itself is run only from ``cctui.fs`` (``worktree.py``, ``gitdiff.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.core.session.models import SessionConfig, WorktreeInfo
from cctui.core.session.session import Session
from cctui.errors import CctuiError, SessionNotReady, ValidationFailed
from cctui.fs import git, gitdiff
from cctui.fs import worktree as fsworktree
from cctui.fs.worktree import WorktreePlan

Action = Literal["merge", "keep", "discard"]
WorktreeRequest = bool | str | None
"""``True``: a worktree with a name made from the title; a string: that name; None/False: none."""

_APPEAR_S = 10.0
"""How long after the process connected cctui waits for the CLI's worktree to appear."""


class WorktreeRefused(CctuiError):
    """Finishing would lose work (uncommitted files, unmerged commits, a live process) and
    ``force`` was not given; the message lists what would be lost."""

    code = "worktree_refused"


class MergeConflict(CctuiError):
    """The session's branch conflicts with the branch it came from; nothing was changed."""

    code = "merge_conflict"


class NoWorktree(CctuiError):
    """The session does not run in a worktree of its own, or it was finished already."""

    code = "no_worktree"


class WorktreeGone(CctuiError):
    """The session's worktree was removed by hand; it cannot be resumed there."""

    code = "worktree_gone"


async def plan(config: SessionConfig, request: WorktreeRequest, session_id: str) -> WorktreePlan:
    """Check the repository and the name before anything is spawned.

    Raises:
        NotAGitRepository, ValidationFailed.
    """
    if isinstance(request, str):
        return await asyncio.to_thread(fsworktree.plan, config.cwd, request)
    name = fsworktree.slug(config.title or "", f"cctui-{session_id[:8]}")
    try:
        return await asyncio.to_thread(fsworktree.plan, config.cwd, name)
    except ValidationFailed:
        # A made-up name that is taken (or odd) gets the session id; a given one never does.
        unique = f"{name[:40]}-{session_id[:8]}"
        return await asyncio.to_thread(fsworktree.plan, config.cwd, unique)


async def adopt(session: Session, made: WorktreePlan) -> None:
    """Record the worktree the CLI made for ``session`` and move the session into it (its
    cwd, where a resume runs and its transcript lives).

    Raises:
        ValidationFailed: the CLI did not make it where it says (a WorktreeCreate hook may
            put it elsewhere): the session is told, not silently left in the checkout.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _APPEAR_S
    while not await asyncio.to_thread(_listed, made):
        if loop.time() > deadline:
            raise ValidationFailed(
                f"claude did not create the worktree {made.path} (branch {made.branch}).",
                suggestion="Check the repository's WorktreeCreate hooks and `git worktree list`.",
            )
        await asyncio.sleep(0.1)
    session.worktree = WorktreeInfo(
        name=made.name,
        path=made.path,
        branch=made.branch,
        base_branch=made.base_branch,
        base_commit=made.base_commit,
        repo=made.repo,
    )
    session.base_commit = made.base_commit
    # Listed under its repository's name, not the worktree directory's.
    project = session.config.project or made.repo.name
    session.config = session.config.model_copy(update={"cwd": made.path, "project": project})


def _listed(made: WorktreePlan) -> bool:
    wt = fsworktree.find(made.repo, made.path)
    return wt is not None and wt.branch == made.branch


def check_resumable(session: Session) -> None:
    """Raise ``WorktreeGone`` for a session whose worktree was removed by hand."""
    wt = session.worktree
    if wt is not None and session.worktree_gone:
        raise WorktreeGone(
            f"session {session.id}'s worktree {wt.path} was removed; it cannot run there.",
            suggestion=f"Finish it (discard, or merge branch {wt.branch} if it has commits).",
        )


class FinishPreview(BaseModel):
    """What finishing a session's worktree would meet: shown before a person confirms."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    worktree: WorktreeInfo
    gone: bool
    """The directory was removed by hand."""
    live: bool
    """A claude process runs in it."""
    busy: bool
    """A turn is running."""
    uncommitted: list[str] = Field(default_factory=list)
    """Porcelain lines (``M file``, ``?? new``) of uncommitted work."""
    unmerged: list[str] = Field(default_factory=list)
    """Commits on the branch that its base branch does not have (``sha subject``)."""
    shared_with: list[str] = Field(default_factory=list)
    """Other sessions cctui knows that work in the same directory (a fork without a
    worktree of its own, say): they would lose their directory."""
    foreign_pid: int | None = None
    """A live claude process cctui did not start holds the worktree's lock."""

    @property
    def would_lose(self) -> list[str]:
        """What a discard would lose, one line each."""
        lost = [f"uncommitted: {line}" for line in self.uncommitted]
        lost += [f"commit: {line}" for line in self.unmerged]
        lost += [f"the directory of session {sid}" for sid in self.shared_with]
        if self.foreign_pid is not None:
            lost.insert(0, f"claude (pid {self.foreign_pid}, not cctui's) works in it")
        if self.live:
            lost.insert(0, "a live claude process (it would be killed)")
        return lost


class FinishResult(BaseModel):
    """What a finish did."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    action: Action
    worktree: WorktreeInfo
    committed: str | None = None
    """The commit made of the worktree's uncommitted work before a merge."""
    merge_commit: str | None = None
    """The base branch's new tip after a merge (None: it already had everything)."""
    fast_forward: bool | None = None
    removed: bool = False
    """The worktree's directory was removed."""
    branch_deleted: bool = False
    note: str = ""


def _require(session: Session) -> WorktreeInfo:
    wt = session.worktree
    if wt is None:
        raise NoWorktree(
            f"session {session.id} does not run in a worktree of its own.",
            suggestion="Only sessions started with a worktree can be finished.",
        )
    if wt.finished is not None:
        raise NoWorktree(f"session {session.id}'s worktree was already finished ({wt.finished}).")
    return wt


def _inspect(session: Session, wt: WorktreeInfo, shared_with: list[str]) -> FinishPreview:
    gone = not wt.path.is_dir()
    listed = fsworktree.find(wt.repo, wt.path)
    holder = fsworktree.lock_holder(listed) if listed is not None else None
    base = wt.base_branch if wt.base_branch and git.branch_exists(wt.repo, wt.base_branch) else None
    unmerged = (
        git.commits_between(wt.repo, base or wt.base_commit, f"refs/heads/{wt.branch}")
        if git.branch_exists(wt.repo, wt.branch)
        else []
    )
    return FinishPreview(
        session_id=session.id,
        worktree=wt,
        gone=gone,
        live=session.process.alive,
        busy=session.process.alive and session.turns.busy,
        uncommitted=[] if gone else fsworktree.dirty(wt.path),
        unmerged=unmerged,
        shared_with=shared_with,
        foreign_pid=holder if holder is not None and holder != session.process.pid else None,
    )


async def preview(session: Session, shared_with: list[str] | None = None) -> FinishPreview:
    """What a finish of ``session``'s worktree would meet. Raises NoWorktree."""
    wt = _require(session)
    return await asyncio.to_thread(_inspect, session, wt, shared_with or [])


_FINISHED: dict[Action, Literal["merged", "kept", "discarded"]] = {
    "merge": "merged",
    "keep": "kept",
    "discard": "discarded",
}

Stop = Callable[[bool], Awaitable[None]]
"""Ends the session's process (``True``: kill at once)."""


async def finish(
    session: Session,
    action: Action,
    *,
    force: bool,
    stop: Stop,
    shared_with: list[str] | None = None,
) -> FinishResult:
    """Merge, keep or discard ``session``'s worktree.

    - merge: the worktree's uncommitted work is committed on its branch, the branch is
      merged into the branch it came from (fast-forward, else a merge commit), and the
      worktree and the merged branch are removed. Conflicts are found before anything
      changes: then nothing does, and ``MergeConflict`` names the files.
    - keep: the worktree and the branch stay as they are, for the person to take on.
    - discard: the worktree and its branch are removed. Uncommitted work, commits the base
      branch does not have, or a live process refuse it unless ``force``.

    A running turn refuses merge and keep unless ``force`` (which kills the process).

    Raises:
        NoWorktree, WorktreeRefused, MergeConflict, SessionNotReady, GitFailed.
    """
    wt = _require(session)
    seen = await asyncio.to_thread(_inspect, session, wt, shared_with or [])
    if action == "discard":
        lost = seen.would_lose
        if lost and not force:
            raise WorktreeRefused(
                f"discarding {wt.path} (branch {wt.branch}) would lose: "
                + "; ".join(lost[:30])
                + (f"; and {len(lost) - 30} more" if len(lost) > 30 else ""),
                suggestion="Merge or keep it instead, or pass force to discard anyway.",
            )
    elif action == "merge" and seen.foreign_pid is not None and not force:
        raise WorktreeRefused(
            f"claude (pid {seen.foreign_pid}), which cctui did not start, works in {wt.path}; "
            "the merge would remove the worktree under it.",
            suggestion="End that process first, keep the worktree, or pass force.",
        )
    elif seen.busy and not force:
        raise SessionNotReady(
            f"session {session.id} is running a turn in its worktree.",
            suggestion="Wait for the turn to end or interrupt it; force kills it first.",
        )
    if seen.live:
        await stop(force)
    if action == "keep":
        # The CLI's lock names a process that has ended: lift it, so git lets the person
        # remove or move the worktree by hand.
        await asyncio.to_thread(fsworktree.unlock_stale, wt.repo, wt.path)
        result = FinishResult(
            session_id=session.id,
            action="keep",
            worktree=wt,
            note=f"Kept: branch {wt.branch}"
            + ("" if seen.gone else f" and its worktree {wt.path}")
            + " are left as they are.",
        )
    elif action == "discard":
        result = await asyncio.to_thread(_discard, session, wt)
    else:
        result = await asyncio.to_thread(_merge, session, wt, seen)
    session.worktree = wt.model_copy(
        update={"finished": _FINISHED[action], "finished_at": datetime.now(UTC)}
    )
    return result.model_copy(update={"worktree": session.worktree})


def _discard(session: Session, wt: WorktreeInfo) -> FinishResult:
    fsworktree.remove(wt.repo, wt.path, force=True)
    deleted = fsworktree.delete_branch(wt.repo, wt.branch, force=True)
    return FinishResult(
        session_id=session.id,
        action="discard",
        worktree=wt,
        removed=True,
        branch_deleted=deleted,
        note=f"Discarded {wt.path} and branch {wt.branch}.",
    )


def _merge(session: Session, wt: WorktreeInfo, seen: FinishPreview) -> FinishResult:
    into = wt.base_branch
    if into is None or not git.branch_exists(wt.repo, into):
        raise ValidationFailed(
            f"session {session.id} came from "
            + (f"branch {into}, which no longer exists" if into else "a detached HEAD")
            + ": there is no branch to merge into.",
            suggestion=f"Keep it and merge branch {wt.branch} by hand.",
        )
    label = session.title or session.id[:8]
    committed: str | None = None
    if not seen.gone and seen.uncommitted:
        # Check the merge with the uncommitted work included before committing anything.
        tree = gitdiff.snapshot(wt.path)
        head = git.head(wt.path)
        if tree is not None and head is not None:
            probe = git.run(wt.path, "commit-tree", tree, "-p", head, "-m", "cctui merge check")
            if probe.ok:
                _, clash = fsworktree.conflicts(wt.repo, into, probe.text)
                _conflict(session, wt, into, clash)
        committed = fsworktree.commit_all(
            wt.path, f"{label}\n\nWork of cctui session {session.id} (uncommitted at merge)."
        )
    merged = fsworktree.merge(
        wt.repo, wt.branch, into, f"Merge {wt.branch}: {label} (cctui session {session.id[:8]})"
    )
    _conflict(session, wt, into, merged.conflicts)
    removed = deleted = False
    if seen.shared_with:
        pass  # another session works there: its directory and branch stay
    elif not seen.gone:
        fsworktree.remove(wt.repo, wt.path)
        removed = True
    else:
        git.run(wt.repo, "worktree", "prune")
    if not seen.shared_with:
        tip = git.rev_parse(wt.repo, f"refs/heads/{wt.branch}")
        contained = tip is not None and git.is_ancestor(wt.repo, tip, f"refs/heads/{into}")
        deleted = contained and fsworktree.delete_branch(wt.repo, wt.branch, force=True)
    how = (
        "already contained it"
        if merged.commit is None
        else ("fast-forward" if merged.fast_forward else "merge commit")
    )
    return FinishResult(
        session_id=session.id,
        action="merge",
        worktree=wt,
        committed=committed,
        merge_commit=merged.commit,
        fast_forward=merged.fast_forward if merged.commit else None,
        removed=removed,
        branch_deleted=deleted,
        note=f"Merged {wt.branch} into {into} ({how})"
        + (f" in {merged.where}" if merged.where else "")
        + "."
        + (
            f" The worktree stays: session {', '.join(seen.shared_with)} works in it."
            if seen.shared_with
            else ""
        ),
    )


def _conflict(session: Session, wt: WorktreeInfo, into: str, files: list[str]) -> None:
    if files:
        shown = ", ".join(files[:30]) + (f" and {len(files) - 30} more" if len(files) > 30 else "")
        raise MergeConflict(
            f"merging {wt.branch} into {into} conflicts in: {shown}. Nothing was changed: "
            f"the branch, its worktree {wt.path} and {into} are as they were.",
            suggestion=f"Resolve it by hand (git merge {wt.branch} on {into}), or keep the "
            "worktree.",
        )
