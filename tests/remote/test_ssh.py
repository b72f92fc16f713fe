"""The same host reached through real ``ssh`` to a test ``sshd`` on 127.0.0.1 (its own host
key, a temporary client key, a free port): the path a user's ``[[hosts]]`` default takes.
Skipped, saying why, where no ``sshd`` can run (not installed, not root, no /run/sshd)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cctui.config import HostConfig
from cctui.core import Decision
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Hosts
from cctui.remote.models import client_name
from cctui.remote.terminal import terminal_command
from tests.remote.conftest import Heard, host_command

pytestmark = pytest.mark.e2e

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
WRITE = "[[write path=hello.txt content=hi]]"
PASSED = (
    "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "HTTPS_PROXY",
    "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
)  # fmt: skip
"""What the test's own environment gives the other cctui (sshd starts it with none)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A test sshd on 127.0.0.1: (its port, the client key that logs in)."""
    if not Path(SSHD).exists() or not shutil.which("ssh"):
        pytest.skip("no sshd/ssh here (apt-get install openssh-server openssh-client)")
    if os.geteuid() != 0:
        pytest.skip("a test sshd needs root here (it logs in as the running user via setuid)")
    Path("/run/sshd").mkdir(exist_ok=True)  # its privilege separation directory
    keys = tmp_path / "ssh"
    keys.mkdir(mode=0o700)
    for name in ("host", "client"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True
        )
    authorized = keys / "authorized_keys"
    authorized.write_text((keys / "client.pub").read_text())
    authorized.chmod(0o600)
    port = _free_port()
    server = subprocess.Popen(
        [
            SSHD,
            "-D",
            "-e",
            "-f",
            "/dev/null",
            "-p",
            str(port),
            "-o",
            "ListenAddress=127.0.0.1",
            "-o",
            f"HostKey={keys / 'host'}",
            "-o",
            f"AuthorizedKeysFile={authorized}",
            "-o",
            "StrictModes=no",
            "-o",
            "UsePAM=no",
            "-o",
            "PermitRootLogin=prohibit-password",
            "-o",
            "PidFile=none",
            "-o",
            "PasswordAuthentication=no",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            if server.poll() is not None:
                err = server.stderr.read().decode() if server.stderr else ""
                pytest.skip(f"sshd cannot run here: {err.strip()[-300:]}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                pytest.skip("sshd did not listen within 20 s")
            time.sleep(0.1)
        yield port, keys / "client"
    finally:
        server.terminate()
        server.wait(timeout=10)


def ssh_reach(port: int, key: Path) -> list[str]:
    return [
        "ssh", "-F", "/dev/null", "-p", str(port), "-i", str(key), "-o", "BatchMode=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "LogLevel=ERROR", f"{os.environ.get('USER') or 'root'}@127.0.0.1",
    ]  # fmt: skip


async def test_a_host_over_real_ssh(
    sshd: tuple[int, Path],
    claude_env: dict[str, str],
    host_home: Path,
    host_project: Path,
) -> None:
    port, key = sshd
    there = host_command(host_home, host_project, "bridge", "--start")
    passed = [f"{k}={claude_env[k]}" for k in PASSED if k in claude_env]
    command = [*ssh_reach(port, key), there[0], *passed, *there[1:]]
    hosts = Hosts([HostConfig(name="box", command=tuple(command))],
                  lambda c: CctuiClient(c.name, c.argv), me=f"mcp:{client_name()}")  # fmt: skip
    heard = Heard()
    hosts.subscribe(heard)
    hosts.start()
    try:
        box = hosts.get("box")
        await heard.until(lambda: box.state != "connecting", within=90)
        assert box.online, (box.state, box.problem)
        sid = await box.create(f"Write it. {WRITE}", cwd=str(host_project))
        await heard.until(lambda: box.pending(sid))
        [ask] = box.pending(sid)
        answered = await box.respond(sid, ask.id, Decision(behavior="allow"))
        assert answered.decided_by == f"mcp:{client_name()}"
        await heard.until(lambda: any(e.kind == "result" for e in box.events(sid)))
        assert (host_project / "hello.txt").read_text().strip() == "hi"
        # o: the same ssh, with a terminal, runs the claude the host's cctui drives.
        claude = await box.claude()  # asked when a take-over needs it, not on connecting
        assert claude is not None and claude.path
        argv = terminal_command(command, claude.path, sid, str(host_project))
        assert argv[:2] == ["ssh", "-t"] and argv[-1].endswith(f"--resume {sid}'")
        # Run for real, with a stand-in for claude that says where it ran and with what: the
        # host's command ends in a program of its own (env …), which once got `cd` to run.
        stand_in = host_project / "claude stand-in.sh"
        stand_in.write_text('#!/bin/sh\necho "in $PWD: $*"\n')
        stand_in.chmod(0o755)
        ran = subprocess.run(
            terminal_command(command, str(stand_in), sid, str(host_project)),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.strip() == f"in {host_project}: --resume {sid}"
    finally:
        await hosts.stop()
        subprocess.run(
            host_command(host_home, host_project, "stop"),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )


async def test_a_missing_cctui_over_ssh_says_so(sshd: tuple[int, Path]) -> None:
    port, key = sshd
    command = [*ssh_reach(port, key), "cctui-not-installed-here", "bridge", "--start"]
    hosts = Hosts([HostConfig(name="box", command=tuple(command))],
                  lambda c: CctuiClient(c.name, c.argv), me="mcp:test")  # fmt: skip
    await hosts.look_once(within=60)
    [status] = hosts.statuses()
    assert status.state == "missing", status
    assert "not found" in (status.problem or "") and "pipx install cctui" in (status.fix or "")


async def test_a_first_connection_ssh_cannot_ask_about_says_what_to_do(
    sshd: tuple[int, Path], tmp_path: Path
) -> None:
    """ssh runs with no terminal here, so a host key it does not know yet, or a key it may
    not log in with, is refused at once: each says what to do in a terminal, not only "check
    the command"."""
    port, key = sshd
    known = tmp_path / "known_hosts"  # empty: this host's key is new to it
    other = tmp_path / "other"  # a key the host does not know
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    user = f"{os.environ.get('USER') or 'root'}@127.0.0.1"
    reach = ["ssh", "-F", "/dev/null", "-p", str(port), "-o", "LogLevel=ERROR"]
    configs = [
        HostConfig(name="newbox", command=(
            *reach, "-i", str(key), "-o", f"UserKnownHostsFile={known}", user, "cctui", "bridge",
        )),
        HostConfig(name="lockedbox", command=(
            *reach, "-i", str(other), "-o", "IdentitiesOnly=yes", "-o",
            "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", user, "cctui",
            "bridge",
        )),
    ]  # fmt: skip
    hosts = Hosts(configs, lambda c: CctuiClient(c.name, c.argv), me="mcp:test")
    await hosts.look_once(within=60)
    new, locked = sorted(hosts.statuses(), key=lambda s: s.name != "newbox")
    assert new.state == locked.state == "offline", (new, locked)
    assert "host key" in (new.problem or "") and "Host key verification failed" in (
        new.problem or ""
    )
    assert new.fix and "once in a terminal" in new.fix and f"-p {port}" in new.fix
    assert "could not log in" in (locked.problem or "") and "Permission denied" in (
        locked.problem or ""
    )
    assert locked.fix and "ssh-copy-id" in locked.fix and "ssh-agent" in locked.fix
