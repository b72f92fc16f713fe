"""A host's session's diff, worktree finish, fork, rewind, mode and model, from this window:
the same ``CoreApi`` calls an attached window makes, run on the host's core through its link
(``Host.core_call``: ``cctui_window_call``, vouched for by ``bridge --window`` there). A link
without ``--window`` is refused, saying why and what to change."""

from __future__ import annotations

import shlex
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from cctui.config import HostConfig
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Host
from cctui.remote.models import RemoteError, client_name
from cctui.remote.verbs import HostVerbs
from tests.helpers import git
from tests.remote.conftest import Heard, host_command, module_host

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("host-verbs")]


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


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """One host for the module (``module_host``): its HOME and a project there, a git
    repository with one commit."""
    with module_host(tmp_path_factory.mktemp("verbs"), "verbs") as served:
        project = served.projects["verbs"]
        git(project, "init", "-q", "-b", "main")
        (project / "f.txt").write_text("one\n")
        git(project, "add", "f.txt")
        git(project, "commit", "-qm", "first")
        yield served.home, project


@pytest.fixture
async def box(host: tuple[Path, Path]) -> AsyncIterator[tuple[Host, Heard]]:
    linked, heard = await _online(_bridge(*host, "--window"))
    try:
        yield linked, heard
    finally:
        await linked.stop()


async def test_a_hosts_session_verbs_run_on_its_core(
    box: tuple[Host, Heard], host: tuple[Path, Path]
) -> None:
    linked, heard = box
    host_project = host[1]
    sid = await linked.create(
        "[[write path=new.txt content=made]]",
        cwd=str(host_project),
        permission_mode="acceptEdits",
    )
    await heard.until(lambda: (e := linked.entry(sid)) is not None and e.status == "idle", 90)
    verbs = HostVerbs(linked.core_call)

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


async def test_without_window_the_host_says_what_to_change(host: tuple[Path, Path]) -> None:
    linked, _ = await _online(_bridge(*host))
    try:
        with pytest.raises(RemoteError) as refused:
            await HostVerbs(linked.core_call).diff("00000000-0000-4000-8000-000000000000")
        assert refused.value.code == "not_on_host"
        assert "--window" in refused.value.message
        assert refused.value.suggestion is not None and "--window" in refused.value.suggestion
    finally:
        await linked.stop()


async def test_a_stopped_hosts_next_call_connects_again(host: tuple[Path, Path]) -> None:
    """A window that went to the background closed its host links; its MCP server's calls
    with ``host`` still reach the host (it said 'box is online' and failed)."""
    linked, _ = await _online(_bridge(*host, "--window"))
    try:
        await linked.stop()
        assert linked.state == "connecting"
        out = await linked.call("claude_list_sessions", {})
        assert "sessions" in out
        assert linked.online
    finally:
        await linked.stop()
