"""The Textual control room: session list, panes, pending inputs' modals, inbox.

Imports ``core`` (public API), ``history``, ``config`` and textual; never mcp or ``mcp_server``.
Core events reach widgets only through ``tui/bridge.py``.
"""
