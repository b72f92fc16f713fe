"""Whether a process is still running, as the tests that end ``claude`` processes ask it;
and every process a test started under its temporary ``HOME``, to end what it left."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Running: its ``/proc`` entry exists and it is not a zombie (one waiting for its parent
    to reap it has ended, for every purpose of these tests). Linux only."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def under_home(home: Path) -> set[int]:
    """Every live process whose environment says ``HOME=home`` (a test's cctui, its
    ``claude`` and their tools: all inherit the test's temporary HOME). Read from /proc."""
    marker = f"HOME={home}".encode()
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if marker in (proc / "environ").read_bytes().split(b"\0"):
                found.add(int(proc.name))
        except OSError:
            continue
    return {pid for pid in found if alive(pid)}


def end_all_under(home: Path, owner_pid: int | None = None, grace_s: float = 10) -> None:
    """End what a test left running under ``home``: the owning cctui (``owner_pid``) is
    asked as ``cctui stop`` asks (SIGTERM, so it ends its sessions), then whatever is still
    there after ``grace_s`` is killed. For teardowns: a test that fails half-way, or a
    window whose terminal was closed (a hang-up sends cctui to the background), must not
    leave a cctui or a ``claude`` running on a shared machine."""
    if owner_pid is not None and owner_pid > 0 and alive(owner_pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(owner_pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while alive(owner_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
    for pid in under_home(home):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
