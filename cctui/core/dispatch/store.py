"""``dispatch.json``: the queue, the schedules and the usage-limit hold, on disk.

Written whole and atomically after every change (it is small: a queue and a few
schedules), versioned, and read once at start. A damaged file is moved aside and cctui
starts with an empty dispatcher, saying so (``problems``), as the session registry does.
The file belongs to the cctui that owns the state directory's sessions (``cctui.owner``'s
lock, held by the composition root): only that one dispatches and writes it.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from pydantic import ValidationError

from cctui.core.dispatch.models import DispatchState
from cctui.fs.atomic import write_atomic

log = logging.getLogger(__name__)

DISPATCH_FILE = "dispatch.json"


class DispatchStore:
    """Load and save the dispatcher's state."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / DISPATCH_FILE
        self.problems: list[str] = []

    def load(self) -> DispatchState:
        """The state on disk; an empty one when there is none or it is damaged."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return DispatchState()
        except OSError as exc:
            self._set_aside(exc.strerror or str(exc))
            return DispatchState()
        try:
            return DispatchState.model_validate_json(raw)
        except ValidationError as exc:
            self._set_aside(f"{exc.error_count()} invalid field(s)")
            return DispatchState()

    def save(self, state: DispatchState) -> None:
        """Replace the file with ``state`` (atomic). A failing write is a problem, not fatal:
        the state in memory goes on, and the next change tries again."""
        try:
            write_atomic(self.path, state.model_dump_json(indent=1), sync_dir=True)
        except OSError as exc:
            message = f"The dispatch file {self.path} could not be written: {exc.strerror}"
            log.error("%s", message)
            if message not in self.problems:
                self.problems.append(message)

    def _set_aside(self, why: str) -> None:
        aside = self.path.with_name(
            f"{self.path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        )
        try:
            os.replace(self.path, aside)
            message = (
                f"The dispatch file {self.path} was unreadable ({why}); kept as {aside}, "
                "starting with an empty queue and no schedules."
            )
        except OSError as exc:
            message = f"The dispatch file {self.path} is unreadable ({why}) and stays ({exc})."
        log.error("%s", message)
        self.problems.append(message)
