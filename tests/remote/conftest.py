"""A second cctui on this machine, under a HOME of its own, reached as a host by a command.

The command runs ``python -m cctui serve --stdio`` (or its ``bridge``) with the other HOME's
locations set by ``env``: the path a real host takes behind ``ssh NAME``, minus SSH.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cctui.remote.hosts import HostChange
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.plugin import offline_env, use_environ
from tests.fakes.seed_home import seed_claude_home


@pytest.fixture
def host_project(tmp_path: Path) -> Path:
    path = (tmp_path / "host-proj").resolve()
    path.mkdir()
    return path


def make_host_home(home: Path, *projects: Path) -> Path:
    """``home`` made a HOME for the other cctui, ``projects`` trusted there."""
    for sub in (".config", ".local/state", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    seed_claude_home(home, *projects)
    return home


@pytest.fixture
def host_home(tmp_path: Path, host_project: Path) -> Path:
    return make_host_home((tmp_path / "host-home").resolve(), host_project)


def host_command(home: Path, project: Path, *cctui_args: str) -> list[str]:
    """``env HOME=... python -m cctui ARGS``: the other cctui, its state under ``home``."""
    locations = {
        "HOME": home,
        "CLAUDE_CONFIG_DIR": home / ".claude",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CACHE_HOME": home / ".cache",
        "CLAUDE_CODE_DEFAULT_CWD": project,
    }
    return [
        "env",
        *(f"{k}={v}" for k, v in locations.items()),
        sys.executable,
        "-m",
        "cctui",
        *cctui_args,
    ]


@pytest.fixture
def serve_command(claude_env: dict[str, str], host_home: Path, host_project: Path) -> list[str]:
    """The second cctui served on the command's stdio (the fake API's variables come from
    ``claude_env``, which this process's environment now holds)."""
    return host_command(host_home, host_project, "serve", "--stdio")


def host_env(home: Path, project: Path) -> dict[str, str]:
    """This process's environment (the fake API's, from ``claude_env``) with ``home``'s
    locations: the other cctui's own."""
    command = host_command(home, project)
    env = dict(os.environ)
    for assignment in command[1 : command.index(sys.executable)]:
        name, _, value = assignment.partition("=")
        env[name] = value
    return env


@contextlib.contextmanager
def serving_host(home: Path, project: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The other machine's cctui under ``home``, serving in the background (``serve
    --http``) until the block ends: what a ``bridge`` there forwards to."""
    server = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http", "--port", "0"],
        env=host_env(home, project),
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    server_file = home / ".local" / "state" / "cctui" / "server.json"
    try:
        deadline = time.monotonic() + 60
        while not server_file.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                err = server.stderr.read().decode() if server.stderr else ""
                pytest.fail(f"the host's cctui did not start: {err[-2000:]}")
            time.sleep(0.05)
        yield server
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@dataclass(frozen=True)
class ModuleHost:
    """A host serving for a whole module (``module_host``)."""

    root: Path
    """The module's directory: each test makes its files under it."""
    home: Path
    """The host's HOME."""
    projects: dict[str, Path]
    """Each test's own project on the host (trusted there), by name."""


@contextlib.contextmanager
def module_host(root: Path, *projects: str) -> Iterator[ModuleHost]:
    """One host for a module's tests: the host's owner costs a Python importing the MCP
    stack and building its server, about 2 s of CPU, which one test per module pays
    instead of each (at load 15 on two cores each of those tests reached pytest's 120 s
    guard). Its own fake API and this process's environment pointed at it until the block
    ends (as ``claude_env`` does for one test); each test gets a project of its own, so one
    test's files never stand in for another's. The module's tests share an xdist group, so
    the host is made once."""
    home = root / "home"
    (home / "proj").mkdir(parents=True)
    make_host_home(home, home / "proj")
    places = {name: (root / "host-projects" / name).resolve() for name in projects}
    for path in places.values():
        path.mkdir(parents=True)
    host_home = make_host_home((root / "host-home").resolve(), *places.values())
    api = FakeAnthropicAPI(log_path=root / "fake_api.jsonl").start()
    env = offline_env(dict(os.environ), api.url, home)
    try:
        with pytest.MonkeyPatch.context() as patch:
            use_environ(patch, env)
            with serving_host(host_home, next(iter(places.values()))):
                yield ModuleHost(root, host_home, places)
    finally:
        api.stop()


@pytest.fixture
def host_owner(
    claude_env: dict[str, str], host_home: Path, host_project: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """The other machine's cctui, serving in the background (``serving_host``)."""
    with serving_host(host_home, host_project) as server:
        yield server


@pytest.fixture
def bridge_pidfile(tmp_path: Path) -> Path:
    return tmp_path / "bridge.pid"


def bridge_argv(home: Path, project: Path, pidfile: Path) -> list[str]:
    """``cctui bridge`` on the other HOME (what ``ssh HOST cctui bridge --start`` runs
    there), its pid written to ``pidfile`` so a test can cut the link."""
    inner = " ".join(shlex.quote(a) for a in host_command(home, project, "bridge"))
    return ["sh", "-c", f"echo $$ > {shlex.quote(str(pidfile))}; exec {inner}"]


@pytest.fixture
def bridge_command(
    host_owner: subprocess.Popen[bytes], host_home: Path, host_project: Path, bridge_pidfile: Path
) -> list[str]:
    """``cctui bridge`` to ``host_owner`` (``bridge_argv``)."""
    return bridge_argv(host_home, host_project, bridge_pidfile)


class Heard:
    """Every change a host reported, and a way to wait for one."""

    def __init__(self) -> None:
        self.changes: list[HostChange] = []
        self._new = asyncio.Event()

    def __call__(self, change: HostChange) -> None:
        self.changes.append(change)
        self._new.set()

    async def until(self, ok: Callable[[], object], within: float = 60) -> None:
        async with asyncio.timeout(within):
            while not ok():
                self._new.clear()
                await self._new.wait()


@pytest.fixture
def start_command(
    claude_env: dict[str, str], host_home: Path, host_project: Path, bridge_pidfile: Path
) -> Iterator[list[str]]:
    """``cctui bridge --start`` on the other HOME, nothing running there yet: the default
    command's path (``ssh HOST cctui bridge --start``). The background cctui it starts is
    stopped (``cctui stop``) after the test."""
    inner = " ".join(
        shlex.quote(a) for a in host_command(host_home, host_project, "bridge", "--start")
    )
    yield ["sh", "-c", f"echo $$ > {shlex.quote(str(bridge_pidfile))}; exec {inner}"]
    subprocess.run(
        host_command(host_home, host_project, "stop"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
