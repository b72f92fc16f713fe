"""Running ``claude`` processes, from the CLI's ``sessions/<pid>.json`` files.

The CLI removes its file at exit, but a crash leaves it behind, so every file's pid is checked
to be alive. The files are tiny and few, so each scan simply re-reads them all.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cctui.history.models import RunningProcess
from cctui.pids import pid_alive

logger = logging.getLogger(__name__)


def _ms(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_process_file(data: Any) -> RunningProcess | None:
    """A process record from a parsed ``<pid>.json``; ``None`` when it lacks pid or session id."""
    if not isinstance(data, dict):
        return None
    pid, session_id = data.get("pid"), _str(data.get("sessionId"))
    if not isinstance(pid, int) or isinstance(pid, bool) or session_id is None:
        return None
    return RunningProcess(
        pid=pid,
        session_id=session_id,
        cwd=_str(data.get("cwd")),
        status=_str(data.get("status")),
        kind=_str(data.get("kind")),
        name=_str(data.get("name")),
        started_at=_ms(data.get("startedAt")),
        updated_at=_ms(data.get("statusUpdatedAt")) or _ms(data.get("updatedAt")),
    )


@dataclass
class ProcessScanner:
    """Scans one ``sessions/`` directory for live processes."""

    sessions_dir: Path
    is_alive: Callable[[int], bool] = pid_alive
    """Injectable for tests: ``(pid) -> bool``."""
    by_session: dict[str, RunningProcess] = field(default_factory=dict)
    skipped: int = 0
    """Process files that were not valid JSON of the expected shape, in the last scan."""
    unreadable: dict[Path, str] = field(default_factory=dict)

    def refresh(self) -> set[str]:
        """Rescan; returns the session ids whose running state changed."""
        found: dict[str, RunningProcess] = {}
        self.skipped = 0
        self.unreadable = {}
        try:
            entries = [e for e in os.scandir(self.sessions_dir) if e.name.endswith(".json")]
        except FileNotFoundError:
            entries = []
        except OSError as exc:
            self.unreadable[self.sessions_dir] = exc.strerror or str(exc)
            entries = []
        for entry in entries:
            path = Path(entry.path)
            try:
                raw = path.read_bytes()
            except FileNotFoundError:
                continue  # the process exited between scandir and open
            except OSError as exc:
                self.unreadable[path] = exc.strerror or str(exc)
                continue
            try:
                proc = parse_process_file(json.loads(raw))
            except ValueError:
                proc = None
            if proc is None:
                # Possibly caught mid-write; it is re-read next scan, so only count it.
                self.skipped += 1
                continue
            if not self.is_alive(proc.pid):
                logger.debug("ignoring %s: pid %d is not running", path, proc.pid)
                continue
            old = found.get(proc.session_id)
            if old is None or (proc.updated_at or _EPOCH) > (old.updated_at or _EPOCH):
                found[proc.session_id] = proc
        changed = {
            sid
            for sid in found.keys() | self.by_session.keys()
            if found.get(sid) != self.by_session.get(sid)
        }
        self.by_session = found
        return changed


_EPOCH = datetime.fromtimestamp(0, tz=UTC)
