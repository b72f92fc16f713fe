"""Whether a process id names a live process: one check for every room that holds a pid."""

from __future__ import annotations

import errno
import os


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists (ours or another user's)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError as exc:
        return exc.errno != errno.ESRCH
    return True


def pid_running(pid: int) -> bool:
    """True while the process runs: alive and not a zombie (one that has ended and waits for
    its parent to read its status). Zombies are told apart on Linux (``/proc``) only."""
    if not pid_alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            stat = fh.read()
    except OSError:
        return True  # no /proc here, or another user's process
    fields = stat.rsplit(")", 1)[-1].split()
    return not fields or fields[0] != "Z"
