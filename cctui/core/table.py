"""The sessions cctui knows, by id, kept in step with their records (``sessions.json``).

Loaded from the records once, joined on demand by sessions Claude Code has a transcript
of but cctui never ran (so they can be resumed or forked), and saved back in batches by a
worker thread. Only records that changed since this process last read or wrote them are
written: another cctui on the same state directory may have moved a session on since (see
``records``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator

from cctui.claude.transcripts import find_session
from cctui.core.launch import default_config
from cctui.core.records import SessionRecords
from cctui.core.session.host import SessionHost
from cctui.core.session.models import SessionRecord
from cctui.core.session.session import Session
from cctui.core.session.states import SessionStatus
from cctui.errors import SessionNotFound

log = logging.getLogger(__name__)
S = SessionStatus

# SessionRecords writes are batched: a turn's status changes cost one write, later.
_SAVE_DELAY_S = 0.2


class SessionTable:
    """Every session of this cctui process, live or registered."""

    def __init__(self, host: SessionHost, records: SessionRecords) -> None:
        self.host = host
        self.records = records
        self._sessions: dict[str, Session] = {}
        self._loaded = False
        self._dirty: set[str] = set()
        self._touched: set[str] = set()
        """Sessions this process created, ran or changed: the only ones it writes (another
        cctui on the same state directory owns the rest)."""
        self._written: dict[str, tuple[int, SessionRecord]] = {}
        """Each session's record as this process last read or wrote it, and the batch it was
        written from (an unchanged one is not written again: its copy may be stale). Updated
        under ``_write_lock`` by whichever thread wrote; the loop only reads single entries."""
        self._flush_handle: asyncio.TimerHandle | None = None
        self._writing: asyncio.Task[None] | None = None
        """The batch a worker thread is writing, if any (the next waits for it)."""
        self._write_lock = threading.Lock()
        """Held through each registry save and its note in ``_written``, the worker's or a
        synchronous ``flush``'s: the notes follow the order of the writes."""
        self._batches = 0
        """How many batches of records have been taken (each is numbered when taken; a
        record read at load counts as batch 0 in ``_written``)."""

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._sessions.values()))

    def __contains__(self, session_id: str) -> bool:
        return session_id in self._sessions

    def load(self) -> None:
        """Read the registry, the first time only."""
        if self._loaded:
            return
        self._loaded = True
        for sid, rec in self.records.load().items():
            if sid in self._sessions:
                continue
            # No process survives a restart: a live status on disk means cctui died.
            if rec.status == S.IDLE:
                rec = rec.model_copy(update={"status": S.COMPLETED})
            elif rec.status in (S.STARTING, S.RUNNING, S.WAITING_FOR_INPUT):
                rec = rec.model_copy(update={"status": S.INTERRUPTED})
            session = Session(self.host, sid, rec.config, record=rec)
            self._sessions[sid] = session
            self._written[sid] = (0, session.record())

    def add(self, session: Session) -> None:
        """Track a new session."""
        self._sessions[session.id] = session
        self._touched.add(session.id)

    def drop(self, session_id: str) -> None:
        """Forget a session that never started (it is not saved)."""
        self._sessions.pop(session_id, None)
        self._dirty.discard(session_id)
        self._touched.discard(session_id)
        self._written.pop(session_id, None)

    def get(self, session_id: str) -> Session | None:
        """The session, if this process knows it (the registry is not read)."""
        return self._sessions.get(session_id)

    def find(self, session_id: str) -> Session:
        """A session cctui knows (live or registered). Raises SessionNotFound."""
        self.load()
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionNotFound(
                f"No session has id {session_id!r}.",
                suggestion="claude_list_sessions lists the known ids.",
            )
        return session

    def find_or_adopt(self, session_id: str) -> Session:
        """Like ``find``, but a session with only a transcript on disk joins as completed.

        Raises:
            SessionNotFound: neither cctui nor Claude Code's transcripts know the id.
        """
        self.load()
        session = self._sessions.get(session_id)
        if session is not None:
            return session
        settings = self.host.settings
        found = find_session(session_id, settings.claude_config_dir)
        if found is None:
            raise SessionNotFound(
                f"No session has id {session_id!r} (not started by cctui, no transcript "
                f"under {settings.claude_config_dir}).",
                suggestion="claude_list_sessions lists the known ids.",
            )
        config = default_config(settings, found.cwd, title=found.title)
        # Looking at a past session (the TUI's preview reads its events) must not make it
        # look new or active now: it keeps the times its transcript says it began and was
        # last written.
        record = SessionRecord.fresh(
            session_id,
            config,
            title=found.title,
            status=S.COMPLETED,
            last_activity=found.last_activity,
            created_at=found.created_at,
        )
        session = Session(self.host, session_id, config, record=record)
        self._sessions[session_id] = session
        return session

    def save(self, session_id: str) -> None:
        """Persist one session's record soon (writes are coalesced off the turn's path)."""
        self._dirty.add(session_id)
        self._touched.add(session_id)
        self._schedule()

    def save_all(self) -> None:
        """Write every record this process touched and changed, now."""
        self._dirty.update(self._touched)
        self.flush()

    async def close(self) -> None:
        """Let a write in flight finish, then write every touched and changed record."""
        if self._writing is not None:
            await asyncio.wait({self._writing})
        self.save_all()

    def flush(self) -> None:
        """Write every changed record now, on this thread (after a write in flight)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        batch, records = self._changed()
        if records:
            self._write(batch, records)

    def _schedule(self) -> None:
        if self._flush_handle is None and self._writing is None:
            loop = asyncio.get_running_loop()
            self._flush_handle = loop.call_later(_SAVE_DELAY_S, self._flush_in_thread)

    def _flush_in_thread(self) -> None:
        """The batched save: the records are taken here, on the loop, and the file is written
        in a worker thread. A save fsyncs the file, milliseconds on a real disk, and a loop
        that waited on it held up every session's output and the TUI's keys meanwhile."""
        self._flush_handle = None
        batch, records = self._changed()
        if records:
            self._writing = asyncio.get_running_loop().create_task(
                self._write_in_thread(batch, records)
            )

    async def _write_in_thread(self, batch: int, records: list[SessionRecord]) -> None:
        try:
            await asyncio.to_thread(self._write, batch, records)
        finally:
            self._writing = None
            if self._dirty:
                self._schedule()

    def _changed(self) -> tuple[int, list[SessionRecord]]:
        """A new batch: its number, and the dirty sessions' records that differ from what
        this process last wrote."""
        dirty, self._dirty = self._dirty, set()
        self._batches += 1
        records = [self._sessions[sid].record() for sid in dirty if sid in self._sessions]
        return self._batches, [r for r in records if r != self._last(r.session_id)[1]]

    def _last(self, session_id: str) -> tuple[int, SessionRecord | None]:
        """The batch a session's record was last read or written from, and that record."""
        return self._written.get(session_id, (0, None))

    def _write(self, batch: int, records: list[SessionRecord]) -> None:
        """Save ``records`` and note them as written (from any thread, one save at a time),
        but for those a later batch has written already: a worker's batch can reach the lock
        after a ``flush`` taken later (its thread started late, under load), and wrote its
        older records over the newer ones (a session's diff base lost on disk)."""
        with self._write_lock:
            records = [r for r in records if self._last(r.session_id)[0] < batch]
            if not records:
                return
            try:
                self.records.save(records)
            except OSError:
                log.exception("cannot save the session registry")
                return  # still differs from the file: the next save_all retries it
            # Also a record the registry kept another process's newer copy of: ours is
            # stale, and writing it again later (unchanged) would bring it back.
            self._written.update((r.session_id, (batch, r)) for r in records)
