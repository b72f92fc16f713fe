"""Helpers more than one test room uses. (MCP client helpers — ``client``, ``authed``,
``ok``, ``call``, ``error_body`` — live in ``tests/mcp/conftest.py``.)"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
"""Who commits in a test repository (the machine may have no git identity at all)."""


def git(repo: Path, *args: str) -> str:
    """Run ``git -C repo args`` with a fixed identity; its output, stripped. Fails the
    test (``CalledProcessError``) when git does."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_IDENTITY},
    )
    return done.stdout.strip()
