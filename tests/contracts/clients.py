"""How a seed's client reaches cctui: over Streamable HTTP (either protocol era) or over
stdio (``python -m cctui serve --stdio``, the way seed 002's client config launches it)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from cctui.mcp_server.transport.http import HttpService
from tests.mcp.conftest import authed

ERAS = {"2025-11-25": "legacy", "2026-07-28": "auto"}
"""Protocol era -> the SDK client's mode."""


def over_http(service: HttpService, name: str, era: str = "2025-11-25", **kwargs: Any) -> Client:
    """A real MCP client on cctui's Streamable HTTP endpoint, speaking ``era``."""
    return Client(
        authed(service),
        client_info=Implementation(name=name, version="1"),
        mode=ERAS[era],
        **kwargs,
    )


def over_stdio(env: Mapping[str, str], name: str, *extra: str, **kwargs: Any) -> Client:
    """A real MCP client that launches ``cctui serve --stdio`` with ``env``."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cctui", "serve", "--stdio", *extra], env=dict(env)
    )
    return Client(
        params, client_info=Implementation(name=name, version="1"), mode="legacy", **kwargs
    )
