"""Hosts followed from here: the other cctui (another HOME) reached through its bridge, the
path ``ssh HOST cctui bridge`` takes; its link cut and coming back on its own."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.config import HostConfig
from cctui.core import Decision
from cctui.remote import hosts as hosts_module
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Host, Hosts
from cctui.remote.models import NotDelivered, client_name
from tests.remote.conftest import Heard

pytestmark = pytest.mark.e2e

WRITE = "[[write path=hello.txt content=hi]]"


CALLS: list[str] = []


class Counting(CctuiClient):
    """The real client, noting each tool it calls."""

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        CALLS.append(tool)
        return await super().call(tool, **arguments)


def make_link(config: HostConfig) -> CctuiClient:
    return Counting(config.name, config.argv)


@pytest.fixture
async def hosts(bridge_command: list[str]) -> AsyncIterator[tuple[Hosts, Heard]]:
    CALLS.clear()
    hosts = Hosts(
        [HostConfig(name="box", command=tuple(bridge_command))],
        make_link,
        me=f"mcp:{client_name()}",
    )
    heard = Heard()
    hosts.subscribe(heard)
    hosts.start()
    try:
        yield hosts, heard
    finally:
        await hosts.stop()


async def test_a_permission_on_the_host_is_answered_from_here(
    hosts: tuple[Hosts, Heard], host_project: Path
) -> None:
    all_hosts, heard = hosts
    box = all_hosts.get("box")
    await heard.until(lambda: box.online)
    assert box.status().version
    sid = await box.create(f"Write it. {WRITE}", cwd=str(host_project))
    await heard.until(lambda: box.pending(sid))
    [ask] = box.pending(sid)
    assert any(ask in c.requested for c in heard.changes)
    entry = box.entry(sid)
    assert entry is not None and entry.pending_inputs == 1
    assert box.waiting_since()[sid] == ask.created_at

    answered = await box.respond(sid, ask.id, Decision(behavior="allow"))
    assert answered.decided_by == f"mcp:{client_name()}"
    assert not box.pending(sid)
    await heard.until(lambda: any(e.kind == "result" for e in box.events(sid)))
    assert (host_project / "hello.txt").read_text().strip() == "hi"
    assert box.status().pending == 0 and box.status().sessions >= 1
    # Followed by push: its events and inputs came in cctui_follow's answers, not in a
    # claude_get_status per session per second; the list was read once, on connecting.
    assert "cctui_follow" in CALLS and "claude_get_status" not in CALLS
    assert CALLS.count("claude_list_sessions") == 1
    # Its claude (claude --version and auth status there) was not asked on connecting.
    assert "claude_health" not in CALLS


async def test_a_cut_link_keeps_the_rows_and_comes_back(
    hosts: tuple[Hosts, Heard], host_project: Path, bridge_pidfile: Path
) -> None:
    all_hosts, heard = hosts
    box = all_hosts.get("box")
    await heard.until(lambda: box.online)
    unasked = box.claude_path
    assert unasked is None and "claude_health" not in CALLS  # not asked on connecting
    claude = await box.claude()  # asked when needed (a take-over), then kept
    assert claude is not None and claude.ok and claude.path and box.claude_path == claude.path
    assert await box.claude() is claude and CALLS.count("claude_health") == 1
    sid = await box.create("[[slow seconds=6 chunks=30]]", cwd=str(host_project))
    await heard.until(lambda: any(e.kind == "text" for e in box.events(sid)))
    first_bridge = int(bridge_pidfile.read_text())
    os.kill(first_bridge, signal.SIGKILL)  # the SSH link drops mid-stream

    await heard.until(lambda: box.state == "offline", within=30)
    assert box.entry(sid) is not None  # its last rows stay
    seen = box.last_seen
    assert seen is not None and box.status().state == "offline" and box.problem
    with pytest.raises(NotDelivered) as refused:
        await box.respond(sid, "in_nothing", Decision(behavior="deny"))
    assert "not delivered" in refused.value.message
    assert await box.claude() is claude  # the link is down: the last answer, with its age

    await heard.until(lambda: box.online, within=30)  # on its own, after its backoff
    assert int(bridge_pidfile.read_text()) != first_bridge
    await heard.until(lambda: any(e.kind == "result" for e in box.events(sid)))
    seqs = [e.seq for e in box.events(sid)]
    assert seqs == sorted(set(seqs)), "events read twice or out of order across the cut"
    assert box.last_seen is not None and box.last_seen > seen
    # A new connection asks again when next needed: its cctui may run another claude now.
    assert CALLS.count("claude_health") == 1
    again = await box.claude()
    assert again is not None and again is not claude and again.path == claude.path
    assert CALLS.count("claude_health") == 2


async def test_a_host_that_is_not_there_is_offline_and_local_work_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosts_module, "FIRST_RETRY_S", 0.05)
    hosts = Hosts(
        [
            HostConfig(
                name="gone",
                command=("sh", "-c", "echo 'ssh: Could not resolve hostname gone' >&2; exit 255"),
            ),
            HostConfig(
                name="bare", command=("sh", "-c", "exec cctui-not-installed bridge --start")
            ),
        ],
        make_link,
        me="mcp:test",
    )
    heard = Heard()
    hosts.subscribe(heard)
    hosts.start()
    try:
        gone, bare = hosts.get("gone"), hosts.get("bare")
        await heard.until(lambda: gone.state == "offline" and bare.state == "missing")
        assert "Could not resolve hostname" in (gone.problem or "")
        assert "pipx install cctui" in (bare.fix or "")
        assert [s.state for s in hosts.statuses()] == ["offline", "missing"]
        attempts = len([c for c in heard.changes if c.host == "gone"])
        await heard.until(lambda: len([c for c in heard.changes if c.host == "gone"]) > attempts)
    finally:
        await hosts.stop()
    assert isinstance(gone, Host)


async def test_bridge_start_keeps_the_hosts_sessions_across_a_cut(
    start_command: list[str], host_project: Path, bridge_pidfile: Path, host_home: Path
) -> None:
    """Nothing runs on the host at first: ``bridge --start`` starts its cctui in the
    background, so a session there outlives the link that started it."""
    hosts = Hosts([HostConfig(name="box", command=tuple(start_command))], make_link,
                  me=f"mcp:{client_name()}")  # fmt: skip
    heard = Heard()
    hosts.subscribe(heard)
    hosts.start()
    try:
        box = hosts.get("box")
        await heard.until(lambda: box.online, within=90)
        sid = await box.create("[[slow seconds=8 chunks=40]]", cwd=str(host_project))
        await heard.until(lambda: any(e.kind == "text" for e in box.events(sid)))
        os.kill(int(bridge_pidfile.read_text()), signal.SIGKILL)
        await heard.until(lambda: box.state == "offline", within=30)
        await heard.until(lambda: box.online, within=60)
        # The same session, still going (or done) on the host's own cctui.
        await heard.until(lambda: any(e.kind == "result" for e in box.events(sid)))
        entry = box.entry(sid)
        assert entry is not None and entry.cwd == str(host_project)
    finally:
        await hosts.stop()
