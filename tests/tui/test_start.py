"""cctui's own start: the list is drawn first; the garbage collector, held while starting,
and the hosted services (the MCP server) come after the first frame."""

from __future__ import annotations

import gc
from pathlib import Path

from cctui.config import load_settings
from cctui.core import SessionManager
from cctui.services import Services
from cctui.tui import gc_pause
from cctui.tui.app import CctuiApp
from tests.tui.conftest import until


class _Service:
    """Notes how far the app had got when it was started, and that it was stopped."""

    def __init__(self) -> None:
        self.app: CctuiApp | None = None
        self.list_height_at_start: int | None = None
        self.stopped = False

    async def start(self) -> None:
        assert self.app is not None
        self.list_height_at_start = self.app.main.pane.size.height

    async def stop(self) -> None:
        self.stopped = True

    def status_line(self) -> str:
        return "the test's service"


async def test_gc_and_services_start_after_the_first_frame(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    settings = load_settings(
        env={"HOME": str(tmp_path / "home")},
        config_path=tmp_path / "none.toml",
        overrides={"default_cwd": tmp_path / "proj"},
    )
    manager = SessionManager(settings)
    await manager.start()
    service = _Service()
    app = CctuiApp(settings, Services.build(settings, manager), hosted=[service])
    service.app = app
    gc_pause.hold()  # as cli._tui does before its imports
    try:
        async with app.run_test() as pilot:
            assert not gc.isenabled() or service.list_height_at_start is not None
            await until(pilot, lambda: service.list_height_at_start is not None, 5.0)
            # Started once the screen was laid out and drawn, not while it mounted.
            assert service.list_height_at_start
            assert gc.isenabled()
            assert "the test's service" in app.service_lines()
        assert service.stopped
    finally:
        gc.enable()
        await manager.shutdown()
