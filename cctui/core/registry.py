"""The registry of sessions cctui started: what listing and resuming them needs.

A JSON file in the state directory, rewritten atomically (temp file, fsync, ``os.replace``)
under an ``fcntl`` lock, and merged on save: two cctui processes sharing the directory
(the TUI and ``serve``) keep each other's records; each writes only the records it changed.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cctui.core.models import SessionRecord
from cctui.files import locked, write_atomic

log = logging.getLogger(__name__)

REGISTRY_FILE = "sessions.json"
_VERSION = 1


class Registry:
    """Load and save ``SessionRecord``s.

    A damaged file never stops cctui: an unreadable one (bad JSON, invalid UTF-8, a
    directory, no permission) is moved aside under a unique name and cctui starts with
    none; an invalid record is skipped but kept in the file. ``problems`` says what
    happened, for the log and the TUI.
    """

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / REGISTRY_FILE
        self._lock_path = state_dir / (REGISTRY_FILE + ".lock")
        self.problems: list[str] = []
        """What went wrong reading or writing the file, oldest first (never raised)."""
        self._invalid: dict[str, Any] = {}
        """Records that did not validate, by id (written back unchanged: nothing is lost)."""

    def _problem(self, message: str) -> None:
        log.error("%s", message)
        self.problems.append(message)

    def _set_aside(self, why: str) -> None:
        aside = self.path.with_name(
            f"{self.path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-"
            f"{uuid.uuid4().hex[:6]}"
        )
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            self._problem(
                f"The session registry {self.path} is unreadable ({why}) and could not be "
                f"moved aside ({exc}); starting without it."
            )
            return
        self._problem(
            f"The session registry {self.path} was unreadable ({why}); kept as {aside}, "
            "starting without it."
        )

    def _read(self) -> dict[str, SessionRecord]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:  # a directory, no permission, an I/O error
            self._set_aside(exc.strerror or str(exc))
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("sessions", []), list):
                raise ValueError("not a registry object")
        except (UnicodeDecodeError, ValueError) as exc:
            self._set_aside(str(exc)[:200])
            return {}
        records: dict[str, SessionRecord] = {}
        self._invalid = {}
        for item in data.get("sessions", []):
            try:
                rec = SessionRecord.model_validate(item)
            except ValidationError as exc:
                sid = item.get("session_id") if isinstance(item, dict) else None
                key = sid if isinstance(sid, str) else json.dumps(item, sort_keys=True)[:200]
                if key not in self._invalid:
                    self._problem(
                        f"Skipping an invalid record {key!r} in {self.path} "
                        f"({exc.error_count()} errors); it stays in the file."
                    )
                self._invalid[key] = item
                continue
            records[rec.session_id] = rec
        return records

    def load(self) -> dict[str, SessionRecord]:
        """Every valid record on disk, by session id (empty, with a problem, on failure)."""
        try:
            with locked(self._lock_path):
                return self._read()
        except OSError as exc:
            self._problem(f"Cannot read the session registry {self.path}: {exc}")
            return {}

    def save(self, records: Iterable[SessionRecord], removed: Iterable[str] = ()) -> None:
        """Merge ``records`` into the file (ours win), drop ``removed``, write atomically.

        Raises:
            OSError: the file cannot be written (the caller logs it and carries on).
        """
        removed = set(removed)
        with locked(self._lock_path):
            merged = self._read()
            for rec in records:
                merged[rec.session_id] = rec
            for sid in removed:
                merged.pop(sid, None)
            body = {
                "version": _VERSION,
                "sessions": [r.model_dump(mode="json") for r in merged.values()]
                + [v for k, v in self._invalid.items() if k not in removed and k not in merged],
            }
            write_atomic(self.path, json.dumps(body, indent=1))
