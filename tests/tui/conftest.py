"""TUI fixtures: a real CctuiApp over a SessionManager driven by the fake driver.

Autouse fixtures keep runs deterministic: approval modals are armed at once (no key guard
delay), inputs do not blink, and the TUI clock is thawed after each test.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import pytest_textual_snapshot
from textual.app import App
from textual.notifications import SeverityLevel
from textual.pilot import Pilot
from textual.widgets import Input

from cctui.config import load_settings
from cctui.core import SessionConfig, SessionManager
from cctui.services import Services
from cctui.tui import clock
from cctui.tui.app import CctuiApp
from cctui.tui.screens.decision import DecisionModal
from tests.fakes.fake_driver import FakeDriverFactory, Script, fake_driver_factory
from tests.snapshot_apps import demo

SIZE = (130, 36)


@pytest.fixture(scope="session")
def own_demo_root() -> Iterator[Path]:
    """This test process's directory for the snapshot demo (``demo.own_root``)."""
    root = demo.own_root()
    yield root
    for path in (root, root.with_name(f"{root.name}-index")):
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def demo_root(own_demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The snapshot demo runs in this process's own directory; its snapshots show it as the
    stored ones do (``demo.shown``: same length, so the layout is the same too)."""
    monkeypatch.setattr(demo, "ROOT", own_demo_root)
    normalize = pytest_textual_snapshot.normalize_svg
    monkeypatch.setattr(
        pytest_textual_snapshot,
        "normalize_svg",
        lambda svg: normalize(demo.shown(svg, own_demo_root)),
    )
    return own_demo_root


@pytest.fixture(autouse=True)
def armed_modals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Modals accept keys at once (the real app ignores keys for 0.4 s after one appears)."""
    monkeypatch.setattr(DecisionModal, "ARM_DELAY_S", 0.0)


_RAISED = "_test_raised_notices"


class Raised(NamedTuple):
    """One toast an app raised, kept past its timeout."""

    message: str
    title: str
    severity: str


@pytest.fixture(autouse=True)
def kept_notices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every toast an app raises is kept for ``raised(app)``: the app's own list drops one
    once its timeout has passed (3 s for a mode change, 5 s by default), and under load a
    test's next look can come later than that (test_host_verbs_tui's shift+tab and
    test_starting's "could not start" toast each failed so in a whole run). Tests read
    toasts from here, never from the app's expiring ``_notifications``."""
    notify = CctuiApp.notify

    def keeping(
        self: CctuiApp,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        **kwargs: Any,
    ) -> None:
        self.__dict__.setdefault(_RAISED, []).append(Raised(message, title, severity))
        notify(self, message, title=title, severity=severity, **kwargs)

    monkeypatch.setattr(CctuiApp, "notify", keeping)


def raised(app: App[Any]) -> list[Raised]:
    """Every toast ``app`` raised, expired or not, oldest first (``kept_notices``)."""
    return list(app.__dict__.get(_RAISED, []))


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Freeze every Input's cursor so snapshots never catch it mid-blink."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda _self: None)


@pytest.fixture(autouse=True)
def thawed_clock() -> Iterator[None]:
    """Snapshot apps freeze the TUI clock; no test may leak that into the next."""
    yield
    clock.freeze(None)


class Harness:
    """A running app plus what a test needs to poke at."""

    def __init__(
        self, app: CctuiApp, pilot: Pilot[None], factory: FakeDriverFactory, project: Path
    ) -> None:
        self.app = app
        self.pilot = pilot
        self.factory = factory
        self.project = project

    @property
    def manager(self) -> SessionManager:
        assert isinstance(self.app.manager, SessionManager)  # the in-process core
        return self.app.manager

    async def create(self, prompt: str, **config: Any) -> str:
        """Start a session directly through the core and let the UI catch up."""
        info = await self.manager.create(prompt, SessionConfig(cwd=self.project, **config))
        await self.settle(info.session_id)
        return info.session_id

    async def settle(self, session_id: str | None = None, wait_s: float = 3.0) -> None:
        """Wait for a session to need input or finish its turn, then for the UI to draw."""
        if session_id is not None:
            await self.manager.wait(session_id, wait_s)
        await self.pilot.pause(0.15)

    async def until(self, check: Callable[[], bool], wait_s: float = 6.0) -> None:
        """Pause until ``check()`` holds (fails the test after ``wait_s``)."""
        await until(self.pilot, check, wait_s)


class Calls:
    """Counts the calls of one method of one object (the method still runs)."""

    def __init__(self, owner: object, name: str) -> None:
        self.count = 0
        method = getattr(owner, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.count += 1
            return method(*args, **kwargs)

        setattr(owner, name, counted)


async def until(pilot: Pilot[None], check: Callable[[], bool], wait_s: float = 6.0) -> None:
    """Let ``pilot``'s app run until ``check()`` holds (fails the test after ``wait_s``)."""
    for _ in range(int(wait_s / 0.02)):
        if check():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not met in time")


RunApp = Callable[..., Any]


@pytest.fixture
def run_app(tmp_path: Path) -> RunApp:
    """``async with run_app(script) as h:`` runs the app over a fresh manager."""

    @asynccontextmanager
    async def run(
        script: Script | None = None,
        *,
        notifications: bool = False,
        attached: Callable[[], str] | None = None,
        **settings: Any,
    ) -> AsyncIterator[Harness]:
        project = tmp_path / "proj"
        project.mkdir(exist_ok=True)
        env = {"HOME": str(tmp_path / "home")}
        config = load_settings(
            env=env,
            config_path=tmp_path / "none.toml",
            overrides={"default_cwd": project, **settings},
        )
        factory = fake_driver_factory(script)
        manager = SessionManager(config, driver_factory=factory)
        await manager.start()
        app = CctuiApp(config, Services.build(config, manager), attached=attached)
        # Toasts are drawn only when asked: Textual's run_test leaves them out by default.
        async with app.run_test(size=SIZE, notifications=notifications) as pilot:
            await pilot.pause(0.05)
            yield Harness(app, pilot, factory, project)
        await manager.shutdown()

    return run
