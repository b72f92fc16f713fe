"""The MCP server: thin tools over the core, elicitation with a human fallback, transports, auth.

Imports ``core`` (public API), ``history``, ``config`` and mcp; never textual or ``tui``.
"""
