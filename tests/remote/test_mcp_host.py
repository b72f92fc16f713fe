"""cctui's MCP tools with ``host``: a client of this cctui starts, follows and answers a
session on a host (a second cctui under another HOME, reached through its bridge); and an
answer whose link drops mid-request is applied there once, never twice."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import Implementation

from cctui.config import HostConfig
from cctui.core import Decision, SessionManager
from cctui.mcp_server.server import build_server
from cctui.remote import hosts as hosts_module
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Hosts
from cctui.remote.models import NotDelivered, client_name
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings
from tests.mcp.conftest import call, error_body
from tests.remote.conftest import Heard, ModuleHost, bridge_argv, host_command, module_host

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("mcp-host")]

WRITE = "[[write path=hello.txt content=hi]]"
ME = f"mcp:{client_name()}"


def make_link(config: HostConfig) -> CctuiClient:
    return CctuiClient(config.name, config.argv)


@pytest.fixture
async def here(tmp_path: Path) -> AsyncIterator[SessionManager]:
    settings = make_settings(tmp_path / "here", default_cwd=tmp_path)
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    await manager.start()
    yield manager
    await manager.shutdown()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleHost]:
    """One host for the module (``module_host``), a project there for each test."""
    with module_host(tmp_path_factory.mktemp("mcp-host"), "tools", "cut") as served:
        yield served


async def pending_there(c: Client, sid: str) -> dict[str, Any]:
    with anyio.fail_after(60):
        while True:
            out = await call(c, "claude_wait", host="box", sessionId=sid, timeoutMs=5_000)
            if out["pendingInputs"]:
                return dict(out["pendingInputs"][0])


async def test_the_session_tools_reach_a_host(
    here: SessionManager, host: ModuleHost, tmp_path: Path
) -> None:
    host_project = host.projects["tools"]
    bridge_pidfile = tmp_path / "bridge.pid"
    bridge_command = bridge_argv(host.home, host_project, bridge_pidfile)
    hosts = Hosts([HostConfig(name="box", command=tuple(bridge_command))], make_link, me=ME)
    heard = Heard()
    hosts.subscribe(heard)
    server = build_server(here, here.settings, hosts=hosts)
    agent = Client(server, client_info=Implementation(name="agent", version="1"))
    try:
        # Connected before the first call: a call waits 20 s for a host's first connection
        # (REACH_WAIT_S), and two whole runs at once on two cores once took longer to start
        # the bridge and shake hands (the call failed, and the link it left hung the run).
        hosts.start()
        await heard.until(lambda: hosts.get("box").online, within=90)
        async with agent as c:
            created = await call(c, "claude_create_session", host="box", prompt=f"Do. {WRITE}",
                                 workingDirectory=str(host_project))  # fmt: skip
            sid = created["sessionId"]
            ask = await pending_there(c, sid)
            status = await call(c, "claude_get_status", host="box", sessionId=sid)
            assert status["state"] == "waiting_for_input" and status["pendingInputs"]
            listed = await call(c, "claude_list_sessions", host="box")
            assert sid in [r["sessionId"] for r in listed["sessions"]]
            mine = await call(c, "claude_list_sessions")  # no host: this machine, as ever
            assert sid not in [r["sessionId"] for r in mine["sessions"]]

            # The link is down as the answer is given: not delivered, and said so.
            os.kill(int(bridge_pidfile.read_text()), signal.SIGKILL)
            box = hosts.get("box")
            await heard.until(lambda: not box.online, within=30)
            answer = {"host": "box", "sessionId": sid, "inputId": ask["inputId"],
                      "decision": "allow"}  # fmt: skip
            refused = error_body(await c.call_tool("claude_respond", answer))
            assert refused["code"] == "not_delivered" and "not delivered" in refused["message"]
            # Back (its backoff), answered once; a second answer is refused there.
            await heard.until(lambda: box.online, within=30)
            answered = await call(c, "claude_respond", host="box", sessionId=sid,
                                  inputId=ask["inputId"], decision="allow")  # fmt: skip
            assert answered["decidedBy"] == ME
            again = await c.call_tool("claude_respond", answer)
            assert error_body(again)["code"] in ("input_already_answered", "input_not_found")
            sent = await call(c, "claude_send_message", host="box", sessionId=sid,
                              message="And again.", wait=True, timeoutMs=30_000)  # fmt: skip
            assert sent["sessionId"] == sid
            unknown = await c.call_tool("claude_get_status", {"host": "nowhere",
                                                              "sessionId": sid})  # fmt: skip
            assert "nowhere" in error_body(unknown)["message"]
        assert (host_project / "hello.txt").read_text().strip() == "hi"
    finally:
        await hosts.stop()


async def test_an_answer_cut_mid_request_is_applied_once(
    host: ModuleHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bridge is killed a second after the answer went through it, before the host's
    reply came back: the window hears "not confirmed", and once the link is back, that the
    answer had arrived; the host applied it once."""
    monkeypatch.setattr(hosts_module, "FIRST_RETRY_S", 0.2)
    host_project = host.projects["cut"]
    proxy = Path(__file__).with_name("cut_link.py")
    bridge = host_command(host.home, host_project, "bridge", "--window")
    argv = (sys.executable, str(proxy), str(tmp_path / "cut"), "cctui_answer_as_window", *bridge)
    hosts = Hosts([HostConfig(name="box", command=argv)], make_link, me=ME)
    heard = Heard()
    hosts.subscribe(heard)
    hosts.start()
    box = hosts.get("box")
    try:
        await heard.until(lambda: box.online)
        sid = await box.create(f"Do. {WRITE}", cwd=str(host_project))
        await heard.until(lambda: box.pending(sid))
        [ask] = box.pending(sid)
        with pytest.raises(NotDelivered) as lost:
            await box.respond(sid, ask.id, Decision(behavior="allow"))
        assert "not confirmed" in lost.value.message
        await heard.until(lambda: any(c.notes for c in heard.changes))
        assert [n for c in heard.changes for n in c.notes] == [
            f"box: your answer to {ask.id} had arrived"
        ]
        await heard.until(lambda: any(e.kind == "result" for e in box.events(sid)))
        resolved = [e for e in box.events(sid) if e.kind == "input_resolved"]
        assert len(resolved) == 1  # applied once, never twice
        assert (host_project / "hello.txt").read_text().strip() == "hi"
    finally:
        await hosts.stop()
