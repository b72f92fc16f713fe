"""Fixtures for engine unit tests: Settings in a temp dir and a manager over FakeDriver."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from cctui.core.manager import SessionManager
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings

MakeManager = Callable[..., SessionManager]


@pytest.fixture
async def make_manager(tmp_path: Path, factory: FakeDriverFactory) -> AsyncIterator[MakeManager]:
    made: list[SessionManager] = []

    def make(driver_factory: Any = None, **overrides: Any) -> SessionManager:
        manager = SessionManager(
            make_settings(tmp_path, **overrides), driver_factory=driver_factory or factory
        )
        made.append(manager)
        return manager

    yield make
    for manager in made:
        await manager.shutdown()


@pytest.fixture
async def manager(make_manager: MakeManager) -> SessionManager:
    m = make_manager()
    await m.start()
    return m
