"""Seed a throw-away ``$HOME`` so the real ``claude`` runs there against the fake API: no
onboarding, no "use this API key?" question, the given directories trusted.

Plain Python (no pytest): the README's try-it recipe runs it before ``cctui``, so that
``o`` (Claude Code's own UI, interactive) starts instead of onboarding and exiting::

    export HOME=$(mktemp -d) ...
    .venv/bin/python -m tests.fakes.seed_home            # and a scratch project ~/project
    CLAUDE_CODE_DEFAULT_CWD=$HOME/project .venv/bin/cctui
    .venv/bin/python -m tests.fakes.seed_home DIR...     # or trust these directories

With no directory it makes ``~/project`` (a git repository with one commit, so ``d`` shows a
session's diff and ``w`` can fork it) and trusts that, not the current directory: the
try-it's sessions write their files there, never into the cctui checkout it ran from. It
refuses a home that has a ``.claude.json`` already (a real one, most likely).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

API_KEY = "sk-test"
"""The key the fake API accepts and the seed pre-approves."""


def seed_claude_home(home: Path, *projects: Path) -> None:
    """Write ``~/.claude.json`` so the CLI skips onboarding, key approval and trust prompts."""
    config_dir = home / ".claude"
    config_dir.mkdir(parents=True, exist_ok=True)
    seed = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {
            str(p): {
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                "allowedTools": [],
            }
            for p in projects
        },
    }
    text = json.dumps(seed, indent=2)
    # Without CLAUDE_CONFIG_DIR the CLI reads ~/.claude.json; with it, <dir>/.claude.json.
    (home / ".claude.json").write_text(text)
    (config_dir / ".claude.json").write_text(text)


PROJECT = "project"
"""The scratch project's directory under the seeded home."""
_GIT_ID = ("-c", "user.name=cctui try-it", "-c", "user.email=try-it@localhost")


def scratch_project(home: Path) -> Path:
    """``home/project``: a git repository with a README committed (made once)."""
    project = home / PROJECT
    if not (project / ".git").exists():
        project.mkdir(parents=True, exist_ok=True)
        (project / "README.md").write_text("A scratch project for trying cctui.\n")
        for args in (("init", "-q"), ("add", "README.md"), ("commit", "-qm", "A scratch project")):
            subprocess.run(["git", *_GIT_ID, *args], cwd=project, check=True)
    # The home is a throw-away one: git's identity there lets w/f (worktrees, merges) commit.
    gitconfig = home / ".gitconfig"
    if not gitconfig.exists():
        gitconfig.write_text("[user]\n\tname = cctui try-it\n\temail = try-it@localhost\n")
    return project


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fakes.seed_home",
        description="Seed a throw-away $HOME for the real claude and the fake API.",
    )
    parser.add_argument(
        "projects", nargs="*", type=Path, help="directories to trust (default: a new ~/project)"
    )
    parser.add_argument("--home", type=Path, help="the home to seed (default: $HOME)")
    args = parser.parse_args(argv)
    home = (args.home or Path(os.environ.get("HOME") or Path.home())).expanduser()
    if (home / ".claude.json").exists():
        print(
            f"{home / '.claude.json'} exists: not overwriting it (is HOME a throw-away "
            "directory? export HOME=$(mktemp -d) first)",
            file=sys.stderr,
        )
        return 1
    projects = [p.resolve() for p in args.projects] or [scratch_project(home)]
    seed_claude_home(home, *projects)
    trusted = ", ".join(str(p) for p in projects)
    print(f"seeded {home / '.claude.json'}: onboarding done, key {API_KEY} approved")
    print(f"trusted: {trusted}")
    if not args.projects:
        print(f"start cctui there: CLAUDE_CODE_DEFAULT_CWD={projects[0]} .venv/bin/cctui")
    return 0


if __name__ == "__main__":
    sys.exit(main())
