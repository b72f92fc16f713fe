"""Composition root: arguments -> Settings -> core + MCP server + TUI. (being written)"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cctui`` command."""
    raise SystemExit("cctui: not wired yet")
