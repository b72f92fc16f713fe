"""The one git caller: status text for context sync, None outside a repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cctui.fs import git


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def test_status_text_is_porcelain_with_the_branch_and_none_outside_a_repo(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain").mkdir()
    assert git.status_text(tmp_path / "plain") is None
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-qm", "one")
    (repo / "a.txt").write_text("b\n")
    (repo / "new.txt").write_text("n\n")
    assert git.status_text(repo) == "## main\n M a.txt\n?? new.txt\n"
    assert git.current_branch(repo) == "main" and git.head(repo) is not None
