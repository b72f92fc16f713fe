"""cctui: a terminal control room for Claude Code sessions, with an MCP server inside.

Rooms (see README, "Architecture"): ``claude`` adapts claude-agent-sdk, ``history`` reads
Claude Code's files, ``core`` owns sessions, ``mcp_server`` and ``tui`` are the two front
ends, ``cli`` wires them together.
"""

__version__ = "0.1.0"
