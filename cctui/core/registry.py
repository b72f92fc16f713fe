"""The registry of sessions cctui started: what listing and resuming them needs.

A JSON file in the state directory, rewritten atomically (temp file + ``os.replace``)
under an ``fcntl`` lock, and merged on save: two cctui processes sharing the directory
(the TUI and ``serve``) keep each other's records.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ValidationError

from cctui.core.models import SessionRecord

log = logging.getLogger(__name__)

REGISTRY_FILE = "sessions.json"
_VERSION = 1


class _RegistryFile(BaseModel):
    version: int = _VERSION
    """File format version."""
    sessions: list[SessionRecord] = []
    """One record per session, in no particular order."""


class Registry:
    """Load and save ``SessionRecord``s."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / REGISTRY_FILE
        self._lock_path = state_dir / (REGISTRY_FILE + ".lock")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read(self) -> dict[str, SessionRecord]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = _RegistryFile.model_validate_json(raw)
        except ValidationError as exc:
            # A damaged registry must not stop cctui; keep the bad file for inspection.
            log.error("registry %s is unreadable, starting empty: %s", self.path, exc)
            with contextlib.suppress(OSError):
                os.replace(self.path, self.path.with_suffix(".corrupt.json"))
            return {}
        return {r.session_id: r for r in data.sessions}

    def load(self) -> dict[str, SessionRecord]:
        """Every record on disk, by session id."""
        with self._locked():
            return self._read()

    def save(self, records: Iterable[SessionRecord], removed: Iterable[str] = ()) -> None:
        """Merge ``records`` into the file (ours win), drop ``removed``, write atomically."""
        with self._locked():
            merged = self._read()
            for rec in records:
                merged[rec.session_id] = rec
            for sid in removed:
                merged.pop(sid, None)
            body = _RegistryFile(sessions=list(merged.values())).model_dump(mode="json")
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(body, fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
