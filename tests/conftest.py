"""Shared pytest configuration. Fixtures for the real CLI live in tests/fakes/plugin.py."""

from pathlib import Path

import pytest

from tests.fakes.fake_driver import FakeDriverFactory, fake_driver_factory

pytest_plugins = ["tests.fakes.plugin"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def factory() -> FakeDriverFactory:
    """A FakeDriver factory with the default script."""
    return fake_driver_factory()
