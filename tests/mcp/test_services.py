"""The services the composition root shares: the server uses the ones it is handed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.streamable_http import streamable_http_client

from cctui.cli import _LaterHttp
from cctui.config import Settings
from cctui.core import SessionManager
from cctui.history import HistoryIndex
from cctui.mcp_server.server import build_server
from cctui.services import Services
from tests.fakes.fake_driver import FakeDriverFactory
from tests.helpers import bearer_http
from tests.mcp.conftest import call, client

SID = "0b0c7c1e-1111-4222-8333-444455556666"


def _transcript(settings: Settings) -> None:
    """One past Claude Code session on disk, as the CLI writes it."""
    folder = settings.claude_config_dir / "projects" / "-work-demo"
    folder.mkdir(parents=True)
    line = {
        "type": "user",
        "sessionId": SID,
        "cwd": "/work/demo",
        "timestamp": "2026-11-20T10:00:00.000Z",
        "uuid": "u1",
        "message": {"role": "user", "content": "fix the flaky test"},
    }
    (folder / f"{SID}.jsonl").write_text(json.dumps(line) + "\n")


async def _listed(services: Services, settings: Settings) -> set[str]:
    server = build_server(services.manager, settings, services=services)
    async with client(server) as c:
        out = await call(c, "claude_list_sessions")
    return {s["sessionId"] for s in out["sessions"]}


async def test_the_list_tool_reads_the_shared_index_and_leaves_refreshing_to_its_watcher(
    manager: SessionManager, settings: Settings
) -> None:
    index = HistoryIndex.from_settings(settings)
    index.refresh()  # the TUI's first read, before the session is written
    _transcript(settings)
    shared = Services.build(settings, manager, history=index)
    assert await _listed(shared, settings) == set()  # not refreshed behind the watcher
    index.refresh()  # the watcher saw the file
    assert await _listed(shared, settings) == {SID}
    # Without a watcher (``cctui serve``) the tool keeps its own index, fresh per call.
    assert await _listed(Services.build(settings, manager), settings) == {SID}


async def test_the_project_tools_use_the_project_service_they_are_handed(
    manager: SessionManager, settings: Settings, project: Path, tmp_path: Path
) -> None:
    # A registry elsewhere than the settings say: only the handed service writes there.
    elsewhere = settings.model_copy(update={"projects_config": tmp_path / "shared.json"})
    services = Services.build(elsewhere, manager)
    assert services.registry.all() == []
    server = build_server(manager, settings, services=services)
    async with client(server) as c:
        out = await call(c, "register_project", name="Demo", rootPath=str(project))
        listed = await call(c, "list_projects")
    assert [p.id for p in services.registry.all()] == [out["projectId"]]
    assert [p["id"] for p in listed["projects"]] == [out["projectId"]]
    assert not settings.projects_file.exists()
    await services.close()


async def test_services_of_another_manager_are_refused(
    manager: SessionManager, settings: Settings, factory: FakeDriverFactory
) -> None:
    other = SessionManager(settings, driver_factory=factory)
    with pytest.raises(ValueError, match="another session manager"):
        build_server(manager, settings, services=Services.build(settings, other))


async def test_the_tuis_mcp_server_is_built_when_started_and_not_after_a_quit(
    manager: SessionManager,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    claude_env: dict[str, str],  # claude_health asks the CLI whether it is logged in
) -> None:
    """``cli._LaterHttp``: the TUI's MCP service imports and builds the server only when the
    app starts it (after its first frame); it then serves like any; stopped first (cctui quit
    while it was being imported), it builds and serves nothing (cctui's exit waits for it)."""
    builds: list[object] = []

    def build(*args: Any, **kwargs: Any) -> object:
        builds.append(build_server(*args, **kwargs))
        return builds[-1]

    monkeypatch.setattr("cctui.mcp_server.server.build_server", build)
    services = Services.build(settings, manager)
    quit_first = _LaterHttp(settings, services)
    await quit_first.stop()
    await quit_first.start()
    assert quit_first.status_line() == "MCP off"
    assert not settings.server_file.exists()
    assert builds == []

    later = _LaterHttp(settings, services)
    assert later.status_line() == "MCP starting…"
    await later.start()
    try:
        info = json.loads(settings.server_file.read_text())
        assert later.status_line().startswith(f"MCP {info['url']}")
        async with (
            bearer_http(info["token"]) as http,
            client(streamable_http_client(info["url"], http_client=http)) as c,
        ):
            health = await call(c, "claude_health")
        assert health["available"] is True and health["activeSessions"] == 0
        assert len(builds) == 1
    finally:
        await later.stop()
    assert not settings.server_file.exists()
    assert later.status_line() == "MCP off"


async def test_serve_builds_one_history_index_for_every_history_tool(
    manager: SessionManager, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the TUI's live index, the server's history tools and seed 004's list share
    one index, built once (two views used to build two, each reading every transcript)."""
    _transcript(settings)
    built: list[HistoryIndex] = []
    real = HistoryIndex.from_settings

    def counted(s: Settings) -> HistoryIndex:
        built.append(index := real(s))
        return index

    monkeypatch.setattr(HistoryIndex, "from_settings", staticmethod(counted))
    async with client(build_server(manager, settings)) as c:
        listed = await call(c, "claude_list_sessions")
        seed = await call(c, "list_sessions")
        await call(c, "claude_usage")
    assert listed["sessions"] and seed["sessions"]
    assert len(built) == 1
