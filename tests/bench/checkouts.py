"""What the benches that compare two revisions share (``--old DIR``, a ``git worktree`` of
the other revision, run with this checkout's virtualenv).

A checkout is imported from its directory (``PYTHONPATH``) and byte-compiled first: with
``PYTHONDONTWRITEBYTECODE`` set (as on the project's machine) or a checkout never imported,
every start would compile every module again, ~0.3 s of CPU an installed cctui never pays.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def compile_checkout(checkout: Path) -> None:
    """Byte-compile ``checkout``'s cctui, as an installed one is."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "cctui")],
                   check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})  # fmt: skip


def cctui_env(checkout: Path, *, home: Path, config_dir: Path, cache: Path) -> dict[str, str]:
    """The environment of a cctui from ``checkout`` over ``config_dir`` (Claude Code's
    directory), keeping its caches and state under ``cache``."""
    return {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "XDG_CACHE_HOME": str(cache),
        "XDG_STATE_HOME": str(cache / "state"),
        "XDG_CONFIG_HOME": str(cache / "config"),
        "PYTHONPATH": str(checkout),
    }
