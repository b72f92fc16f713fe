"""Sessions outlive the window: one owner per state dir, `serve` beside it, `bridge --start`,
`cctui stop`, and a window that goes to the background by `q` or by a hang-up.

Real processes throughout: cctui under a temp HOME, the real `claude` against the fake API,
real MCP clients, and tmux for the window. "Nothing left running" is read from /proc.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from cctui.owner import Owner, find_owner
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.procs import alive, end_all_under
from tests.helpers import TmuxWindow, bearer_http

pytestmark = pytest.mark.e2e

HELD = "[[slow seconds=1 chunks=10 hold=rest]]"
"""A reply that streams its first chunk, then waits for ``fake_api.release("rest")``: the
session is mid-reply for as long as the test needs (a window closed, a bridge gone), and
ends soon after (before, a 20 s stream, waited out whole by three tests)."""


def _wait_for(predicate: Callable[[], object], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _state(home: Path) -> Path:
    return home / ".local" / "state" / "cctui"


def _cctui(
    env: dict[str, str], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cctui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _listening_owner(home: Path, timeout: float = 60) -> Owner:
    found: list[Owner] = []

    def look() -> bool:
        owner = find_owner(_state(home))
        if owner is not None and owner.url is not None:
            found.append(owner)
            return True
        return False

    assert _wait_for(look, timeout), "no cctui came to own the sessions"
    return found[-1]


def _claude_pids(home: Path) -> set[int]:
    """Every live `claude` whose environment points at this test's HOME (read from /proc)."""
    marker = f"HOME={home}".encode()
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv0 = (proc / "cmdline").read_bytes().split(b"\0", 1)[0]
            if not argv0.endswith(b"/claude"):
                continue
            if marker in (proc / "environ").read_bytes().split(b"\0"):
                found.add(int(proc.name))
        except OSError:
            continue
    return {pid for pid in found if alive(pid)}


def _stop_leaves_nothing(env: dict[str, str], home: Path) -> None:
    """`cctui stop` ends the owner's process and every claude it ran."""
    owner = find_owner(_state(home))
    stopped = _cctui(env, "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "stopped cctui" in stopped.stderr
    assert find_owner(_state(home)) is None
    if owner is not None:  # the process itself, not only its record
        assert _wait_for(lambda: not alive(owner.pid), 10), f"pid {owner.pid} still runs"
    assert _wait_for(lambda: not _claude_pids(home), 10), _claude_pids(home)
    after = _cctui(env, "mcp-config")
    assert after.returncode == 1 and "no running cctui" in after.stderr


@pytest.fixture
def cleanup(claude_home: Path) -> Iterator[None]:
    """Whatever a failing test left running under its HOME is ended."""
    yield
    owner = find_owner(_state(claude_home))
    end_all_under(claude_home, owner.pid if owner is not None else None)


async def test_serve_beside_an_owner_says_where_it_is_and_touches_nothing(
    claude_env: dict[str, str], claude_home: Path, project_dir: Path, cleanup: None
) -> None:
    env = dict(claude_env, CCTUI_HTTP_PORT="0")
    first = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert first.stdout is not None
        line = first.stdout.readline()
        owner = _listening_owner(claude_home)
        assert line.strip() == f"cctui: serving MCP at {owner.url} (pid {first.pid})"
        assert (owner.pid, owner.mode) == (first.pid, "serve")
        server_file = _state(claude_home) / "server.json"
        before = server_file.read_text()

        second = _cctui(env, "serve", "--http")
        assert second.returncode == 1
        assert "already owns the sessions" in second.stderr
        assert f"pid {first.pid}" in second.stderr and str(owner.url) in second.stderr
        assert server_file.read_text() == before  # neither replaced nor deleted
        assert first.poll() is None

        config = _cctui(env, "mcp-config")
        assert config.returncode == 0, config.stderr
        assert str(owner.url) in config.stdout

        info = json.loads(before)
        async with (
            bearer_http(info["token"]) as http,
            Client(streamable_http_client(str(owner.url), http_client=http)) as client,
        ):
            created = await client.call_tool(
                "claude_create_session",
                {"prompt": "[[slow seconds=30]]", "workingDirectory": str(project_dir)},
            )
            assert not created.is_error, created.structured_content
        assert _wait_for(lambda: _claude_pids(claude_home), 30)
        _stop_leaves_nothing(env, claude_home)
        assert first.wait(10) == 0
        assert not server_file.exists()  # the owner removed its own file
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


async def test_bridge_start_starts_a_background_owner_that_outlives_the_bridge(
    claude_env: dict[str, str],
    claude_home: Path,
    project_dir: Path,
    cleanup: None,
    fake_api: FakeAnthropicAPI,
) -> None:
    env = dict(claude_env, CCTUI_HTTP_PORT="0")
    assert find_owner(_state(claude_home)) is None
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cctui", "bridge", "--start"], env=env
    )
    async with Client(
        params, client_info=Implementation(name="remote", version="1"), mode="legacy"
    ) as client:
        created = await client.call_tool(
            "claude_create_session",
            {"prompt": HELD, "workingDirectory": str(project_dir)},
        )
        assert not created.is_error, created.content
        assert created.structured_content is not None
        sid = created.structured_content["sessionId"]
    owner = _listening_owner(claude_home)
    assert owner.mode == "serve"
    # The stdio link is gone; the owner and its claude are not: the turn completes.
    assert _wait_for(lambda: _claude_pids(claude_home), 10)
    fake_api.release("rest")
    transcript = _transcript(claude_home, sid)
    assert _wait_for(lambda: "[slow 010/010]" in transcript.read_text(), 60), (
        transcript.read_text()[-500:]
    )
    # A second bridge --start finds the owner instead of starting another.
    again = _cctui(env, "bridge", "--start")
    assert again.returncode == 0, again.stderr  # stdin closed at once: the bridge ends
    assert find_owner(_state(claude_home)) == owner
    _stop_leaves_nothing(env, claude_home)


async def _serving_with_a_slow_session(
    env: dict[str, str], home: Path, project: Path
) -> tuple[subprocess.Popen[bytes], Owner]:
    """``cctui serve --http`` owning ``home``'s sessions, one of them mid-reply."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    owner = _listening_owner(home)
    token = (_state(home) / "token").read_text().strip()
    async with (
        bearer_http(token) as http,
        Client(streamable_http_client(str(owner.url), http_client=http)) as client,
    ):
        created = await client.call_tool(
            "claude_create_session",
            {"prompt": "[[slow seconds=60]]", "workingDirectory": str(project)},
        )
        assert not created.is_error, created.content
    assert _wait_for(lambda: _claude_pids(home), 30)
    return proc, owner


async def test_an_owner_whose_state_dir_is_deleted_ends_itself_and_its_claude(
    claude_env: dict[str, str], claude_home: Path, project_dir: Path, cleanup: None
) -> None:
    """A benchmark's temporary HOME deleted under its background owner: nothing could find
    that owner any more (no `cctui stop` looks there), so it ends, with every claude."""
    env = dict(claude_env, CCTUI_HTTP_PORT="0")
    proc, _ = await _serving_with_a_slow_session(env, claude_home, project_dir)
    try:
        # Gone at one moment: moved aside, then deleted. A bare rmtree races the owner, whose
        # running session saves its records (sessions.json by a temporary file) into the dir
        # while rmtree empties it, and then fails "Directory not empty" (CI, stop 53) — as
        # `rm -rf` would; the owner keyed on the dir's identity sees the same either way.
        gone = claude_home / "deleted-state"
        _state(claude_home).rename(gone)
        shutil.rmtree(gone)
        assert proc.wait(30) == 0
        assert _wait_for(lambda: not _claude_pids(claude_home), 10), _claude_pids(claude_home)
        assert not (_state(claude_home) / "owner.lock").exists()  # not made again
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_an_owner_remakes_its_removed_record_and_stop_still_ends_it(
    claude_env: dict[str, str], claude_home: Path, project_dir: Path, cleanup: None
) -> None:
    env = dict(claude_env, CCTUI_HTTP_PORT="0")
    proc, owner = await _serving_with_a_slow_session(env, claude_home, project_dir)
    try:
        (_state(claude_home) / "owner.lock").unlink()
        assert _wait_for(lambda: find_owner(_state(claude_home)) == owner, 10)
        _stop_leaves_nothing(env, claude_home)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_stop_ends_every_owner_even_one_that_lost_its_record(
    claude_env: dict[str, str], claude_home: Path
) -> None:
    """Two processes hold owner locks of one state dir: the file names the second; the first
    holds the file that was there before (removed under it). `cctui stop` ends both."""
    state = _state(claude_home)
    holder = (
        "import sys, time; from pathlib import Path; from cctui.owner import OwnerLock; "
        "lock = OwnerLock.acquire(Path(sys.argv[1]), 'serve'); "
        "print('held' if lock else 'refused', flush=True); time.sleep(120)"
    )
    procs: list[subprocess.Popen[str]] = []
    try:
        for _ in range(2):
            proc = subprocess.Popen(
                [sys.executable, "-c", holder, str(state)], stdout=subprocess.PIPE, text=True
            )
            procs.append(proc)
            assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
            (state / "owner.lock").unlink()  # the next one takes a new file
        stopped = _cctui(claude_env, "stop")
        assert stopped.returncode == 0, stopped.stderr
        assert f"pid {procs[0].pid}, {procs[1].pid}" in stopped.stderr
        for proc in procs:
            assert proc.wait(10) == -signal.SIGTERM
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


# -- the window under tmux -------------------------------------------------------------------


class Window(TmuxWindow):
    """cctui in a tmux window, started from a shell (so the shell's prompt can come back)."""

    def __init__(
        self, env: dict[str, str], project: Path, script_dir: Path, *, leader: bool = False
    ) -> None:
        """``leader``: cctui is the pane's own command, the terminal's session leader (as
        ``ssh host -t cctui`` runs it), not a job of a shell."""
        super().__init__(f"cctui-owner-{uuid.uuid4().hex[:8]}", "w")
        script = script_dir / "cctui.sh"
        exports = [f"export {k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier()]
        script.write_text(
            "\n".join(
                [
                    "#!/bin/sh",
                    "unset COLUMNS LINES",
                    *exports,
                    f"cd {shlex.quote(str(project))}",
                    f'exec {shlex.quote(sys.executable)} -m cctui "$@"',
                ]
            )
            + "\n"
        )
        script.chmod(0o755)
        self.script = script
        self.leader = leader
        if not leader:
            self._open("sh")

    def _open(self, command: str) -> None:
        self.run("new-session", "-d", "-s", "w", "-x", "140", "-y", "40", command)
        self.run("resize-window", "-t", "w", "-x", "140", "-y", "40")

    def start_cctui(self) -> None:
        """cctui starts now: typed at the shell, or (as the session leader) as the window's
        own command — only now, so a test can set up an owner before the window exists."""
        if self.leader:
            self._open(str(self.script))
        else:
            self.keys(str(self.script), "Enter")

    def start_slow_session(self, prompt: str) -> None:
        self.start_cctui()
        self.wait_for(lambda s: "MCP http://" in s, "cctui to start")
        self.keys("n")
        self.wait_for(lambda s: "New session" in s, "the new-session form")
        self.keys(prompt, literal=True)
        self.keys("Enter")
        self.wait_for(lambda s: "[slow 001/" in s, "the reply to stream")

    def kill(self) -> None:
        self.run("kill-server")


@pytest.fixture(params=["from a shell", "as the terminal's session leader"])
def window(
    request: pytest.FixtureRequest,
    claude_env: dict[str, str],
    project_dir: Path,
    tmp_path: Path,
    cleanup: None,
) -> Iterator[Window]:
    env = dict(
        claude_env,
        CCTUI_HTTP_PORT="0",
        PYTHONPATH=str(Path(__file__).parents[2]),
        TERM="xterm-256color",
    )
    for fixed_size in ("COLUMNS", "LINES"):
        env.pop(fixed_size, None)
    w = Window(env, project_dir, tmp_path, leader=request.param != "from a shell")
    try:
        yield w
    finally:
        w.kill()


def _transcript(home: Path, session: str = "*") -> Path:
    """The session's transcript, once the CLI has made it: a live `claude` has not always
    written its first line yet (it is still starting, or its request is on its way)."""
    found: list[Path] = []

    def look() -> bool:
        found.extend((home / ".claude" / "projects").glob(f"*/{session}.jsonl"))
        return bool(found)

    assert _wait_for(look, 30), f"no transcript for {session} under {home}"
    return found[0]


def test_q_then_b_keeps_the_session_running_and_gives_the_shell_back(
    window: Window, claude_env: dict[str, str], claude_home: Path, fake_api: FakeAnthropicAPI
) -> None:
    if window.leader:
        pytest.skip("the shell's prompt coming back needs a shell")
    window.start_slow_session(HELD)
    window.leave_message_line()
    window.keys("q")
    window.wait_for(lambda s: "still working" in s and "keep in background" in s, "the quit modal")
    window.keys("b")
    screen = window.wait_for(
        lambda s: "running in the background" in s, "the shell's prompt and where cctui went"
    )
    owner = find_owner(_state(claude_home))
    assert owner is not None and owner.mode == "background"
    assert f"pid {owner.pid}" in screen
    # Detached: its own session, no terminal, stdio on /dev/null.
    stat = Path(f"/proc/{owner.pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert int(stat[3]) == owner.pid  # session id: it leads its own session
    assert int(stat[4]) == 0  # tty_nr: no controlling terminal
    assert os.readlink(f"/proc/{owner.pid}/fd/1") == "/dev/null"
    claude = _claude_pids(claude_home)
    assert claude
    window.kill()  # the terminal goes too: nothing changes
    fake_api.release("rest")  # the reply goes on only now, with no window left
    transcript = _transcript(claude_home)
    assert _wait_for(lambda: "[slow 010/010]" in transcript.read_text(), 60)
    assert alive(owner.pid)
    _stop_leaves_nothing(claude_env, claude_home)


def test_a_hang_up_keeps_the_session_running_headless(
    window: Window, claude_env: dict[str, str], claude_home: Path, fake_api: FakeAnthropicAPI
) -> None:
    window.start_slow_session(HELD)
    owner = find_owner(_state(claude_home))
    assert owner is not None and owner.mode == "tui"
    window.kill()  # the terminal closes: SIGHUP (as a leader, the front relays it to cctui)
    assert _wait_for(
        lambda: getattr(find_owner(_state(claude_home)), "mode", None) == "background", 20
    ), find_owner(_state(claude_home))
    fake_api.release("rest")  # the reply goes on only now, headless
    transcript = _transcript(claude_home)
    assert _wait_for(lambda: "[slow 010/010]" in transcript.read_text(), 60)
    log = (_state(claude_home) / "cctui.log").read_text()
    assert "hung up" in log
    assert owner.url is not None
    _stop_leaves_nothing(claude_env, claude_home)


def test_a_background_owner_woken_by_sigcont_still_ends_on_stop(
    window: Window, claude_env: dict[str, str], claude_home: Path
) -> None:
    """A SIGCONT after the window went (`kill -CONT`; the kernel's, sent to a hung-up
    terminal's old foreground group as the session leader exits) used to start Textual's
    terminal driver again: an input thread spinning on /dev/null that kept the process from
    ever exiting, so `cctui stop` said it was still running."""
    if window.leader:
        pytest.skip("one way to the background is enough: the signal is sent by hand")
    window.start_slow_session(HELD)
    window.kill()
    assert _wait_for(
        lambda: getattr(find_owner(_state(claude_home)), "mode", None) == "background", 20
    ), find_owner(_state(claude_home))
    owner = find_owner(_state(claude_home))
    assert owner is not None
    os.kill(owner.pid, signal.SIGCONT)
    _stop_leaves_nothing(claude_env, claude_home)


def test_a_window_sent_sigcont_still_quits(
    window: Window, claude_env: dict[str, str], claude_home: Path
) -> None:
    """A SIGCONT while the window runs (the kernel's, when the shell that ran cctui exits
    after a hang-up; `kill -CONT`) used to start Textual's driver a second time: its first
    input thread, lost track of, never ended, and neither did the process after `q`."""
    if window.leader:
        pytest.skip("one way in is enough: the signal is sent by hand")
    window.start_cctui()
    window.wait_for(lambda s: "MCP http://" in s, "cctui to start")
    owner = find_owner(_state(claude_home))
    assert owner is not None
    for _ in range(5):  # each started the driver again, each start could lose a thread
        os.kill(owner.pid, signal.SIGCONT)
        time.sleep(0.2)  # apart: signals sent at once are delivered as one
    window.keys("q")
    assert _wait_for(lambda: not alive(owner.pid), 30), f"pid {owner.pid} still runs"


async def test_a_window_attached_to_the_owner_answers_its_permission(
    window: Window, claude_env: dict[str, str], claude_home: Path, project_dir: Path
) -> None:
    """A permission asked while no window was attached waits for nobody; `cctui` started
    beside the owner attaches, pops it, and `y` there is the answer. Quitting the attached
    window leaves the owner and its sessions running."""
    env = dict(claude_env, CCTUI_HTTP_PORT="0")
    owner_proc = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        owner = _listening_owner(claude_home)
        token = (_state(claude_home) / "token").read_text().strip()
        async with (
            bearer_http(token) as http,
            Client(streamable_http_client(str(owner.url), http_client=http)) as client,
        ):
            created = await client.call_tool(
                "claude_create_session",
                {
                    "prompt": "[[write path=attached.txt content=hi]]",
                    "workingDirectory": str(project_dir),
                },
            )
            assert not created.is_error, created.content
            # The token alone does not make a client the human: the window key does.
            posing = await client.call_tool("cctui_attach_window", {"windowKey": "guess"})
            assert posing.is_error
            listed = {t.name for t in (await client.list_tools()).tools}
            assert not {"cctui_attach_window", "cctui_answer_as_window"} & listed
        window.start_cctui()
        window.wait_for(lambda s: "attached to pid" in s, "the attached banner", 90)
        modal = window.wait_for(
            lambda s: "allow for this session" in s, "the Write permission in the window", 90
        )
        assert "attached.txt" in modal
        time.sleep(0.6)  # the modal ignores keys for a moment after it appears
        window.keys("y")
        assert _wait_for((project_dir / "attached.txt").exists, 60), window.screen()
        audit = (_state(claude_home) / "audit.jsonl").read_text()
        assert '"decision": "allow", "decided_by": "tui:window"' in audit, audit[-2000:]
        window.keys("q")
        window.wait_for(lambda s: "attached to pid" not in s, "the window to close", 30)
        assert owner_proc.poll() is None
        assert find_owner(_state(claude_home)) == owner
        _stop_leaves_nothing(env, claude_home)
        assert owner_proc.wait(10) == 0
    finally:
        if owner_proc.poll() is None:
            owner_proc.kill()
            owner_proc.wait()
