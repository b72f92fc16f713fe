"""``pid_alive``: the one liveness check behind running sessions, spares, worktree locks and
the bridge's look for a running cctui."""

from __future__ import annotations

import os
import subprocess
import sys

from cctui.pids import pid_alive


def test_a_live_process_and_one_that_ended() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert pid_alive(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not pid_alive(child.pid)  # reaped: the pid names nothing now
    assert pid_alive(os.getpid())


def test_pids_that_name_no_single_process() -> None:
    # os.kill(0, 0) would signal our own process group and -1 every process we may signal.
    assert not pid_alive(0)
    assert not pid_alive(-1)


def test_another_users_process_counts_as_alive() -> None:
    assert pid_alive(1)  # init: signalling it is refused or allowed, it exists either way
