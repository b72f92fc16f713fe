"""Finding the ``claude`` binary and wrapping it in a launch prefix."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cctui.errors import CliNotFound


def bundled_cli() -> Path | None:
    """The CLI that claude-agent-sdk's wheel bundles, if present."""
    import claude_agent_sdk

    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return path if path.is_file() else None


def find_cli(cli_path: Path | None = None) -> Path:
    """``cli_path`` if given, else the bundled CLI, else ``claude`` on PATH.

    Raises:
        CliNotFound: with where it looked.
    """
    if cli_path is not None:
        if cli_path.is_file() and os.access(cli_path, os.X_OK):
            return cli_path
        raise CliNotFound(
            f"claude binary not found or not executable: {cli_path}",
            suggestion="Fix CLAUDE_CODE_PATH or unset it to use the bundled CLI.",
        )
    found = bundled_cli() or (Path(w) if (w := shutil.which("claude")) else None)
    if found is None:
        raise CliNotFound(
            "no claude binary: claude-agent-sdk bundles none and none is on PATH",
            suggestion="Set CLAUDE_CODE_PATH to a claude binary.",
        )
    return found


def cli_version(cli_path: Path | None = None, timeout_s: float = 10.0) -> str:
    """``claude --version`` (e.g. ``2.1.330 (Claude Code)``). Blocking; run it in a thread.

    Raises:
        CliNotFound: the binary is missing or does not run.
    """
    path = find_cli(cli_path)
    try:
        done = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CliNotFound(f"{path} does not run: {exc}") from None
    if done.returncode != 0:
        raise CliNotFound(f"{path} --version exited with {done.returncode}")
    return done.stdout.strip()


def launcher(prefix: tuple[str, ...], cli: Path) -> Path:
    """A tiny executable that runs ``prefix... cli "$@"`` (the SDK only takes one path),
    under the reaper on Linux so nothing the CLI starts outlives cctui (see ``reaper``).

    The caller removes the returned file's directory when the process has ended.
    """
    words = [*prefix, str(cli)]
    if sys.platform.startswith("linux"):
        reaper = str(Path(__file__).with_name("reaper.py"))
        words = [sys.executable, "-I", "-S", reaper, f"--parent={os.getpid()}", *words]
    directory = Path(tempfile.mkdtemp(prefix="cctui-launch-"))
    script = directory / "claude"
    line = " ".join(shlex.quote(w) for w in words)
    script.write_text(f'#!/bin/sh\nexec {line} "$@"\n', encoding="utf-8")
    script.chmod(0o700)
    return script
