"""The TUI with a second cctui as a host: its rows labelled after this machine's, a
permission there popping here and answered with ``y``, ``host:NAME`` in the filter, a
session started there from the form, and search reaching it. The host is a real cctui under
another HOME, reached through its bridge; this machine's sessions run on the fake driver."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static

from cctui.config import HostConfig
from cctui.core import SessionManager
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Hosts
from cctui.remote.models import client_name
from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.remote import key_of
from cctui.tui.screens.decision import DecisionModal
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.screens.search import SearchScreen
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings
from tests.tui.conftest import until

pytestmark = pytest.mark.e2e

WRITE = "[[write path=hello.txt content=hi]]"


def make_link(config: HostConfig) -> CctuiClient:
    return CctuiClient(config.name, config.argv)


async def test_a_hosts_rows_and_its_permission_answered_here(
    bridge_command: list[str], host_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(DecisionModal, "ARM_DELAY_S", 0.0)  # keys count at once (tests/tui)
    settings = make_settings(tmp_path / "here", default_cwd=tmp_path)
    hosts = Hosts([HostConfig(name="box", command=tuple(bridge_command))], make_link,
                  me=f"mcp:{client_name()}")  # fmt: skip
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    app = CctuiApp(settings, Services.build(settings, manager), hosts=hosts)
    async with app.run_test(size=(120, 36)) as pilot:
        box = hosts.get("box")
        await until(pilot, lambda: box.online, 60)
        # A session started on the box from the form: the Machine field picks the host.
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, NewSessionScreen)
        form.query_one("#host", Select).value = "box"
        await pilot.pause()
        form.query_one("#cwd", Input).value = str(host_project)
        form.query_one("#prompt", Input).value = f"Write it. {WRITE}"
        await pilot.press("enter")

        await until(pilot, lambda: isinstance(app.screen, PendingInputScreen), 60)
        modal = app.screen
        assert isinstance(modal, PendingInputScreen)
        key = modal.pending.session_id
        found = app.remote.locate(key)
        assert found is not None and found[0] is box
        row = app.main.sessions.row(key)
        assert row is not None and row.host == "box" and row.host_rank == 1
        assert "box" in app.describe_session(key)
        await pilot.press("y")
        await until(pilot, lambda: (host_project / "hello.txt").exists(), 60)
        await until(pilot, lambda: not app.inbox.pending(), 30)
        mine = f"mcp:{client_name()}"
        await until(pilot, lambda: any(e.kind == "input_resolved" and e.decided_by == mine
                                       for e in box.events(found[1])), 30)  # fmt: skip

        # host:box keeps only its rows; an unknown host says which there are.
        await pilot.press("slash")
        await pilot.press(*"host:box")
        await pilot.pause()
        assert app.main.sessions.shown and all(
            k.startswith("box/") for k in app.main.sessions.shown
        )
        assert key_of("box", found[1]) in app.main.sessions.shown

        # Search fans out: the box's transcript is found from here.
        await pilot.press("escape")
        search = SearchScreen(app.source.index, "hello.txt", remote=app.remote)
        app.push_screen(search)
        await until(pilot, lambda: any(h.session_id == key for h in search._hits), 60)
        # Whose each count is: this machine's sessions never wrote to hello.txt.
        summary = str(search.query_one("#summary", Static).render())
        assert summary == "this machine: no match · box: 1 session(s)", summary
