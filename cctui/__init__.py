"""cctui: a terminal control room for Claude Code sessions, with an MCP server inside.

Rooms (ARCHITECTURE.md, "Rooms"): ``claude`` adapts claude-agent-sdk, ``history`` reads
Claude Code's files, ``core`` owns sessions, ``projects`` and ``review`` build on it,
``remote`` reaches other cctuis over MCP, ``mcp_server`` and ``tui`` are the two front ends,
``cli`` wires them together; ``fs`` (files, paths, git) is the leaf they all stand on.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    # pyproject.toml holds the one version literal; the installed metadata carries it here.
    __version__ = version("cctui")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
