"""Runs ``claude`` so that nothing it starts outlives cctui, however cctui dies (Linux).

Run as a script (``python -I -S reaper.py CMD...``, stdlib only, no cctui import) between
cctui and the CLI; the SDK spawns it as the "CLI" and talks to the real one through the
inherited pipes. It

- asks the kernel for SIGTERM when cctui dies (``PR_SET_PDEATHSIG``: also on SIGKILL);
- leaves cctui's terminal (its own session), so a hang-up of the window cctui runs in does
  not end the CLI: cctui decides that;
- becomes a child subreaper, so whatever the CLI starts (a Bash tool's command, a
  background job) is re-parented here instead of to init when its parent goes;
- gives the CLI SIGKILL if the reaper itself is killed (``PR_SET_PDEATHSIG`` on the CLI);
- when the CLI exits, or cctui is gone, or it is told to stop: SIGTERM the CLI, wait a
  little, then kill every process left below it, and exit with the CLI's status.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_TERM_GRACE_S = 2.0
"""After forwarding SIGTERM, how long the CLI gets before everything is killed."""
_LEFTOVER_GRACE_S = 0.3
"""After the CLI exits, how long its leftovers get between SIGTERM and SIGKILL."""

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

_libc = ctypes.CDLL(None, use_errno=True)


class _Wake(Exception):
    """Raised by the signal handler to leave a blocking wait."""


def _prctl(option: int, value: int) -> None:
    _libc.prctl(option, value, 0, 0, 0)


def descendants(root: int) -> list[int]:
    """Every process whose parent chain leads to ``root`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    stack = [root]
    while stack:
        for pid in children.get(stack.pop(), []):
            found.append(pid)
            stack.append(pid)
    return found


def _signal_all(sig: int) -> bool:
    """Send ``sig`` to every descendant; True when there were any."""
    pids = descendants(os.getpid())
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return bool(pids)


def _reap() -> None:
    """Collect every exited child (adopted orphans included) without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _sweep(grace_s: float) -> None:
    """SIGTERM what is left, give it ``grace_s``, then SIGKILL until nothing is left."""
    if _signal_all(signal.SIGTERM):
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and descendants(os.getpid()):
            _reap()
            time.sleep(0.02)
    for _ in range(100):  # a fork racing the kill shows up on the next pass
        _reap()
        if not _signal_all(signal.SIGKILL):
            break
        time.sleep(0.01)
    _reap()


def main(argv: list[str]) -> int:
    """Run ``argv`` under the reaper; returns its exit status."""
    parent = os.getppid()
    if argv and argv[0].startswith("--parent="):
        parent = int(argv[0].split("=", 1)[1])  # cctui's pid, written by the launcher
        argv = argv[1:]
    if not argv:
        print("usage: reaper.py [--parent=PID] CMD [ARGS...]", file=sys.stderr)
        return 2
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    # Out of cctui's terminal: its hang-up (a closed window, a dropped SSH link) sends SIGHUP
    # to the terminal's foreground group, which cctui and its children share, and cctui keeps
    # its sessions through a hang-up. Only cctui ends the CLI: by a signal, or by dying. A
    # tool command that opens /dev/tty now fails instead of reading the window's keys.
    with contextlib.suppress(OSError):  # already a session leader
        os.setsid()
    if os.getppid() != parent:  # cctui died before the death signal was armed
        return 1
    stop = {"sig": 0}

    def on_signal(signum: int, _frame: object) -> None:
        stop["sig"] = signum
        raise _Wake  # out of a blocking waitpid (PEP 475 would retry it)

    for sig in _STOP_SIGNALS:
        signal.signal(sig, on_signal)

    def arm_child() -> None:  # runs in the child between fork and exec
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)

    try:
        # preexec_fn is safe here: the reaper is single-threaded.
        child = subprocess.Popen(argv, preexec_fn=arm_child)
    except _Wake:
        return 1
    except OSError as exc:
        print(f"cannot run {argv[0]}: {exc}", file=sys.stderr)
        return 127
    status: int | None = None
    forwarded_at: float | None = None
    while status is None:
        try:
            if stop["sig"] and forwarded_at is None:
                forwarded_at = time.monotonic()
                with contextlib.suppress(ProcessLookupError):
                    child.send_signal(signal.SIGTERM)
            if forwarded_at is not None and time.monotonic() - forwarded_at > _TERM_GRACE_S:
                with contextlib.suppress(ProcessLookupError):
                    child.kill()
            pid, raw = os.waitpid(-1, os.WNOHANG if stop["sig"] else 0)
            if pid == child.pid:
                status = raw
            elif pid == 0:
                time.sleep(0.02)
        except _Wake:
            continue
        except ChildProcessError:
            break
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    _sweep(0 if stop["sig"] else _LEFTOVER_GRACE_S)
    if status is None:
        return 1
    if os.WIFSIGNALED(status):
        # Die the same way, so cctui sees the CLI's own end (e.g. -9).
        dead_by = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(dead_by, signal.SIG_DFL)
        os.kill(os.getpid(), dead_by)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
