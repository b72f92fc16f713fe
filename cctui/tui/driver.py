"""The window's terminal driver: Textual's Linux driver, whose SIGCONT starts the terminal
again only after the driver itself stopped it.

Textual's driver answers every SIGCONT by starting application mode again, as if it came
back from Ctrl+Z. A SIGCONT also comes unasked: the kernel sends SIGHUP and SIGCONT to a
terminal's old foreground group when its session leader exits after a hang-up (the shell
that ran cctui, or cctui's own front), and ``kill -CONT`` does too. Started again over a
running window, the driver made a second input thread and lost track of the first; after
the app had exited, it made a new one spinning on /dev/null. Either thread, not a daemon,
kept the process from ever exiting (``cctui stop`` said it was still running).
"""

from __future__ import annotations

from textual.drivers.linux_driver import LinuxDriver


class WindowDriver(LinuxDriver):
    """``LinuxDriver`` that resumes only what it suspended (``App.suspend``, Ctrl+Z)."""

    _suspended = False

    def suspend_application_mode(self) -> None:
        self._suspended = True
        super().suspend_application_mode()

    def resume_application_mode(self) -> None:
        if not self._suspended:
            return  # a SIGCONT nobody stopped this window for: it runs, or it has ended
        self._suspended = False
        super().resume_application_mode()
