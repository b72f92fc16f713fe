"""Files a task committed count as created, modified or deleted (``changes`` diffs HEAD too)."""

from __future__ import annotations

from pathlib import Path

from cctui.projects.changes import diff, snapshot
from tests.helpers import git


def _repo(top: Path) -> None:
    top.mkdir(parents=True, exist_ok=True)
    git(top, "init", "-q")


def test_committed_files_are_created_modified_and_deleted(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _repo(root)
    for name in ("kept.txt", "edited.txt", "gone.txt", "moved.txt"):
        (root / name).write_text(name)
    (root / "untracked.txt").write_text("there before")
    git(root, "add", "kept.txt", "edited.txt", "gone.txt", "moved.txt")
    git(root, "commit", "-qm", "init")
    before = snapshot(root)
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_text("new")
    (root / "edited.txt").write_text("v2")
    (root / "untracked.txt").write_text("there before, now committed")
    (root / "gone.txt").unlink()
    git(root, "mv", "moved.txt", "renamed.txt")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "task")
    (root / "after.txt").write_text("not committed")
    (root / "src" / "a.txt").write_text("new, then edited again")  # still created
    changes = diff(root, before, snapshot(root))
    assert changes.created == ["after.txt", "renamed.txt", "src/a.txt"]
    assert changes.modified == ["edited.txt", "untracked.txt"]
    assert changes.deleted == ["gone.txt", "moved.txt"]


def test_the_first_commit_and_a_project_below_the_repository_top(tmp_path: Path) -> None:
    top = tmp_path / "top"
    _repo(top)
    root = top / "sub"
    root.mkdir()
    (top / "outside.txt").write_text("not the project's")
    before = snapshot(root)  # no commit yet: HEAD is unborn
    assert before.source == "git"
    (root / "a.txt").write_text("a")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "first")
    (root / "b.txt").write_text("b")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "second")
    changes = diff(root, before, snapshot(root))
    assert changes.created == ["a.txt", "b.txt"]
    assert changes.modified == [] and changes.deleted == []


def test_cctuis_state_files_are_not_a_tasks_changes(tmp_path: Path) -> None:
    """The task's record is written after the before-snapshot: neither it, its lock, its
    backups nor its temp files are the task's work (plain directory and git, where .claude/
    is not ignored); a file of the task's own in .claude/ still counts."""
    plain = tmp_path / "plain"
    plain.mkdir()
    repo = tmp_path / "repo"
    _repo(repo)
    (repo / "seed.txt").write_text("x")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    for root in (plain, repo):
        before = snapshot(root)
        state = root / ".claude"
        state.mkdir()
        for name in (
            "session_state.json",
            "session_state.json.lock",
            "session_state.json.corrupt-1",
            ".session_state.json.ab12.tmp",
        ):
            (state / name).write_text("{}")
        (state / "settings.json").write_text("{}")
        (root / "made.txt").write_text("the task's")
        changes = diff(root, before, snapshot(root))
        assert changes.created == [".claude/settings.json", "made.txt"], root
        assert changes.modified == [] and changes.deleted == [], root


def test_a_custom_state_directory_is_the_one_left_out(tmp_path: Path) -> None:
    before = snapshot(tmp_path, "meta/")
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "session_state.json").write_text("{}")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "session_state.json").write_text("{}")
    changes = diff(tmp_path, before, snapshot(tmp_path, "meta/"))
    assert changes.created == [".claude/session_state.json"]
