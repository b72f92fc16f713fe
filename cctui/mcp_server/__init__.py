"""The MCP server: thin tools over the core, elicitation with a human fallback, transports, auth.

One subpackage per concept: ``tools`` (one module per tool family, each with a
``register()`` that ``server.build_server`` calls), ``schemas`` (what the tools return;
``schemas.common`` holds the shared base, annotations, ids and timings), ``asking``
(elicitation and input-required rounds, both protocol eras), ``runs`` (the long calls,
followed to their end) and ``transport`` (HTTP with bearer auth, the stdio bridge, the
entry points). ``compat`` maps the seeds' argument names onto cctui's.

Imports ``core`` (public API), ``history``, ``config``, ``services`` and mcp; never
textual or ``tui``.
"""
