"""Fixtures for the seed contract suites: the real ``claude`` CLI against the fake API,
reached the way each seed's client reaches cctui (Streamable HTTP, stdio)."""

from __future__ import annotations

from tests.mcp.conftest import real_http, real_settings

__all__ = ["real_http", "real_settings"]
