"""A session's diff counts only what changed since it started (issue 39, item 5): files
that were untracked at its base, and edits made before it, are not its changes (the diff
once showed 5 files where the session wrote 1)."""

from __future__ import annotations

from pathlib import Path

from cctui.core import SessionConfig
from cctui.core.manager import SessionManager
from cctui.core.records import SessionRecords
from tests.helpers import git


def _repo(repo: Path) -> None:
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "T")
    git(repo, "config", "user.email", "t@example.com")
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    git(repo, "commit", "-qm", "first")


async def _based(manager: SessionManager, session_id: str) -> None:
    """The base snapshot is taken beside the process's start (a real claude needs far
    longer than git before its first write; the fake none): let it finish first."""
    task = manager._sessions.find(session_id).base_snapshot
    assert task is not None
    await task


async def test_untracked_and_dirty_files_at_the_start_are_not_the_sessions(
    manager: SessionManager, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    _repo(repo)
    # Before the session: the person's untracked notes, scratch files, an uncommitted edit.
    (repo / "notes.txt").write_text("mine\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "one.log").write_text("1\n")
    (repo / "a.py").write_text("x = 2\n")
    info = await manager.create("hi", SessionConfig(cwd=repo))
    await manager.wait(info.session_id, 5)
    await _based(manager, info.session_id)
    # What the session did (the fake writes no files: as its tools would have).
    (repo / "new.py").write_text("y = 1\n")
    (repo / "notes.txt").write_text("mine\nand the session's line\n")
    diff = await manager.diff(info.session_id)
    assert diff.base_kind == "start" and diff.base == git(repo, "rev-parse", "HEAD")
    assert [(f.path, f.status, f.added, f.removed) for f in diff.files] == [
        ("new.py", "A", 1, 0),
        ("notes.txt", "M", 1, 0),
    ]
    assert diff.patch is not None and "x = 2" not in diff.patch and "+and the session" in diff.patch
    # The base survives a restart (the registry keeps it).
    manager.flush()
    [record] = list(SessionRecords(manager.settings.state_dir).load().values())
    assert record.base_tree is not None


async def test_a_base_whose_snapshot_is_gone_falls_back_to_the_start_commit(
    manager: SessionManager, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    _repo(repo)
    info = await manager.create("hi", SessionConfig(cwd=repo))
    await manager.wait(info.session_id, 5)
    await _based(manager, info.session_id)
    manager._sessions.find(info.session_id).base_tree = "0" * 40  # pruned by git gc, say
    (repo / "new.py").write_text("y = 1\n")
    diff = await manager.diff(info.session_id)
    assert [f.path for f in diff.files] == ["new.py"]


async def test_a_repository_with_no_commit_is_diffed_against_its_files_at_the_start(
    manager: SessionManager, tmp_path: Path
) -> None:
    """``git init`` and no commit (the README's try-it once ran in one): the snapshot taken at
    the start is the base; the diff never blames cctui for not having seen the session."""
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "old.txt").write_text("there before\n")
    info = await manager.create("hi", SessionConfig(cwd=repo))
    await manager.wait(info.session_id, 5)
    await _based(manager, info.session_id)
    (repo / "hello.txt").write_text("hi\n")
    diff = await manager.diff(info.session_id)
    assert diff.source == "git" and diff.base is None and diff.base_kind == "none"
    assert [(f.path, f.status, f.added) for f in diff.files] == [("hello.txt", "A", 1)]
    assert diff.note is not None and "no commit when the session started" in diff.note
    assert "had not seen" not in diff.note
    # A message after its process ended (a resume) keeps that base, not a new one.
    session = manager._sessions.find(info.session_id)
    base_tree = session.base_tree
    await manager.end(info.session_id)
    await manager.send(info.session_id, "again")
    await manager.wait(info.session_id, 5)
    assert session.base_tree == base_tree
    assert [f.path for f in (await manager.diff(info.session_id)).files] == ["hello.txt"]


async def test_with_no_base_and_no_commit_the_note_says_so(
    manager: SessionManager, tmp_path: Path
) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    info = await manager.create("hi", SessionConfig(cwd=repo))
    await manager.wait(info.session_id, 5)
    await _based(manager, info.session_id)
    manager._sessions.find(info.session_id).base_tree = None  # say, a record from before
    diff = await manager.diff(info.session_id)
    assert diff.source == "transcript"
    assert diff.note is not None and "the git repository has no commit yet" in diff.note
    assert "had not seen" not in diff.note
