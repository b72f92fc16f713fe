"""The one git caller: status text for context sync, None outside a repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cctui.fs import git
from tests import helpers


def test_status_text_is_porcelain_with_the_branch_and_none_outside_a_repo(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain").mkdir()
    assert git.status_text(tmp_path / "plain") is None
    repo = tmp_path / "repo"
    repo.mkdir()
    helpers.git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    helpers.git(repo, "add", "a.txt")
    helpers.git(repo, "commit", "-qm", "one")
    (repo / "a.txt").write_text("b\n")
    (repo / "new.txt").write_text("n\n")
    assert git.status_text(repo) == "## main\n M a.txt\n?? new.txt\n"
    assert git.current_branch(repo) == "main" and git.head(repo) is not None


def test_toplevel_asks_git_once_per_repository_and_never_outside_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, ...]] = []
    real_run = git.run

    def counting(root: Path, *args: str, **kw: Any) -> git.GitRun:
        calls.append(args)
        return real_run(root, *args, **kw)

    monkeypatch.setattr(git, "run", counting)
    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    assert not git.maybe_repository(plain)
    assert git.toplevel(plain) is None and calls == []  # no .git above: git is not asked

    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    helpers.git(repo, "init", "-q", "-b", "main")
    assert git.maybe_repository(repo / "sub")
    assert git.toplevel(repo / "sub") == repo.resolve()
    assert git.toplevel(repo / "sub") == repo.resolve()
    assert len(calls) == 1  # the second answer was kept

    # A new repository inside (its own .git) is found, not the kept answer.
    helpers.git(repo / "sub", "init", "-q", "-b", "main")
    assert git.toplevel(repo / "sub") == (repo / "sub").resolve()
    assert len(calls) == 2

    # With git's discovery steered by the environment, git is always asked.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert git.maybe_repository(plain)
    assert git.toplevel(plain) is None and len(calls) == 3
