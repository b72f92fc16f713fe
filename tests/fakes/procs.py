"""Whether a process is still running, as the tests that end ``claude`` processes ask it."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Running: its ``/proc`` entry exists and it is not a zombie (one waiting for its parent
    to reap it has ended, for every purpose of these tests). Linux only."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
