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
