"""The MCP client of another cctui, over a command's stdio, against the real ``claude`` CLI
and the fake Anthropic API."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from cctui.core import Decision
from cctui.errors import CctuiError
from cctui.remote.client import REQUIRED_TOOLS, CctuiClient
from cctui.remote.models import ConnectFailed, HostUnreachable, client_name
from tests.remote.conftest import host_command

pytestmark = pytest.mark.e2e

WRITE = "[[write path=hello.txt content=hi]]"


async def pending_of(c: CctuiClient, sid: str) -> list:  # type: ignore[type-arg]
    with anyio.fail_after(60):
        while True:
            page = await c.status(sid)
            if page.pending:
                return page.pending
            await c.wait(sid, timeout_ms=5_000)


async def test_a_permission_there_is_answered_here_once(
    serve_command: list[str], host_project: Path
) -> None:
    async with CctuiClient("box", serve_command) as c:
        assert c.version and "claude_get_status" in c.tools
        health = await c.health()
        assert health["ok"] is True
        sid = await c.create(f"Write it. {WRITE}", cwd=str(host_project))
        [ask] = await pending_of(c, sid)
        assert ask.tool_name == "Write" and ask.session_id == sid
        assert ask.route == "nobody"  # headless there, and this client does not elicit
        listed = {e.session_id: e for e in await c.list_sessions()}
        assert listed[sid].cwd == str(host_project) and listed[sid].status == "waiting_for_input"

        answered = await c.respond(sid, ask.id, Decision(behavior="allow"))
        assert answered.decided_by == f"mcp:{client_name()}"
        # The same answer again is refused by the host: applied once, never twice.
        with pytest.raises(CctuiError) as again:
            await c.respond(sid, ask.id, Decision(behavior="allow"))
        assert again.value.code in ("input_already_answered", "input_not_found")
        with anyio.fail_after(60):
            while (await c.wait(sid, timeout_ms=10_000)) not in ("turn_ended", "session_ended"):
                pass
        page = await c.status(sid)
        kinds = [e.kind for e in page.events]
        assert "input_resolved" in kinds and "result" in kinds
        assert page.next_seq >= page.last_seq > 0
    assert (host_project / "hello.txt").read_text().strip() == "hi"
    assert c.closed
    with pytest.raises(HostUnreachable):
        await c.list_sessions()


async def test_a_missing_cctui_says_so_and_how_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(ConnectFailed) as failed:
        async with CctuiClient("box", ["sh", "-c", "cctui-is-not-here bridge --start"]):
            pass
    assert failed.value.state == "missing"
    assert "not installed" in failed.value.message and "not found" in failed.value.message
    assert "pipx install cctui" in (failed.value.suggestion or "")


async def test_a_missing_command_and_a_foreign_server(tmp_path: Path) -> None:
    with pytest.raises(ConnectFailed) as failed:
        async with CctuiClient("box", [str(tmp_path / "no-ssh-here"), "box"]):
            pass
    assert failed.value.state == "offline" and "not found on this machine" in failed.value.message
    refused = "echo 'ssh: connect to host box port 22: Connection refused' >&2; exit 255"
    with pytest.raises(ConnectFailed) as failed:
        async with CctuiClient("box", ["sh", "-c", refused]):
            pass
    assert failed.value.state == "offline"
    assert "Connection refused" in failed.value.message


async def test_an_incompatible_cctui_says_so_and_how_to_fix_it(
    host_home: Path, host_project: Path
) -> None:
    # A cctui there that serves only its review menu: the session tools are missing.
    menu = host_command(host_home, host_project, "serve", "--stdio", "--tools", "menu")
    with pytest.raises(ConnectFailed) as failed:
        async with CctuiClient("box", menu):
            pass
    assert failed.value.state == "incompatible"
    assert "lacks" in failed.value.message and "claude_get_status" in failed.value.message
    assert "pipx upgrade cctui" in (failed.value.suggestion or "")
    # A cctui there older than `bridge`: its own argparse says so on stderr.
    old = "echo \"cctui: error: argument command: invalid choice: 'bridge'\" >&2; exit 2"
    with pytest.raises(ConnectFailed) as failed:
        async with CctuiClient("box", ["sh", "-c", old]):
            pass
    assert failed.value.state == "incompatible"
    assert "too old for `bridge --start`" in failed.value.message
    assert "pipx upgrade cctui" in (failed.value.suggestion or "")


async def test_connecting_calls_no_tool_there(tmp_path: Path) -> None:
    """A host whose cctui answers no tool call is online once its tools are listed: the
    handshake asks nothing that runs ``claude`` there (``claude_health`` cost ~0.3 s of CPU
    per connect and, under load, held the first connection past what a tool call waits)."""
    pidfile, asked = tmp_path / "pid", tmp_path / "asked"
    async with CctuiClient("box", silent_host(pidfile, asked, "tools/call")) as c:
        assert c.version == "0.0.0" and c.tools >= REQUIRED_TOOLS
        assert not asked.exists()


async def test_a_connection_cancelled_half_made_ends_the_command(tmp_path: Path) -> None:
    """A window closing (or a call giving up) while a slow host is still answering the
    handshake: the command there ends with it, and nothing of the link is left running (a
    whole run once hung at its loop's close: the transport's reader waited on the stdout
    of a bridge nobody would stop)."""
    pidfile, asked = tmp_path / "pid", tmp_path / "asked"
    link = CctuiClient("box", silent_host(pidfile, asked, "tools/list"))
    connecting = asyncio.create_task(link.connect())
    try:
        await _until(asked.exists, 60)  # the handshake got as far as listing the tools
        assert asked.read_text() == "tools/list"
        connecting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await connecting
        pid = int(pidfile.read_text())
        await _until(lambda: not _running(pid), 15)  # the SDK closes its stdin, then stops it
        left = [t.get_name() for t in asyncio.all_tasks() if "stdio" in t.get_name()]
        assert left == []
    finally:  # on a failure, nothing left to hang this test's own loop
        if pidfile.exists() and _running(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def silent_host(pidfile: Path, asked: Path, hold: str) -> list[str]:
    """A host that never answers ``hold`` (``silent_host.py``), listing the tools needed."""
    host = Path(__file__).with_name("silent_host.py")
    return [sys.executable, str(host), str(pidfile), str(asked), hold, *sorted(REQUIRED_TOOLS)]


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


async def _until(check: Callable[[], bool], within: float) -> None:
    """Poll ``check`` (a file, a process: nothing to wait on) until it holds."""
    for _ in range(int(within / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")
