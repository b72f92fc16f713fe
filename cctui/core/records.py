"""The records of the sessions cctui started (``sessions.json``): what listing and resuming
them needs.

A JSON file in the state directory, rewritten atomically (temp file, fsync, ``os.replace``)
under an ``fcntl`` lock, and merged on save: two cctui processes sharing the directory
(the TUI and ``serve``) keep each other's records; each writes only the records it changed.

Each record in the file carries a ``revision`` (the registry's bookkeeping, not part of
``SessionRecord``) that every write of it raises. A writer whose record's revision moved on
since it read or wrote it knows another process wrote it meanwhile: the two copies conflict,
and the one with the later ``last_activity`` is kept (a tie keeps the one already written).
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

from cctui.core.session.models import SessionRecord
from cctui.fs.atomic import locked, write_atomic

log = logging.getLogger(__name__)

REGISTRY_FILE = "sessions.json"
_VERSION = 1


class SessionRecords:
    """Load and save ``SessionRecord``s.

    A damaged file never stops cctui: an unreadable one (bad JSON, invalid UTF-8, a
    directory, no permission) is moved aside under a unique name and cctui starts with
    none; an invalid record is skipped but kept in the file. ``problems`` says what
    happened, for the log and the TUI.
    """

    def __init__(self, state_dir: Path, *, backup: bool = False) -> None:
        self.path = state_dir / REGISTRY_FILE
        self.backup = backup
        """Copy the file to ``sessions.json.bak`` before each rewrite (``BACKUP_ENABLED``)."""
        self._lock_path = state_dir / (REGISTRY_FILE + ".lock")
        self.problems: list[str] = []
        """What went wrong reading or writing the file, oldest first (never raised)."""
        self._invalid: dict[str, Any] = {}
        """Records that did not validate, by id (written back unchanged: nothing is lost)."""
        self._seen: dict[str, int] = {}
        """Each record's revision when this instance last loaded or wrote it."""
        self._cache: tuple[tuple[int, int, int], dict[str, SessionRecord], dict[str, int]] | None
        self._cache = None
        """The file as last read or written: its (inode, size, mtime), records, revisions.
        A save reads the file again only when another process replaced it since: parsing
        and validating hundreds of records on every save would stall the event loop."""
        self._dumped: dict[str, tuple[SessionRecord, dict[str, Any]]] = {}
        """Each record as JSON data, made once per version of it."""

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

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _read(self) -> tuple[dict[str, SessionRecord], dict[str, int]]:
        """The valid records on disk and their revisions (missing means 0), by id."""
        stamp = self._stamp()
        if stamp is not None and self._cache is not None and self._cache[0] == stamp:
            return dict(self._cache[1]), dict(self._cache[2])
        records, revisions = self._parse()
        self._cache = None
        if stamp is not None and self._stamp() == stamp:  # not replaced while we read it
            self._cache = (stamp, records, revisions)
            return dict(records), dict(revisions)
        return records, revisions

    def _parse(self) -> tuple[dict[str, SessionRecord], dict[str, int]]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}, {}
        except OSError as exc:  # a directory, no permission, an I/O error
            self._set_aside(exc.strerror or str(exc))
            return {}, {}
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("sessions", []), list):
                raise ValueError("not a registry object")
        except (UnicodeDecodeError, ValueError) as exc:
            self._set_aside(str(exc)[:200])
            return {}, {}
        records: dict[str, SessionRecord] = {}
        revisions: dict[str, int] = {}
        invalid: dict[str, Any] = {}
        for item in data.get("sessions", []):
            try:
                rec = SessionRecord.model_validate(item)
            except ValidationError as exc:
                sid = item.get("session_id") if isinstance(item, dict) else None
                key = sid if isinstance(sid, str) else json.dumps(item, sort_keys=True)[:200]
                # Every save reads the file again: report a record once, not on each read.
                if key not in self._invalid and key not in invalid:
                    self._problem(
                        f"Skipping an invalid record {key!r} in {self.path} "
                        f"({exc.error_count()} errors); it stays in the file."
                    )
                invalid[key] = item
                continue
            records[rec.session_id] = rec
            revision = item.get("revision")
            if isinstance(revision, int) and not isinstance(revision, bool):
                revisions[rec.session_id] = revision
        self._invalid = invalid
        return records, revisions

    def _dump(self, record: SessionRecord) -> dict[str, Any]:
        done = self._dumped.get(record.session_id)
        if done is None or done[0] is not record:
            done = self._dumped[record.session_id] = (record, record.model_dump(mode="json"))
        return done[1]

    def load(self) -> dict[str, SessionRecord]:
        """Every valid record on disk, by session id (empty, with a problem, on failure)."""
        try:
            with locked(self._lock_path):
                records, revisions = self._read()
        except OSError as exc:
            self._problem(f"Cannot read the session registry {self.path}: {exc}")
            return {}
        self._seen.update({sid: revisions.get(sid, 0) for sid in records})
        return records

    def _back_up(self) -> None:
        """The file as it is now, kept as ``.bak`` (atomically): a bad write loses nothing."""
        try:
            current = self.path.read_bytes()
        except FileNotFoundError:
            return
        write_atomic(self.path.with_name(REGISTRY_FILE + ".bak"), current)

    def save(self, records: Iterable[SessionRecord], removed: Iterable[str] = ()) -> None:
        """Merge ``records`` into the file, drop ``removed``, write atomically.

        A record another process wrote since this instance last loaded or wrote it is
        replaced only if ours has the later ``last_activity`` (else ours is stale).

        Raises:
            OSError: the file cannot be written (the caller logs it and carries on).
        """
        removed = set(removed)
        with locked(self._lock_path):
            merged, revisions = self._read()
            written: dict[str, int] = {}
            for rec in records:
                sid = rec.session_id
                theirs = merged.get(sid)
                on_disk = revisions.get(sid, 0)
                if (
                    theirs is not None
                    and on_disk != self._seen.get(sid, 0)
                    and theirs.last_activity >= rec.last_activity
                ):
                    log.info("session %s: another cctui wrote a newer record; keeping it", sid)
                    continue
                merged[sid] = rec
                written[sid] = revisions[sid] = on_disk + 1
            for sid in removed:
                merged.pop(sid, None)
            sessions = [
                {**self._dump(r), "revision": revisions.get(sid, 0)} for sid, r in merged.items()
            ] + [v for k, v in self._invalid.items() if k not in removed and k not in merged]
            if self.backup:
                self._back_up()
            self._cache = None
            write_atomic(self.path, _render(sessions))
            stamp = self._stamp()
            if stamp is not None:
                self._cache = (stamp, dict(merged), dict(revisions))
        self._seen.update(written)
        for sid in removed:
            self._seen.pop(sid, None)
            self._dumped.pop(sid, None)


def _render(sessions: list[dict[str, Any]]) -> str:
    """The file's text: a record per line (readable and diffable; ``indent`` would make
    ``json`` use its pure-Python encoder, four times slower, on every save)."""
    lines = ",\n".join(json.dumps(item, ensure_ascii=False) for item in sessions)
    return f'{{"version": {_VERSION}, "sessions": [\n{lines}\n]}}\n'
