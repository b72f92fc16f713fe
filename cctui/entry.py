"""The ``cctui`` command: ``status`` answers before anything heavy is imported.

tmux runs ``cctui status --tmux`` every few seconds; importing the CLI (pydantic settings,
the history index's modules) would cost it half a second each time. Everything else goes to
``cctui.cli``.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence

PYDANTIC_PLUGIN_LOADER = "pydantic.plugin._loader"


def no_pydantic_plugins() -> None:
    """Pydantic asks ``importlib.metadata`` for plugins (entry points) when it builds its
    first model: importing it (with the ``email`` package it loads) and reading every installed
    distribution's entry points cost every command ~0.1 s of CPU at start-up, a third of what
    ``cctui.config`` costs. cctui uses no pydantic plugin: a stand-in for pydantic's loader
    that finds none (``tests/test_entry.py`` holds it to the loader's own signature)."""
    if PYDANTIC_PLUGIN_LOADER in sys.modules:
        return
    loader = types.ModuleType(PYDANTIC_PLUGIN_LOADER)
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules[PYDANTIC_PLUGIN_LOADER] = loader


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cctui`` command; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["status"]:
        from cctui import status

        return status.main(words[1:])
    no_pydantic_plugins()
    from cctui.cli import main as cli_main

    return cli_main(words)
