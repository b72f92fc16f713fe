"""A host's past session, picked in the list, shows its conversation read there (its
transcript through the host's link), as a local past session shows its own; peek (space)
on it shows its last reply. The host is the snapshot demo's scripted devbox."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cctui.core import SessionManager
from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.remote import key_of
from cctui.tui.screens.peek import PeekScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.widgets.transcript import Transcript
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings
from tests.snapshot_apps.hosts import DEPS, demo_hosts
from tests.tui.conftest import until


async def test_a_hosts_past_session_shows_its_transcript_and_peeks(tmp_path: Path) -> None:
    hosts, _links = demo_hosts(datetime.now(UTC))
    settings = make_settings(tmp_path, default_cwd=tmp_path)
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    app = CctuiApp(settings, Services.build(settings, manager), hosts=hosts)
    key = key_of("devbox", DEPS)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.main.sessions.row(key) is not None, 10)
        app.main.open_session(key)
        transcript = app.main.pane.query_one(Transcript)
        await until(pilot, lambda: "12" in (transcript.text_of("deps-2") or ""), 10)

        await until(pilot, lambda: isinstance(app.screen, PendingInputScreen), 10)
        await pilot.press("escape")  # devbox's permission popped: later
        await until(pilot, app.main_screen_on_top, 5)
        app.main.sessions.select(key)
        app.main.sessions.focus()
        await pilot.pause()
        await pilot.press("space")
        await until(pilot, lambda: isinstance(app.screen, PeekScreen), 5)
        peek = app.screen
        assert isinstance(peek, PeekScreen)
        await until(pilot, lambda: "12" in (peek.reply_text or ""), 10)
