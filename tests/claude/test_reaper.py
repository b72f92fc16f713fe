"""The reaper between cctui and `claude`: leftovers die with the CLI, and everything dies
with cctui (real processes)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cctui.claude import reaper
from tests.fakes.procs import alive

REAPER = str(Path(reaper.__file__))

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def _gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


def _read_pid(path: Path, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError(f"{path} was never written")


def test_what_the_cli_left_running_dies_when_it_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = f"sleep 300 & echo $! > {pid_file}; exit 3"
    done = subprocess.run(
        [sys.executable, "-I", "-S", REAPER, "sh", "-c", script], timeout=30, check=False
    )
    assert done.returncode == 3  # the CLI's own status
    assert _gone(_read_pid(pid_file))


def test_a_cli_killed_by_a_signal_is_reported_as_such(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", REAPER, "sh", "-c", "kill -9 $$"], timeout=30, check=False
    )
    assert done.returncode == -signal.SIGKILL


def test_everything_dies_when_cctui_is_killed(tmp_path: Path) -> None:
    """A stand-in for cctui starts the reaper and is SIGKILLed: the CLI and its child go."""
    pid_file = tmp_path / "pid"
    cli = f"sh -c 'sleep 300 & echo $! > {pid_file}; wait'"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time; "
            f"subprocess.Popen([sys.executable, '-I', '-S', {REAPER!r}, 'sh', '-c', {cli!r}]); "
            "time.sleep(300)",
        ]
    )
    try:
        grandchild = _read_pid(pid_file)
        assert alive(grandchild)
        parent.kill()
        parent.wait(10)
        assert _gone(grandchild), "the CLI's child outlived cctui"
    finally:
        if parent.poll() is None:
            parent.kill()
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
