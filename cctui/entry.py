"""The ``cctui`` command: ``status`` answers before anything heavy is imported.

tmux runs ``cctui status --tmux`` every few seconds; importing the CLI (pydantic settings,
the history index's modules) would cost it half a second each time. Everything else goes to
``cctui.cli``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cctui`` command; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["status"]:
        from cctui import status

        return status.main(words[1:])
    from cctui.cli import main as cli_main

    return cli_main(words)
