"""Other machines' cctui, reached through a command's stdio (``ssh HOST cctui bridge --start``).

``client`` is an MCP client of one cctui (the only module here that imports the mcp SDK);
``hosts`` keeps a link to each configured host (reconnecting on its own) and what it last
saw there; ``models`` is what the TUI and the CLI read: plain dataclasses and cctui's own
core models, no MCP types. The wire is cctui's own tools; nothing new is served.
"""
