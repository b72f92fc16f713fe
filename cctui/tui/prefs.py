"""What the TUI remembers between runs for its user: the theme picked in the palette.

Kept in ``<state_dir>/tui.json``, written atomically when it changes. A file that cannot be
read, or a theme this Textual does not have, is ignored (the default theme, and a line in the
log), never an error that stops the window.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from cctui.fs.atomic import write_atomic

log = logging.getLogger(__name__)

PREFS_FILE = "tui.json"


class Prefs:
    """The TUI's remembered choices, in ``<state_dir>/tui.json``."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / PREFS_FILE

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s not read (%s): the defaults hold", self.path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def theme(self) -> str | None:
        """The theme picked last (None: never picked, or unreadable)."""
        theme = self._read().get("theme")
        return theme if isinstance(theme, str) else None

    def set_theme(self, theme: str) -> None:
        """Remember ``theme``; other keys in the file are kept.

        Raises:
            OSError: the file cannot be written.
        """
        data = self._read()
        if data.get("theme") == theme:
            return
        data["theme"] = theme
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(data, indent=1) + "\n")
