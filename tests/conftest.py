"""Shared pytest configuration. Fixtures for the real CLI live in tests/fakes/plugin.py."""

pytest_plugins = ["tests.fakes.plugin"]
