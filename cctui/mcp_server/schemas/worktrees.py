"""Wire models of the worktree and diff tools (camelCase on the wire)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from cctui.core import FinishResult, SessionDiff, WorktreeInfo
from cctui.mcp_server.schemas.common import Out

Worktree = Annotated[
    bool | Annotated[str, Field(min_length=1, max_length=64)] | None,
    Field(
        description="Run in a new git worktree of its own (Claude Code's --worktree): true "
        "for a name made from the title, or the name; the branch is worktree-<name> from the "
        "current HEAD, the directory <repo>/.claude/worktrees/<name>. Outside a git "
        "repository this is an error. Finish it with claude_finish_worktree"
    ),
]
"""The ``worktree`` argument of the tools that start a session."""


class WorktreeOut(Out):
    """A session's own git worktree."""

    name: str
    path: str
    branch: str
    """The session's branch (``worktree-<name>``)."""
    base_branch: str | None
    """The branch it came from: the one a merge goes into."""
    base_commit: str
    """The commit it branched from."""
    state: Literal["active", "gone", "merged", "kept", "discarded"]
    """``gone``: its directory was removed by hand before it was finished."""

    @classmethod
    def of(cls, wt: WorktreeInfo, *, gone: bool) -> WorktreeOut:
        """Build from the core's record."""
        return cls(
            name=wt.name,
            path=str(wt.path),
            branch=wt.branch,
            base_branch=wt.base_branch,
            base_commit=wt.base_commit,
            state=wt.finished or ("gone" if gone else "active"),
        )


class FileStatOut(Out):
    """One changed file."""

    path: str
    status: Literal["A", "M", "D", "T"]
    """Added, modified, deleted, type changed."""
    added: int | None
    """Lines added (null: a binary file)."""
    removed: int | None


class DiffOut(Out):
    """``claude_get_diff``: what a session changed against its own base."""

    session_id: str
    source: Literal["git", "transcript"]
    """``git``: the work tree (committed, uncommitted and untracked) against the base commit;
    ``transcript``: the files its edit tools wrote (outside git)."""
    root: str
    """The directory the paths are relative to."""
    base: str | None = None
    base_kind: Literal["merge-base", "start", "none"]
    """``merge-base``: a worktree branch's merge-base with ``baseRef``; ``start``: HEAD when
    the session started (or cctui first saw it live)."""
    base_ref: str | None = None
    files: list[FileStatOut]
    files_changed: int
    added: int
    removed: int
    diff: str | None = None
    """The unified diff (null with ``stat: true``)."""
    truncated: bool = False
    """The diff was cut to stay within its bound; ``cut`` names the files left out."""
    cut: list[str] = Field(default_factory=list)
    note: str | None = None

    @classmethod
    def of(cls, found: SessionDiff) -> DiffOut:
        """Build from the core's diff."""
        return cls(
            session_id=found.session_id,
            source=found.source,
            root=str(found.root),
            base=found.base,
            base_kind=found.base_kind,
            base_ref=found.base_ref,
            files=[
                FileStatOut(path=f.path, status=f.status, added=f.added, removed=f.removed)
                for f in found.files
            ],
            files_changed=len(found.files),
            added=found.added,
            removed=found.removed,
            diff=found.patch,
            truncated=bool(found.cut),
            cut=found.cut,
            note=found.note,
        )


class FinishOut(Out):
    """``claude_finish_worktree``: what finishing did."""

    session_id: str
    action: Literal["merge", "keep", "discard"]
    worktree: WorktreeOut
    committed: str | None = None
    """The commit made of the worktree's uncommitted work before a merge."""
    merge_commit: str | None = None
    """The base branch's new tip (null: it already had everything)."""
    fast_forward: bool | None = None
    removed: bool = False
    """The worktree's directory was removed."""
    branch_deleted: bool = False
    note: str = ""

    @classmethod
    def of(cls, done: FinishResult) -> FinishOut:
        """Build from the core's result."""
        return cls(
            session_id=done.session_id,
            action=done.action,
            worktree=WorktreeOut.of(done.worktree, gone=False),
            committed=done.committed,
            merge_commit=done.merge_commit,
            fast_forward=done.fast_forward,
            removed=done.removed,
            branch_deleted=done.branch_deleted,
            note=done.note,
        )
