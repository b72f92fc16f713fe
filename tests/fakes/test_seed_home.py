"""The README's try-it seeds a throw-away home: onboarding done, and a scratch project to
work in, so a session's files never land in the checkout the recipe runs from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _seed(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "tests.fakes.seed_home", *args],
        cwd=REPO,  # as the README runs it: from the checkout
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_with_no_directory_a_scratch_project_is_made_and_trusted_not_the_checkout(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = _seed(home)
    assert done.returncode == 0, done.stderr
    project = home / "project"
    trusted = json.loads((home / ".claude.json").read_text())["projects"]
    assert list(trusted) == [str(project.resolve())]
    assert str(REPO) not in trusted
    # A git repository with one commit: `d` has a base, `w` can fork it.
    log = subprocess.run(
        ["git", "log", "--oneline"], cwd=project, capture_output=True, text=True, check=True
    )
    assert len(log.stdout.splitlines()) == 1
    assert f"CLAUDE_CODE_DEFAULT_CWD={project.resolve()}" in done.stdout
    # Seeding again refuses (the home has a .claude.json now) and touches nothing.
    again = _seed(home)
    assert again.returncode == 1 and "not overwriting" in again.stderr


def test_named_directories_are_trusted_and_no_project_is_made(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    done = _seed(home, str(work))
    assert done.returncode == 0, done.stderr
    assert list(json.loads((home / ".claude.json").read_text())["projects"]) == [str(work)]
    assert not (home / "project").exists()


def test_the_readme_starts_cctui_in_the_scratch_project() -> None:
    readme = (REPO / "README.md").read_text()
    try_it = readme.split("## Try it without an account", 1)[1].split("\n## ", 1)[0]
    assert "python -m tests.fakes.seed_home" in try_it
    assert "CLAUDE_CODE_DEFAULT_CWD=$HOME/project .venv/bin/cctui" in try_it
