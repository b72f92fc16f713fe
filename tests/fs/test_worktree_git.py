"""cctui.fs worktree and diff helpers on real temporary repositories: the diff through a
temporary index (the user's index untouched, nested worktrees left out, the bound), and
merging without a checkout (a fast-forward moves the ref, a merge commit is made, a
conflict changes nothing)."""

from __future__ import annotations

import hashlib
import subprocess
import time
from pathlib import Path

import pytest

from cctui.errors import ValidationFailed
from cctui.fs import git, gitdiff, worktree
from cctui.fs.errors import NotAGitRepository


def run(repo: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo), *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    run(path, "init", "-q", "-b", "main")
    run(path, "config", "user.name", "T")
    run(path, "config", "user.email", "t@example.com")
    (path / "a.txt").write_text("one\n")
    run(path, "add", "a.txt")
    run(path, "commit", "-qm", "first")
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_snapshot_diff_sees_everything_and_leaves_the_index_alone(repo: Path) -> None:
    base = git.head(repo)
    assert base is not None
    (repo / "a.txt").write_text("one\ntwo\n")
    run(repo, "add", "a.txt")  # staged
    (repo / "b.txt").write_text("new\n")  # untracked
    (repo / ".gitignore").write_text("ignored.txt\n")
    (repo / "ignored.txt").write_text("x\n")
    run(repo, "worktree", "add", "-q", "-b", "side", str(repo / ".claude" / "worktrees" / "s"))
    index = digest(repo / ".git" / "index")
    status = run(repo, "status", "--porcelain")
    tree = gitdiff.snapshot(repo)
    assert tree is not None
    found = gitdiff.changes(repo, base, tree)
    assert found is not None
    assert {(f.path, f.status, f.added, f.removed) for f in found.files} == {
        ("a.txt", "M", 1, 0),
        ("b.txt", "A", 1, 0),
        (".gitignore", "A", 1, 0),
    }
    assert digest(repo / ".git" / "index") == index and run(repo, "status", "--porcelain") == status


def test_a_big_diff_is_cut_at_a_file_boundary_and_names_what_it_left_out(repo: Path) -> None:
    base = git.head(repo)
    assert base is not None
    for name in ("b.txt", "c.txt", "d.txt"):
        (repo / name).write_text("line\n" * 400)
    tree = gitdiff.snapshot(repo)
    assert tree is not None
    found = gitdiff.changes(repo, base, tree, max_bytes=3000)
    assert found is not None and found.patch is not None
    assert len(found.files) == 3 and found.added == 1200  # the counts are always whole
    assert found.cut and len(found.patch.encode()) <= 3100
    only = gitdiff.changes(repo, base, tree, path="c.txt", patch=False)
    assert only is not None and [f.path for f in only.files] == ["c.txt"] and only.patch is None


def test_merge_without_a_checkout_moves_the_ref_or_commits_and_a_conflict_changes_nothing(
    repo: Path,
) -> None:
    run(repo, "branch", "target")
    run(repo, "checkout", "-q", "-b", "work")
    (repo / "a.txt").write_text("one\nwork\n")
    run(repo, "commit", "-qam", "work")
    run(repo, "checkout", "-q", "main")
    done = worktree.merge(repo, "work", "target", "merge it")
    assert done.fast_forward and done.where is None
    assert git.rev_parse(repo, "target") == git.rev_parse(repo, "work")

    run(repo, "checkout", "-q", "-b", "other", "main")
    (repo / "c.txt").write_text("c\n")
    run(repo, "add", "c.txt")
    run(repo, "commit", "-qm", "other")
    run(repo, "checkout", "-q", "main")
    done = worktree.merge(repo, "other", "target", "merge other")
    assert not done.fast_forward and done.commit is not None
    assert run(repo, "log", "-1", "--format=%P", "target").count(" ") == 1  # two parents

    run(repo, "checkout", "-q", "-b", "clash", "main")
    (repo / "a.txt").write_text("one\nclash\n")
    run(repo, "commit", "-qam", "clash")
    run(repo, "checkout", "-q", "main")
    before = git.rev_parse(repo, "target")
    done = worktree.merge(repo, "clash", "target", "no")
    assert done.conflicts == ["a.txt"] and done.commit is None
    assert git.rev_parse(repo, "target") == before


def test_plan_checks_the_name_the_repository_and_what_is_taken(repo: Path, tmp_path: Path) -> None:
    made = worktree.plan(repo, "feature/x")
    assert made.path == repo / ".claude" / "worktrees" / "feature+x"
    assert made.branch == "worktree-feature+x" and made.base_branch == "main"
    for bad in ("../x", ".git", "a b", "x" * 65, ""):
        with pytest.raises(ValidationFailed):
            worktree.plan(repo, bad)
    run(repo, "branch", "worktree-taken")
    with pytest.raises(ValidationFailed, match="taken"):
        worktree.plan(repo, "taken")
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotAGitRepository):
        worktree.plan(tmp_path / "plain", "x")
    assert worktree.slug("Fix the flaky test in tests/core", "fb") == "fix-the-flaky-test-in"


def test_a_snapshot_sees_an_edit_git_could_only_tell_by_content(tmp_path: Path) -> None:
    """A same-size edit in the second of the last commit is "racily clean": git's stat cache
    cannot tell it (git compares whole seconds), so git hashes the file because the index
    is no older than it. The private copy of the index keeps the original's time; a copy
    stamped later made git trust the cache, and a snapshot taken a second on (as under
    load) kept the committed text: the diff called the person's own edit the session's."""
    repo = tmp_path / "repo"
    repo.mkdir()
    run(repo, "init", "-q", "-b", "main")
    run(repo, "config", "user.name", "T")
    run(repo, "config", "user.email", "t@example.com")
    a = repo / "a.py"
    while True:  # the commit and the edit in one second (the condition, not a retry of it)
        start = int(time.time())
        a.write_text("x = 1\n")
        run(repo, "add", "a.py")
        run(repo, "commit", "-qm", "first", "--allow-empty")
        a.write_text("x = 2\n")  # the same size
        if int(time.time()) == start:
            break
    time.sleep(start + 1.05 - time.time())  # the snapshot a second later
    tree = gitdiff.snapshot(repo)
    assert tree is not None
    assert run(repo, "show", f"{tree}:a.py") == "x = 2"
