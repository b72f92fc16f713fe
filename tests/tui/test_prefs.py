"""The palette's theme survives a restart (issue 39), kept atomically in the state dir."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tui.conftest import RunApp


def _prefs(h: object) -> Path:
    from tests.tui.conftest import Harness

    assert isinstance(h, Harness)
    return h.app.settings.state_dir / "tui.json"


async def test_a_theme_picked_in_the_palette_is_there_after_a_restart(run_app: RunApp) -> None:
    async with run_app() as h:
        assert h.app.theme != "nord"
        h.app.theme = "nord"  # what the palette's "Change theme" does
        await h.pilot.pause(0.1)
        path = _prefs(h)
        assert json.loads(path.read_text())["theme"] == "nord"
        assert path.stat().st_mode & 0o777 == 0o600
    async with run_app() as h:
        assert h.app.theme == "nord"


async def test_an_unknown_or_damaged_theme_file_leaves_the_default(run_app: RunApp) -> None:
    async with run_app() as h:
        default = h.app.theme
        path = _prefs(h)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": "no-such-theme", "other": 1}))
    async with run_app() as h:
        assert h.app.theme == default
        h.app.theme = "gruvbox"
        await h.pilot.pause(0.1)
        assert json.loads(path.read_text()) == {"theme": "gruvbox", "other": 1}
    path.write_text("{not json")
    async with run_app() as h:
        assert h.app.theme == default
