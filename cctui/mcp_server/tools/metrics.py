"""The metrics resource, ``cctui://metrics``: this run's counters (``core.metrics``) as JSON.

Read by the TUI's metrics page too (``m``), from the same ``SessionManager.metrics_snapshot``.
"""

from __future__ import annotations

from mcp.server import MCPServer

from cctui.core import SessionManager

METRICS_URI = "cctui://metrics"


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add ``cctui://metrics`` to ``server``."""

    @server.resource(
        METRICS_URI,
        name="metrics",
        title="cctui metrics",
        description="This run's metrics: per session (messages, replies, characters, cost, "
        "turn durations) and server-wide (calls and errors per tool, latency percentiles, "
        "sessions started)",
        mime_type="application/json",
    )
    def metrics() -> str:
        return manager.metrics_snapshot().model_dump_json(indent=2)
