"""Registered projects' trees are built in the background when the project tools start, so
the first ``/files`` read after a restart does not wait for a whole build."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from cctui.cli import _LaterHttp
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from cctui.projects import ProjectService
from cctui.services import Services
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings


@pytest.fixture(autouse=True)
def _no_start_up_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cctui.projects.service.PREFETCH_DELAY_S", 0.0)


async def _built(service: ProjectService, project_id: str) -> set[str]:
    for _ in range(200):
        tree = service.trees.peek(project_id)
        if tree is not None:
            return {e.path for e in tree.entries}
        await asyncio.sleep(0.02)
    raise AssertionError(f"the tree of {project_id} was never built")


def _registered(tmp_path: Path) -> Path:
    """A registry with two projects (one whose root is gone), written by an earlier run."""
    registry = tmp_path / "projects.json"
    earlier = ProjectService(registry, watch=False)
    for name in ("a", "gone"):
        root = tmp_path / name
        root.mkdir()
        (root / f"{name}.txt").write_text(name)
        earlier.register(name, str(root), project_id=name)
    (tmp_path / "gone" / "gone.txt").unlink()
    (tmp_path / "gone").rmdir()
    return registry


async def test_start_builds_registered_trees_in_the_background(tmp_path: Path) -> None:
    service = ProjectService(_registered(tmp_path), watch=False)  # a restarted server
    assert service.trees.peek("a") is None
    service.start()
    service.start()  # once is enough: a second call starts nothing more
    assert "a.txt" in await _built(service, "a")
    assert service.trees.peek("gone") is None  # a missing root is skipped, not an error
    await service.close()


async def test_the_project_tools_start_the_prefetch(
    tmp_path: Path, factory: FakeDriverFactory
) -> None:
    settings = make_settings(tmp_path, projects_config=_registered(tmp_path))
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    try:
        services = Services.build(settings, manager)
        build_server(manager, settings, services=services)
        assert "a.txt" in await _built(services.projects, "a")
        await services.close()
    finally:
        await manager.shutdown()


async def test_the_tuis_mcp_server_is_built_off_the_loop_and_starts_the_prefetch(
    tmp_path: Path, factory: FakeDriverFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cli._LaterHttp`` registers the tools in a thread (0.3 s of schema making that would
    stop the keys), where there is no loop to build the trees on: it starts them after."""
    settings = make_settings(tmp_path, projects_config=_registered(tmp_path))
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    built_in: list[threading.Thread] = []

    def build(*args: Any, **kwargs: Any) -> CctuiMCPServer:
        built_in.append(threading.current_thread())
        return build_server(*args, **kwargs)

    monkeypatch.setattr("cctui.mcp_server.server.build_server", build)
    services = Services.build(settings, manager)
    http = _LaterHttp(settings, services)
    try:
        await http.start()
        assert built_in and built_in[0] is not threading.current_thread()
        assert "a.txt" in await _built(services.projects, "a")
    finally:
        await http.stop()
        await services.close()
        await manager.shutdown()


def test_start_without_an_event_loop_does_nothing(tmp_path: Path) -> None:
    service = ProjectService(_registered(tmp_path), watch=False)
    service.start()
    assert service.trees.peek("a") is None
