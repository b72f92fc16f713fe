"""Worktrees and diffs end to end: SessionManager + the real bundled ``claude`` (its own
``--worktree``) against the fake API, in real temporary git repositories."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.config import Settings
from cctui.core import (
    ChangesEvent,
    MergeConflict,
    SessionManager,
    SessionStatus,
    WorktreeGone,
    WorktreeRefused,
)
from cctui.fs.errors import NotAGitRepository
from tests.helpers import git

pytestmark = pytest.mark.e2e
S = SessionStatus


@pytest.fixture
def repo(project_dir: Path) -> Path:
    git(project_dir, "init", "-q", "-b", "main")
    git(project_dir, "config", "user.name", "Test")
    git(project_dir, "config", "user.email", "t@example.com")
    (project_dir / "f.txt").write_text("one\ntwo\nthree\n")
    git(project_dir, "add", "f.txt")
    git(project_dir, "commit", "-qm", "first")
    return project_dir


@pytest.fixture
async def manager(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path
) -> AsyncIterator[SessionManager]:
    settings = Settings(
        claude_code_path=claude_bin,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=tmp_path / "state",
        permission_timeout_ms=30_000,
    )
    m = SessionManager(settings)
    await m.start()
    yield m
    await m.shutdown()


def index_digest(repo: Path) -> str:
    return hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()


async def run_turn(manager: SessionManager, sid: str) -> None:
    outcome = await manager.wait(sid, 30)
    assert outcome.reason == "turn_ended", outcome


async def start(manager: SessionManager, repo: Path, name: str, prompt: str) -> str:
    config = manager.default_config(repo, permission_mode="acceptEdits")
    info = await manager.create(prompt, config, worktree=name)
    await run_turn(manager, info.session_id)
    return info.session_id


async def test_two_worktrees_edit_one_file_apart_then_merge_conflict_and_discard(
    manager: SessionManager, repo: Path
) -> None:
    index_before = index_digest(repo)
    a = await start(manager, repo, "a", "[[write path=f.txt content=from A\\n]]")
    b = await start(manager, repo, "b", "[[write path=f.txt content=from B\\n]]")
    wa, wb = manager.get(a).worktree, manager.get(b).worktree
    assert wa is not None and wb is not None
    assert wa.path == repo / ".claude" / "worktrees" / "a" and wa.branch == "worktree-a"
    assert wa.base_branch == "main" and wa.base_commit == git(repo, "rev-parse", "HEAD")
    assert manager.get(a).config.cwd == wa.path  # resumes and the transcript follow it
    # Each wrote its own copy; the checkout is untouched.
    assert (wa.path / "f.txt").read_text() == "from A\n"
    assert (wb.path / "f.txt").read_text() == "from B\n"
    assert (repo / "f.txt").read_text() == "one\ntwo\nthree\n"

    # main moves on meanwhile: the diffs stay each session's own (merge-base, not main).
    (repo / "other.txt").write_text("main's\n")
    git(repo, "add", "other.txt")
    git(repo, "commit", "-qm", "main moves on")
    index_before = index_digest(repo)
    diff_a = await manager.diff(a)
    assert diff_a.source == "git" and diff_a.base_kind == "merge-base"
    assert [(f.path, f.status, f.added, f.removed) for f in diff_a.files] == [("f.txt", "M", 1, 3)]
    assert diff_a.patch is not None and "+from A" in diff_a.patch and "from B" not in diff_a.patch
    diff_b = await manager.diff(b, patch=False)
    assert [f.path for f in diff_b.files] == ["f.txt"] and diff_b.patch is None
    assert index_digest(repo) == index_before  # the user's index is never written
    # The turn's end line count.
    changes = [e for e in manager.events(a).events if isinstance(e, ChangesEvent)]
    assert changes and changes[-1].summary == "1 file +1 \u22123"

    # Merge A: its uncommitted work is committed, main fast-forwards, the worktree goes.
    done = await manager.finish_worktree(a, "merge")
    assert done.committed is not None and done.removed and done.branch_deleted
    assert done.fast_forward is False  # main had moved on: a merge commit
    assert (repo / "f.txt").read_text() == "from A\n" and (repo / "other.txt").exists()
    assert not wa.path.exists() and manager.get(a).worktree.finished == "merged"  # type: ignore[union-attr]

    # Merge B conflicts: stopped, shown, nothing changed anywhere.
    main_tip = git(repo, "rev-parse", "main")
    with pytest.raises(MergeConflict) as conflict:
        await manager.finish_worktree(b, "merge")
    assert "f.txt" in conflict.value.message
    assert git(repo, "rev-parse", "main") == main_tip
    assert (wb.path / "f.txt").read_text() == "from B\n"
    assert git(wb.path, "status", "--porcelain") == "M f.txt"
    assert not (repo / ".git" / "MERGE_HEAD").exists()

    # Discarding B would lose its edit (and a live process): refused, listing it; forced.
    with pytest.raises(WorktreeRefused) as refused:
        await manager.finish_worktree(b, "discard")
    assert "f.txt" in refused.value.message
    assert wb.path.exists()
    done = await manager.finish_worktree(b, "discard", force=True)
    assert done.removed and done.branch_deleted and not wb.path.exists()
    assert "worktree-b" not in git(repo, "branch", "--list")
    assert manager.get(b).worktree.finished == "discarded"  # type: ignore[union-attr]


async def test_a_worktree_removed_by_hand_is_shown_as_gone(
    manager: SessionManager, repo: Path
) -> None:
    sid = await start(manager, repo, "c", "[[say text=hi]]")
    wt = manager.get(sid).worktree
    assert wt is not None
    await manager.end(sid)
    git(repo, "worktree", "remove", "--force", "--force", str(wt.path))
    info = manager.get(sid)
    assert info.worktree_gone and info.status == S.COMPLETED
    with pytest.raises(WorktreeGone):
        await manager.send(sid, "more")
    diff = await manager.diff(sid)
    assert diff.files == [] and diff.note is not None and "removed by hand" in diff.note
    done = await manager.finish_worktree(sid, "discard")  # nothing to lose: no force
    assert done.branch_deleted and not manager.get(sid).worktree_gone


async def test_worktree_outside_git_is_refused_and_plain_session_diffs_by_transcript(
    manager: SessionManager, project_dir: Path
) -> None:
    config = manager.default_config(project_dir, permission_mode="acceptEdits")
    with pytest.raises(NotAGitRepository):
        await manager.create("hi", config, worktree=True)
    assert manager.list() == []  # no silent plain session
    info = await manager.create("[[write path=notes.txt content=hello\\n]]", config)
    await run_turn(manager, info.session_id)
    diff = await manager.diff(info.session_id)
    assert diff.source == "transcript"
    assert [(f.path, f.status, f.added) for f in diff.files] == [("notes.txt", "A", 1)]
    assert diff.patch is not None and "+hello" in diff.patch


async def test_plain_session_diff_is_against_its_start_and_fork_into_a_worktree(
    manager: SessionManager, repo: Path
) -> None:
    git(repo, "checkout", "-qb", "feature")
    (repo / "f.txt").write_text("dirty before\n")  # the person's own uncommitted edit
    config = manager.default_config(repo, permission_mode="acceptEdits")
    info = await manager.create("[[write path=new.txt content=n\\n]]", config)
    await run_turn(manager, info.session_id)
    assert manager.get(info.session_id).base_commit == git(repo, "rev-parse", "HEAD")
    diff = await manager.diff(info.session_id)
    # Against the work tree as it started (named by its commit), not the default branch:
    # the person's edit from before is not the session's (issue 39).
    assert {f.path for f in diff.files} == {"new.txt"}
    assert diff.base_kind == "start" and diff.base == git(repo, "rev-parse", "HEAD")
    one = await manager.diff(info.session_id, path="new.txt")
    assert [f.path for f in one.files] == ["new.txt"]
    fork = await manager.fork(info.session_id, "[[say text=forked]]", worktree="side")
    await run_turn(manager, fork.session_id)
    wt = manager.get(fork.session_id).worktree
    assert wt is not None and wt.base_branch == "feature" and wt.branch == "worktree-side"
    assert wt.path.is_dir() and not (wt.path / "new.txt").exists()  # from HEAD, not the dirt
    # A worktree name that is taken is refused before anything starts.
    with pytest.raises(Exception, match="taken"):
        await manager.create("x", config, worktree="side")


async def test_keep_leaves_worktree_and_branch_and_lifts_the_ended_clis_lock(
    manager: SessionManager, repo: Path
) -> None:
    sid = await start(manager, repo, "kept", "[[write path=k.txt content=k\\n]]")
    wt = manager.get(sid).worktree
    assert wt is not None
    assert "locked" in git(repo, "worktree", "list", "--porcelain")  # the CLI's own lock
    done = await manager.finish_worktree(sid, "keep")
    assert not done.removed and wt.path.is_dir() and (wt.path / "k.txt").exists()
    assert "worktree-kept" in git(repo, "branch", "--list")
    assert "locked" not in git(repo, "worktree", "list", "--porcelain")
    assert manager.get(sid).worktree.finished == "kept"  # type: ignore[union-attr]


async def test_a_fork_working_in_the_worktree_is_listed_before_a_discard(
    manager: SessionManager, repo: Path
) -> None:
    sid = await start(manager, repo, "shared", "[[say text=hi]]")
    fork = await manager.fork(sid, "[[say text=me too]]")  # no worktree of its own
    await run_turn(manager, fork.session_id)
    await manager.end(sid)
    await manager.end(fork.session_id)
    preview = await manager.finish_preview(sid)
    assert preview.shared_with == [fork.session_id]
    with pytest.raises(WorktreeRefused, match=fork.session_id):
        await manager.finish_worktree(sid, "discard")
