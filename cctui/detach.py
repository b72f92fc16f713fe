"""A window's process that keeps running when its window goes: the front and the detach.

cctui's window, its sessions and its MCP server are one process, and the ``claude``
processes are its children (the reaper ends each one when its parent dies). Leaving the
sessions running therefore means this very process goes on, headless. Two things stand in
the way, and this module removes them:

- **The shell waits for the pid it started.** So at start-up, before any thread, loop or
  child exists, :func:`split_front` forks: the original process (the *front*, the one the
  shell waits for) only waits, and the child runs cctui. When cctui goes to the background
  it tells the front, which prints where cctui went and exits: the shell has its prompt back
  while cctui, the front's child, keeps every ``claude`` it started. Forking later is not an
  option: the ``claude`` processes would be children of the process that exits (and die by
  the reaper's parent-death signal), and only the forking thread survives a fork.
- **The terminal.** :func:`leave_terminal` points stdin/stdout/stderr at /dev/null and
  starts a new session (``setsid``; the child is not a process-group leader, the front is),
  so the process has no controlling terminal: a closed terminal, tmux window or SSH link
  sends it no SIGHUP, and nothing it writes can stop it with SIGTTOU or fail with EIO.

When cctui ends without going to the background, the front exits with its status.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from dataclasses import dataclass

_RELAY = (signal.SIGTERM, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGHUP)
"""Signals sent to the front (the pid the shell shows) that are meant for cctui. SIGHUP too:
when the front is the terminal's session leader (``ssh host -t cctui``, a tmux pane running
cctui itself) a hang-up goes to the front alone, and the kernel tells the foreground group
only once the leader exits, which the front does not do; without the relay cctui never
heard the terminal go and spun on its dead input. Under a shell cctui gets the shell's copy
too: its handler takes a second hang-up as the first."""
_IGNORED = (signal.SIGINT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)
"""Terminal signals go to the whole foreground group, so cctui gets its own copy; the front
ignores them (a closed terminal must not end the front before it hears where cctui went)."""


@dataclass
class Front:
    """The child's end of the link to the front: say once that cctui went to the background."""

    fd: int | None

    def release(self, message: str) -> None:
        """The front prints ``message`` on the terminal and exits 0 (idempotent)."""
        fd, self.fd = self.fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):  # the front is gone already (killed)
            os.write(fd, message.encode() + b"\n")
        with contextlib.suppress(OSError):
            os.close(fd)


def split_front() -> Front:
    """Fork: return in the child (cctui proper); the front waits and never returns.

    Call it before any thread starts (before asyncio.run): only the forking thread
    survives a fork.
    """
    read_fd, write_fd = os.pipe()  # not inheritable: a claude must not hold the front open
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        return Front(write_fd)
    os.close(write_fd)
    os._exit(_wait_as_front(pid, read_fd))


def _wait_as_front(child: int, read_fd: int) -> int:
    def relay(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signum)

    for sig in _RELAY:
        signal.signal(sig, relay)
    for sig in _IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    message = b""
    while True:
        try:
            chunk = os.read(read_fd, 4096)
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        if not chunk:
            break  # the child exited (or released us with an empty message)
        message += chunk
        if message.endswith(b"\n"):
            break
    if message.strip():
        with contextlib.suppress(OSError):  # the terminal may be gone (hung up)
            os.write(2, message)
        return 0
    while True:
        try:
            _, status = os.waitpid(child, 0)
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        except ChildProcessError:
            return 1
        return (
            os.waitstatus_to_exitcode(status)
            if os.WIFEXITED(status)
            else 128 + (os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0)
        )


def drop_terminal() -> None:
    """Point stdin, stdout and stderr at /dev/null, at once (a signal handler may call it).

    After a hang-up the terminal answers every read and write with EIO: Textual's output
    thread dies on its first write, and closing the app then waits forever for it to take
    the rest of its queue. Written to /dev/null instead, the app closes normally.
    """
    with contextlib.suppress(ValueError, OSError):  # closed or detached Python streams
        sys.stdout.flush()
    with contextlib.suppress(ValueError, OSError):
        sys.stderr.flush()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


_WINDOW_SIGNALS = (
    signal.SIGCONT,
    signal.SIGTSTP,
    signal.SIGTTIN,
    signal.SIGTTOU,
    signal.SIGWINCH,
)
"""The job-control and resize signals the window's terminal driver (Textual's) handles and
never hands back when the app exits."""


def forget_window_signals() -> None:
    """Give the window's signals back their default action once the app has exited.

    Textual's driver keeps its SIGCONT handler after the app ends, and that handler starts
    the terminal again: a new input thread (not a daemon) spinning on /dev/null and a writer.
    A window that went to the background can get a SIGCONT (``kill -CONT``; the kernel's,
    sent with a SIGHUP to a hung-up terminal's old foreground group as the session leader
    exits), and then the process burnt a core and could never exit: the interpreter waited
    for that thread, so ``cctui stop`` said it was still running.
    """
    for sig in _WINDOW_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


def leave_terminal() -> None:
    """Point stdin, stdout and stderr at /dev/null and leave the terminal's session."""
    drop_terminal()
    with contextlib.suppress(OSError):  # already a session leader (no front): keep it
        os.setsid()
    # A terminal of the old session can no longer reach us, but a signal sent by hand can:
    # the TUI's SIGHUP handler stays (it logs and keeps going).
