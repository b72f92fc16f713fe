"""cctui: a terminal control room for Claude Code sessions, with an MCP server inside.

Rooms (ARCHITECTURE.md, "Rooms"): ``claude`` adapts claude-agent-sdk, ``history`` reads
Claude Code's files, ``core`` owns sessions, ``projects`` and ``review`` build on it,
``remote`` reaches other cctuis over MCP, ``mcp_server`` and ``tui`` are the two front ends,
``cli`` wires them together; ``fs`` (files, paths, git) is the leaf they all stand on.
"""


def __getattr__(name: str) -> str:
    # Looked up on first use: importlib.metadata costs a quarter of a second, which
    # ``cctui status`` (run by tmux every few seconds) never needs.
    if name != "__version__":
        raise AttributeError(f"module 'cctui' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        # pyproject.toml holds the one version literal; the installed metadata carries it.
        found = version("cctui")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
