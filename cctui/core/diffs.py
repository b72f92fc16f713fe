"""What a session changed: its diff against its own base, and a count at each turn's end.

The base is the work tree as it was when cctui started the session (or first saw it live):
a snapshot tree of it, untracked and uncommitted files included, so that files the person
(or another session) had there before are not counted as this session's; HEAD then is the
commit it names (and the base when the snapshot is gone: ``git gc`` prunes it in time). For
a session in a worktree, the merge-base of its branch with the branch it came from (so what
that branch did since does not show). Never the default branch. The work tree is read
through a temporary index (``cctui.fs.gitdiff``): committed, uncommitted and untracked
files alike, and the user's own index is not touched. Outside git, the files the session's
edit tools wrote (from its transcript) against their text before the first edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.core.session.events import ChangesEvent, ResultEvent, SessionEvent, UserMessageEvent
from cctui.core.session.session import Session
from cctui.fs import git, gitdiff
from cctui.history.edits import edited_files
from cctui.history.reader import find_transcript

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 2_000_000
"""A file outside git larger than this is counted but not diffed."""
_IN_PLACE_S = 30.0
"""How long a turn's count waits for its session to settle into its new worktree."""


class DiffFile(BaseModel):
    """One changed file."""

    model_config = ConfigDict(defer_build=True)

    path: str
    """Relative to the repository's top (outside git: to the session's directory, or
    absolute when the file is elsewhere)."""
    status: Literal["A", "M", "D", "T"]
    added: int | None
    """Lines added (None: a binary file)."""
    removed: int | None


class SessionDiff(BaseModel):
    """A session's changes against its base."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    source: Literal["git", "transcript"]
    """``git``: the work tree against the base commit; ``transcript``: the files the edit
    tools wrote (outside git, or with no base recorded)."""
    root: Path
    """Where the paths are relative to."""
    base: str | None = None
    """The commit the diff is against."""
    base_kind: Literal["merge-base", "start", "none"] = "none"
    """``merge-base``: of a worktree's branch with ``base_ref``; ``start``: HEAD when the
    session started (or cctui first saw it live)."""
    base_ref: str | None = None
    """The branch a worktree session came from."""
    files: list[DiffFile] = Field(default_factory=list)
    added: int = 0
    removed: int = 0
    patch: str | None = None
    """The unified diff; None when only counts were asked for."""
    cut: list[str] = Field(default_factory=list)
    """Files left out of ``patch`` (or cut short) to keep it within its bound."""
    note: str | None = None


def snapshot_base(session: Session, taken: Callable[[str], None]) -> asyncio.Task[None]:
    """Snapshot the work tree where ``session`` starts (its diff's base), in a thread; the
    session holds the task and ``session_diff`` waits for it; ``taken(session id)`` then
    (the registry keeps it). Taken beside the process's start, not before it: a claude
    process needs far longer than git before it can write a file."""

    async def take() -> None:
        session.base_tree = await asyncio.to_thread(gitdiff.snapshot, session.config.cwd)
        taken(session.id)

    task = asyncio.create_task(take())
    session.base_snapshot = task
    return task


async def session_diff(
    session: Session,
    config_dir: Path,
    *,
    path: str | None = None,
    patch: bool = True,
    max_bytes: int = gitdiff.MAX_PATCH_BYTES,
) -> SessionDiff:
    """``session``'s changes (blocking git work runs in a thread)."""
    if session.base_snapshot is not None:
        with contextlib.suppress(Exception):  # failed: the start commit is the base
            await asyncio.shield(session.base_snapshot)
    return await asyncio.to_thread(
        _diff, session, config_dir, path=path, patch=patch, max_bytes=max_bytes
    )


def _diff(
    session: Session, config_dir: Path, *, path: str | None, patch: bool, max_bytes: int
) -> SessionDiff:
    wt = session.worktree
    cwd = session.config.cwd
    note: str | None = None
    started: str | None = None  # a plain session's work tree as it started, when kept
    base: str | None
    kind: Literal["merge-base", "start", "none"]
    if wt is not None:
        base, kind, ref = _worktree_base(wt.repo, wt.branch, wt.base_branch, wt.base_commit)
        if wt.finished is not None or not wt.path.is_dir():
            # Removed by hand or finished: what is left is the branch's commits, if any.
            tree = git.rev_parse(wt.repo, f"refs/heads/{wt.branch}")
            where = wt.repo
            note = (
                f"The worktree {wt.path} is "
                + ("gone (removed by hand)" if wt.finished is None else wt.finished)
                + (
                    f"; showing the commits on branch {wt.branch}."
                    if tree
                    else f" and branch {wt.branch} is gone: nothing to show."
                )
            )
            if tree is None:
                return SessionDiff(
                    session_id=session.id,
                    source="git",
                    root=wt.repo,
                    base=base,
                    base_kind=kind,
                    base_ref=ref,
                    note=note,
                )
        else:
            tree = gitdiff.snapshot(wt.path)
            where = wt.path
    else:
        top = git.toplevel(cwd) if cwd.is_dir() else None
        started = (
            session.base_tree
            if top is not None and session.base_tree and git.object_exists(top, session.base_tree)
            else None
        )
        if top is None or (session.base_commit is None and started is None):
            return _from_transcript(session, config_dir, path, patch, max_bytes, _no_base(top))
        base, kind, ref = session.base_commit, "start", None
        tree = gitdiff.snapshot(cwd)
        where = top
        if base is None:
            # No commit when it started (a new repository): its snapshot is the base alone.
            kind = "none"
            note = "The repository had no commit when the session started: against its files then."
    # A plain session's diff runs from the work tree as it started, named by its commit.
    since = started or base
    found = (
        gitdiff.changes(where, since, tree, path=path, patch=patch, max_bytes=max_bytes)
        if tree and since
        else None
    )
    if found is None:
        return SessionDiff(
            session_id=session.id,
            source="git",
            root=where,
            base=base,
            base_kind=kind,
            base_ref=ref,
            note="git could not compute the diff (see the log).",
        )
    return SessionDiff(
        session_id=session.id,
        source="git",
        root=where,
        base=base,
        base_kind=kind,
        base_ref=ref,
        files=[
            DiffFile(path=f.path, status=f.status, added=f.added, removed=f.removed)
            for f in found.files
        ],
        added=found.added,
        removed=found.removed,
        patch=found.patch,
        cut=found.cut,
        note=_cut_note(found.cut, note),
    )


def _no_base(top: Path | None) -> str:
    """Why a session's diff cannot be taken against git (said in the transcript diff's note)."""
    if top is None:
        return "not in a git repository"
    if git.head(top) is None:
        return "the git repository has no commit yet"
    return (
        "no base was recorded: cctui has not run it since it was started elsewhere, "
        "or the repository had no commit then"
    )


def _worktree_base(
    repo: Path, branch: str, base_branch: str | None, base_commit: str
) -> tuple[str, Literal["merge-base", "start"], str | None]:
    """The merge-base of the worktree's branch with the branch it came from; the commit it
    branched from when either branch is gone."""
    if base_branch and git.branch_exists(repo, base_branch) and git.branch_exists(repo, branch):
        found = git.merge_base(repo, f"refs/heads/{base_branch}", f"refs/heads/{branch}")
        if found:
            return found, "merge-base", base_branch
    return base_commit, "start", base_branch


def _cut_note(cut: list[str], note: str | None) -> str | None:
    if not cut:
        return note
    extra = (
        f"The diff was cut to stay within its size bound; left out or cut short: "
        f"{', '.join(cut[:20])}"
        + (f" and {len(cut) - 20} more" if len(cut) > 20 else "")
        + ". Ask for one file with path."
    )
    return f"{note} {extra}" if note else extra


def _from_transcript(
    session: Session, config_dir: Path, path: str | None, patch: bool, max_bytes: int, why: str
) -> SessionDiff:
    cwd = session.config.cwd
    transcript = find_transcript(config_dir, session.id, str(cwd))
    edited = edited_files(transcript) if transcript is not None else []
    files: list[DiffFile] = []
    chunks: list[str] = []
    cut: list[str] = []
    size = 0
    for item in edited:
        try:
            rel = item.path.relative_to(cwd).as_posix()
        except ValueError:
            rel = str(item.path)
        if path is not None and rel != path and not rel.startswith(path.rstrip("/") + "/"):
            continue
        now = _read(item.path)
        if now == item.original:
            continue
        text = gitdiff.unified(rel, item.original, now)
        plus, minus = gitdiff.count(text)
        status: Literal["A", "M", "D"] = (
            "A" if item.original is None else ("D" if now is None else "M")
        )
        files.append(DiffFile(path=rel, status=status, added=plus, removed=minus))
        if patch:
            if size + len(text) <= max_bytes:
                chunks.append(text)
                size += len(text)
            else:
                cut.append(rel)
    note = (
        f"Files the session's edit tools wrote (from its transcript; {why}); changes made "
        "by Bash or by hand are not known."
    )
    return SessionDiff(
        session_id=session.id,
        source="transcript",
        root=cwd,
        files=files,
        added=sum(f.added or 0 for f in files),
        removed=sum(f.removed or 0 for f in files),
        patch="".join(chunks) if patch else None,
        cut=cut,
        note=_cut_note(cut, note),
    )


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


class TurnChanges:
    """Counts what each turn of a session in git changed, for its end line ("3 files +45
    −12"): a snapshot of the work tree when a message is sent, another when its turn ends,
    and a ``ChangesEvent`` with the difference.

    Subscribed to every event; git runs in a thread, never on the loop. Sessions outside git
    get no count.
    """

    def __init__(
        self,
        find: Callable[[str], Session | None],
        keep: Callable[[asyncio.Task[None]], None],
    ) -> None:
        self._find = find
        self._keep = keep
        self._start: dict[str, tuple[Path, asyncio.Task[str | None]]] = {}

    def observe(self, event: SessionEvent) -> None:
        if isinstance(event, UserMessageEvent):
            if event.session_id not in self._start:
                session = self._find(event.session_id)
                # Outside git there is nothing to count: known without a thread.
                if session is not None and git.maybe_repository(session.config.cwd):
                    cwd = session.config.cwd
                    task = asyncio.create_task(asyncio.to_thread(gitdiff.snapshot, cwd))
                    self._start[event.session_id] = (cwd, task)
        elif isinstance(event, ResultEvent):
            start = self._start.pop(event.session_id, None)
            session = self._find(event.session_id)
            if start is not None and session is not None:
                self._keep(asyncio.create_task(self._count(session, start)))

    async def _count(self, session: Session, start: tuple[Path, asyncio.Task[str | None]]) -> None:
        try:
            was, task = start
            before = await task
            # A turn that ended before the session was seen in its new worktree is counted
            # there, against the worktree's base, not in the checkout it left.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.in_place.wait(), _IN_PLACE_S)
            cwd = session.config.cwd
            if cwd != was:  # it moved into its new worktree, which began at its base
                before = session.base_commit
            after = await asyncio.to_thread(gitdiff.snapshot, cwd)
            if before is None or after is None:
                return
            found = await asyncio.to_thread(gitdiff.changes, cwd, before, after, patch=False)
        except Exception:  # a count is a nicety: never let it break a session
            log.exception("counting the changes of session %s", session.id)
            return
        if found is None:
            return
        session.publish(
            ChangesEvent(
                session_id=session.id,
                files=len(found.files),
                added=found.added,
                removed=found.removed,
                paths=[f.path for f in found.files[:50]],
            )
        )
