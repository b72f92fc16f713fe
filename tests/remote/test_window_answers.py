"""A host's permission is answered from this window as the host's human: through ``cctui
bridge --window`` (the default host command over ssh) the answer is the window's, so it
applies to any session there, also one this link did not create (one started in the
host's own window, or by another MCP client). Without ``--window`` the link is an MCP
client like any, bounded by the host's authority ladder: only the sessions it created."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp.client.streamable_http import streamable_http_client

from cctui.core import Decision
from cctui.remote.client import CctuiClient
from cctui.remote.models import RemoteError, client_name
from tests.helpers import bearer_http
from tests.mcp.conftest import call, client
from tests.remote.conftest import host_command
from tests.remote.test_client import WRITE, pending_of

pytestmark = pytest.mark.e2e


async def _someone_elses_session(host_home: Path, host_project: Path) -> str:
    """A session the host's other client created (not this link)."""
    info = json.loads((host_home / ".local/state/cctui/server.json").read_text())
    http = bearer_http(info["token"])
    async with http, client(streamable_http_client(info["url"], http_client=http),
                            name="someone-else") as c:  # fmt: skip
        made = await call(c, "claude_create_session", prompt=f"Write it. {WRITE}",
                          workingDirectory=str(host_project))  # fmt: skip
    return str(made["sessionId"])


def _bridge(host_home: Path, host_project: Path, *flags: str) -> list[str]:
    inner = " ".join(shlex.quote(a) for a in host_command(host_home, host_project, "bridge",
                                                          *flags))  # fmt: skip
    return ["sh", "-c", f"exec {inner}"]


async def test_through_bridge_window_the_answer_is_the_hosts_human(
    host_owner: subprocess.Popen[bytes], host_home: Path, host_project: Path
) -> None:
    sid = await _someone_elses_session(host_home, host_project)
    async with CctuiClient("box", _bridge(host_home, host_project)) as plain:
        [ask] = await pending_of(plain, sid)
        with pytest.raises(RemoteError) as refused:
            await plain.respond(sid, ask.id, Decision(behavior="allow"))
        assert refused.value.code == "beyond_authority"  # a delegate: not its session
        # Nor can it pose as the window without the key the bridge holds.
        with pytest.raises(RemoteError):
            await plain.call("cctui_answer_as_window", windowKey="guess", sessionId=sid,
                             inputId=ask.id, decision={"behavior": "allow"})  # fmt: skip
    async with CctuiClient("box", _bridge(host_home, host_project, "--window")) as window:
        answered = await window.respond(sid, ask.id, Decision(behavior="allow"))
        assert answered.decided_by == f"tui:{client_name()}"  # its human, at this window
        with anyio.fail_after(60):
            while await window.wait(sid, timeout_ms=10_000) not in ("turn_ended", "session_ended"):
                pass
    assert (host_project / "hello.txt").read_text().strip() == "hi"
