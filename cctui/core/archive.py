"""Archived sessions: hidden from the list, nothing deleted (``archived.json`` in the state dir).

Archiving is a view choice, not a change to the session: its transcript, its registry record
and its worktree stay as they are, and ``status:archived`` in a filter lists it again. The
file holds only ids, written atomically; one that cannot be read is an empty archive (the
list shows everything), never an error that hides the list.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from cctui.fs.atomic import write_atomic

log = logging.getLogger(__name__)

ARCHIVE_FILE = "archived.json"


class Archive:
    """The set of archived session ids, kept in ``<state_dir>/archived.json``."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / ARCHIVE_FILE
        self._ids: frozenset[str] | None = None

    @property
    def ids(self) -> frozenset[str]:
        """Every archived session id (read from the file once)."""
        if self._ids is None:
            self._ids = read_archived(self.path)
        return self._ids

    def __contains__(self, session_id: object) -> bool:
        return session_id in self.ids

    def set(self, session_id: str, archived: bool) -> None:
        """Archive (or bring back) one session; the file is replaced atomically.

        Raises:
            OSError: the file cannot be written (the archive in memory is unchanged).
        """
        ids = set(self.ids)
        if archived:
            ids.add(session_id)
        else:
            ids.discard(session_id)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps({"archived": sorted(ids)}, indent=1) + "\n")
        self._ids = frozenset(ids)


def read_archived(path: Path) -> frozenset[str]:
    """The ids in an archive file; a missing or unreadable one is empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, ValueError) as exc:
        log.warning("archive %s not read (%s): nothing is hidden", path, exc)
        return frozenset()
    ids = data.get("archived") if isinstance(data, dict) else None
    if not isinstance(ids, list):
        log.warning("archive %s has no 'archived' list: nothing is hidden", path)
        return frozenset()
    return frozenset(i for i in ids if isinstance(i, str))
