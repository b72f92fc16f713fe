"""Background services the app hosts in its event loop (the MCP HTTP server is one).

The TUI starts and stops them without knowing what they are, which keeps it free of mcp.
"""

from __future__ import annotations

from typing import Protocol


class HostedService(Protocol):
    """Something with a start, a stop and a one-line status for the footer."""

    async def start(self) -> None:
        """Start serving; raise ``CctuiError`` with a clear message if it cannot."""

    async def stop(self) -> None:
        """Stop serving; idempotent."""

    def status_line(self) -> str:
        """E.g. ``MCP http://127.0.0.1:47823/mcp · 2 clients``."""
        ...
