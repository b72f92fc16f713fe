"""Helpers more than one test room uses. (MCP client helpers — ``client``, ``authed``,
``ok``, ``call``, ``error_body`` — live in ``tests/mcp/conftest.py``.)"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx2

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
"""Who commits in a test repository (the machine may have no git identity at all)."""


def git(repo: Path, *args: str) -> str:
    """Run ``git -C repo args`` with a fixed identity; its output, stripped. Fails the
    test (``CalledProcessError``) when git does."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_IDENTITY},
    )
    return done.stdout.strip()


def bearer_http(token: str) -> httpx2.AsyncClient:
    """An HTTP client for cctui's MCP endpoint carrying its bearer token. A tool call that
    starts a ``claude`` answers once the CLI runs: on a loaded machine that is beyond httpx's
    5 s default, so the read bound is a hang's, not a slow start's."""
    return httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=60)
    )


def wait_for(predicate: Callable[[], object], timeout: float) -> bool:
    """Whether ``predicate`` came to hold within ``timeout`` seconds (polled)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def wait_started(proc: subprocess.Popen[Any], ready: Callable[[], object], what: str) -> None:
    """Wait until ``ready`` holds (e.g. a cctui it started wrote ``server.json``), failing at
    once if ``proc`` ends first. No bound of its own: how long a Python process takes to
    import the MCP stack is the machine's load (over 30 s at load 19, 2 s idle); a hang is
    the test timeout's (pytest-timeout) to catch."""
    while not ready():
        if proc.poll() is not None:
            said = proc.stderr.read() if proc.stderr is not None else ""
            raise AssertionError(f"{what} ended ({proc.returncode}) before it was ready: {said}")
        time.sleep(0.05)


def cctui_env(home: Path, **extra: str) -> dict[str, str]:
    """This environment without the machine's ``CLAUDE*``/``XDG_*`` settings, ``HOME`` set
    to ``home``, plus ``extra``: what a ``cctui`` command a test runs sees."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "XDG_"))}
    return {**env, "HOME": str(home), **extra}


def run_cctui(env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The ``cctui`` command, as a real process: ``python -m cctui args`` under ``env``."""
    return subprocess.run(
        [sys.executable, "-m", "cctui", *args],
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=120,
        check=False,
    )


def call_cctui(env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The ``cctui`` command run in this process (``cctui.entry.main``, what ``python -m
    cctui`` calls) with ``env`` as its whole environment and its output captured; answers
    like ``run_cctui``.

    Why not a process: each ``python -m cctui`` pays ~1 s of CPU importing the stack before
    it does anything (several seconds under load), and most CLI tests check what the
    command decides, not that it is a process. The real process is tried once per
    behaviour (``run_cctui``, in the ``slow`` tier where a test needs many). Put back after
    the call: the environment, and the root logger (``configure_logging`` replaces its
    handlers with the state dir's log file; pytest's capture is one of them)."""
    from cctui.entry import main

    saved_env = dict(os.environ)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors exit (2), as the process does
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
            handler.close()
        for handler in [h for h in handlers if h not in root.handlers]:
            root.addHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)
    return subprocess.CompletedProcess(["cctui", *args], code, out.getvalue(), err.getvalue())


class TmuxWindow:
    """A private tmux server (``-L socket``) and one window ``target``, driven as a person
    would: keys in, the screen read back."""

    def __init__(self, socket: str, target: str) -> None:
        self.socket = socket
        self.target = target

    def run(self, *args: str) -> str:
        """``tmux -L socket args``; its stdout."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.target)

    def frame_colour(self, title: str) -> str | None:
        """The colour the top corner of the panel titled ``title`` is drawn in (a panel
        with the keyboard in it has its frame lit), None when it is not on screen."""
        styled = self.run("capture-pane", "-e", "-p", "-t", self.target)
        found = re.search(
            r"\x1b\[38;5;(\d+)m(?:\x1b\[[\d;]*m)*╭─(?:\x1b\[[\d;]*m)* " + re.escape(title), styled
        )
        return found.group(1) if found else None

    def leave_message_line(self) -> None:
        """esc from a session's message line, then wait until the list's frame is lit as
        the pane's was: the keyboard is in the list. A key sent at once was routed by the
        focus esc had not moved yet, and was typed into the line (a fixed pause was too
        short under load)."""
        deadline = time.monotonic() + 60
        while (lit := self.frame_colour("Output")) in (None, self.frame_colour("Sessions")):
            assert time.monotonic() < deadline, f"the keyboard is not in the pane:\n{self.screen()}"
            time.sleep(0.05)
        self.keys("Escape")
        while self.frame_colour("Sessions") != lit:
            assert time.monotonic() < deadline, f"the keyboard stayed in the pane:\n{self.screen()}"
            time.sleep(0.05)

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", self.target, *(["-l"] if literal else []), *keys)

    def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        """The screen once ``check`` holds for it; fails with the last screen after ``timeout``."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; screen was:\n{screen}")
