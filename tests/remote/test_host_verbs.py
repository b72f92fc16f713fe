"""A host's session's diff, worktree finish, fork, rewind, mode and model, from this window:
the same ``CoreApi`` calls an attached window makes, run on the host's core through its link
(``Host.core_call``: ``cctui_window_call``, vouched for by ``bridge --window`` there). A link
without ``--window`` is refused, saying why and what to change."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.config import HostConfig
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Host
from cctui.remote.models import RemoteError, client_name
from cctui.remote.verbs import HostVerbs
from tests.helpers import git
from tests.remote.conftest import Heard, host_command

pytestmark = pytest.mark.e2e


def _bridge(home: Path, project: Path, *flags: str) -> list[str]:
    inner = " ".join(shlex.quote(a) for a in host_command(home, project, "bridge", *flags))
    return ["sh", "-c", f"exec {inner}"]


async def _online(argv: list[str]) -> tuple[Host, Heard]:
    host = Host(
        HostConfig(name="box", command=tuple(argv)),
        lambda c: CctuiClient(c.name, c.argv),
        me=f"mcp:{client_name()}",
    )
    heard = Heard()
    host.subscribe(heard)
    host.start()
    await heard.until(lambda: host.online)
    return host, heard


@pytest.fixture
async def box(
    host_owner: subprocess.Popen[bytes], host_home: Path, host_project: Path
) -> AsyncIterator[tuple[Host, Heard]]:
    git(host_project, "init", "-q", "-b", "main")
    (host_project / "f.txt").write_text("one\n")
    git(host_project, "add", "f.txt")
    git(host_project, "commit", "-qm", "first")
    host, heard = await _online(_bridge(host_home, host_project, "--window"))
    try:
        yield host, heard
    finally:
        await host.stop()


async def test_a_hosts_session_verbs_run_on_its_core(
    box: tuple[Host, Heard], host_project: Path
) -> None:
    host, heard = box
    sid = await host.create(
        "[[write path=new.txt content=made]]",
        cwd=str(host_project),
        permission_mode="acceptEdits",
    )
    await heard.until(lambda: (e := host.entry(sid)) is not None and e.status == "idle", 90)
    verbs = HostVerbs(host.core_call)

    diff = await verbs.diff(sid)
    assert [f.path for f in diff.files] == ["new.txt"]
    change = await verbs.cycle_permission_mode(sid)
    assert change.value == "plan"  # acceptEdits -> plan, as in Claude Code
    offered = await verbs.model_options(sid)
    assert offered and all(o.value for o in offered)
    assert (await verbs.set_model(sid, "haiku")).value == "haiku"

    fork = await verbs.fork(sid, worktree=True)
    assert fork.worktree is not None and fork.worktree.path.is_dir()
    preview = await verbs.finish_preview(fork.session_id)
    assert preview.worktree.branch == fork.worktree.branch
    await verbs.finish_worktree(fork.session_id, "discard", force=True)
    assert not fork.worktree.path.exists()


async def test_without_window_the_host_says_what_to_change(
    host_owner: subprocess.Popen[bytes], host_home: Path, host_project: Path
) -> None:
    host, _ = await _online(_bridge(host_home, host_project))
    try:
        with pytest.raises(RemoteError) as refused:
            await HostVerbs(host.core_call).diff("00000000-0000-4000-8000-000000000000")
        assert refused.value.code == "not_on_host"
        assert "--window" in refused.value.message
        assert refused.value.suggestion is not None and "--window" in refused.value.suggestion
    finally:
        await host.stop()


async def test_a_stopped_hosts_next_call_connects_again(
    host_owner: subprocess.Popen[bytes], host_home: Path, host_project: Path
) -> None:
    """A window that went to the background closed its host links; its MCP server's calls
    with ``host`` still reach the host (it said 'box is online' and failed)."""
    host, _ = await _online(_bridge(host_home, host_project, "--window"))
    try:
        await host.stop()
        assert host.state == "connecting"
        out = await host.call("claude_list_sessions", {})
        assert "sessions" in out
        assert host.online
    finally:
        await host.stop()
