"""Keeps the index file in step with the transcripts under ``projects/``, file by file.

Per file the ``source`` row remembers its identity (device, inode), size, mtime, the byte
offset just after the last complete line read, and ``tail_sig`` (a hash of up to 4 KiB before
that offset). A file is then:

- unchanged (same identity, size and mtime): not opened;
- grown, with the same bytes before the offset: read from the offset only;
- replaced (new inode), truncated (size below the offset) or rewritten in place (signature
  differs): its rows are deleted and it is read again from 0;
- gone: its rows leave the index.

Work is committed per batch of files (a build's step, about a second in ``refresh``), so a
process killed mid-build leaves an index that opens and resumes where the last commit stopped.
A batch's FTS rows are held back and written together in row-id order (``batch``, ``flush``):
one FTS5 segment per batch; the FTS table is never rebuilt wholesale.

Subagent transcripts (``projects/<p>/<session>/subagents/*.jsonl``) are indexed under their
parent session's id with ``sidechain`` set; they have no card of their own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import stat
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from cctui.history import _sdk
from cctui.history.extract import Usage
from cctui.history.prepare import (
    ID_SLOTS,
    Prepared,
    read_segment,
    tail_sig,
)
from cctui.history.pricing import Pricer
from cctui.history.store import IndexStore
from cctui.history.transcripts import ReadStats, TranscriptMeta, read_meta

logger = logging.getLogger(__name__)

FTS_BUFFER = 8 * 1024 * 1024
"""Characters of text held for the FTS table before a batch writes them (see ``batch``)."""
REFRESH_BATCH_SECONDS = 1.0
"""How long ``refresh`` writes files in one transaction (see there)."""


_UPSERT_USAGE = (
    "INSERT INTO usage(msg_id, request_id, session_id, source_id, ts, model, input, "
    "output, cw5m, cw1h, cr, web_search, sidechain, geo, legacy_cost, cost) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT(msg_id, request_id) DO UPDATE SET session_id=excluded.session_id, "
    "source_id=excluded.source_id, ts=excluded.ts, model=excluded.model, "
    "input=excluded.input, output=excluded.output, cw5m=excluded.cw5m, "
    "cw1h=excluded.cw1h, cr=excluded.cr, web_search=excluded.web_search, "
    "sidechain=excluded.sidechain, geo=excluded.geo, legacy_cost=excluded.legacy_cost, "
    "cost=excluded.cost "
    # The first line of a reply can be an intermediate snapshot: keep the larger
    # total; a copy (fork, resume-at) with the same total stays with the earliest.
    "WHERE excluded.input + excluded.output + excluded.cw5m + excluded.cw1h "
    "+ excluded.cr > usage.input + usage.output + usage.cw5m + usage.cw1h + usage.cr "
    "OR (excluded.input + excluded.output + excluded.cw5m + excluded.cw1h + excluded.cr "
    "= usage.input + usage.output + usage.cw5m + usage.cw1h + usage.cr "
    "AND excluded.ts < usage.ts)"
)
"""A reply's usage row, upserted on (message id, request id)."""


@dataclass(frozen=True, slots=True)
class Job:
    """A transcript file the last sweep found new or changed."""

    path: Path
    session_id: str
    kind: str
    """``main`` or ``subagent``."""
    size: int
    mtime_ns: int


@dataclass(slots=True)
class Plan:
    """What a sweep found to do, newest files first."""

    jobs: deque[Job] = field(default_factory=deque)
    """Taken off the front as they are done (a list's ``pop(0)`` moved the rest each time:
    ~35 ms of CPU over a first build's 22,000 files)."""
    gone: list[Path] = field(default_factory=list)
    bytes_total: int = 0


class _Ids:
    """Message ids for new rows: ``msg_id_floor(ts)`` + the next free sequence number."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._next: dict[int, int] = {}
        self._taken: set[int] = set()
        """Ids given in this batch (their rows are not written yet)."""

    def prime(self, floors: Iterable[int]) -> None:
        """Look up where each of these seconds' free ids start, in one statement (one query
        per second cost a build ~6% of its writer's time)."""
        todo = [f for f in set(floors) if f not in self._next]
        if not todo:
            return
        for floor, top in self._conn.execute(
            "SELECT value, (SELECT max(id) FROM msg WHERE id >= value AND id < value + ?) "
            "FROM json_each(?)",
            (ID_SLOTS, json.dumps(todo)),
        ):
            self._next[floor] = floor if top is None else top + 1

    def next(self, floor: int) -> int:
        n = self._next.get(floor)
        if n is None:
            top = self._conn.execute(
                "SELECT max(id) FROM msg WHERE id >= ? AND id < ?", (floor, floor + ID_SLOTS)
            ).fetchone()[0]
            n = floor if top is None else top + 1
        # Past its second's slots (more pieces in one second than slots) an id may be taken by
        # a later second's row: only then is the file asked.
        while n in self._taken or (
            n >= floor + ID_SLOTS
            and self._conn.execute("SELECT 1 FROM msg WHERE id=?", (n,)).fetchone()
        ):
            n += 1
        self._taken.add(n)
        self._next[floor] = n + 1
        return n


class TranscriptIndexer:
    """The transcripts' side of the index: sweep, ingest, and the cards the list shows.

    Not thread-safe; ``HistoryIndex`` serialises refreshes. The store's write transactions
    serialise against other processes.
    """

    def __init__(
        self, projects_dir: Path, store: IndexStore, pricer: Pricer, *, thinking: bool = False
    ) -> None:
        self.projects_dir = projects_dir
        self.thinking = thinking
        """Index assistant thinking blocks too (``Settings.index_thinking``)."""
        self.store = store
        self.pricer = pricer
        self.stats = ReadStats()
        self.unreadable: dict[Path, str] = {}
        """Transcript paths that could not be read, with the reason."""
        # Keyed by path strings: tens of thousands of Path objects cost a first frame dearly.
        self._known: dict[str, tuple[int, int, int]] = {}
        """Per indexed path: (size, mtime_ns, inode) as last indexed (by any process)."""
        self._metas: dict[str, TranscriptMeta] = {}
        self._paths_by_session: dict[str, set[str]] = {}
        self._cards_for: set[str] | None = None
        """The sessions whose cards are in ``_metas`` after ``load(cards=False)``; ``None``:
        every session's."""
        self.loaded = False
        self._path_of = _Paths()
        self._fts: list[tuple[int, str, str]] = []
        """FTS rows (id, text, role) of the files read in this batch, not written yet."""
        self._fts_chars = 0
        self._batching = False
        self._used_ready = False

    # -- batches -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Files ingested in here give their text to the FTS table in a few large writes
        (call it inside the caller's write transaction).

        Each write of a contentless FTS5 table inside a savepoint (one per file) is flushed to a
        new segment when the savepoint is released; tiny segments then cost merges. Held back
        and written together, a build writes ~8 MB segments instead (``FTS_BUFFER``).
        """
        self._batching = True
        try:
            yield
            self.flush()
        finally:
            self._batching = False
            self._fts.clear()
            self._fts_chars = 0

    def flush(self) -> None:
        """Write the FTS rows held back (their ``msg`` rows are written already)."""
        if self._fts:
            # In row-id order: FTS5 writes its pending postings out as a new segment whenever
            # a row id is lower than the one before, and a build goes newest file first, so
            # in file order every file became a segment of its own (then merged again and
            # again): 2,000 files' build spent ~40% of its writer's time there.
            self._fts.sort()
            with self.store.write() as conn:
                conn.executemany("INSERT INTO msg_fts(rowid, body, role) VALUES (?,?,?)", self._fts)
            self._fts.clear()
            self._fts_chars = 0

    @contextlib.contextmanager
    def _segment(self) -> Iterator[sqlite3.Connection]:
        """One segment's write; its held-back FTS rows go if it is rolled back."""
        mark = len(self._fts)
        try:
            with self.store.write() as conn:
                yield conn
        except BaseException:
            del self._fts[mark:]
            raise

    # -- the list's view -------------------------------------------------------------------

    def metas(self) -> Iterable[TranscriptMeta]:
        """Every listable transcript."""
        return self._metas.values()

    def meta(self, session_id: str) -> TranscriptMeta | None:
        """The session's transcript; the newest if the id appears under two project dirs."""
        best: TranscriptMeta | None = None
        for path in self._paths_by_session.get(session_id, ()):
            meta = self._metas.get(path)
            if meta is not None and (best is None or meta.mtime > best.mtime):
                best = meta
        return best

    def load(self, *, cards: bool = True) -> set[str]:
        """Read every card from the index file (the first frame); returns their session ids.

        ``cards=False``: only what a sweep needs (which files are indexed, as what), for a
        command that reads no list (``cctui search``, ``usage``): 20,000 cards cost ~0.3 s.
        Sessions touched later are read in full as usual (``_reload_session``)."""
        conn = self.store.reader()
        self._known = {
            p: (size, mtime_ns, ino)
            for p, size, mtime_ns, ino in conn.execute(
                "SELECT path, size, mtime_ns, ino FROM source"
            )
        }
        self._metas.clear()
        self._paths_by_session.clear()
        self._cards_for = None if cards else set()
        for meta in _cards(conn, "1=1", ()) if cards else ():
            self._put(meta)
        self.loaded = True
        if self.store.get_meta("pricing") != self.pricer.fingerprint:
            self._reprice()
        return set(self._paths_by_session)

    def load_cards(self) -> None:
        """After ``load(cards=False)``: every card, as ``load`` would have read them."""
        if self._cards_for is None:
            return
        self._metas.clear()
        self._paths_by_session.clear()
        for meta in _cards(self.store.reader(), "1=1", ()):
            self._put(meta)
        self._cards_for = None

    def cards_of(self, session_ids: Iterable[str]) -> None:
        """After ``load(cards=False)``: read these sessions' cards, if not read yet."""
        if self._cards_for is None:
            return
        todo = [s for s in dict.fromkeys(session_ids) if s not in self._cards_for]
        conn = self.store.reader()
        for i in range(0, len(todo), 500):  # SQLite's default limit is 999 parameters
            chunk = todo[i : i + 500]
            for meta in _cards(conn, f"session_id IN ({','.join('?' * len(chunk))})", chunk):
                self._put(meta)
        self._cards_for.update(todo)

    def latest(self) -> dict[str, float]:
        """Session id -> ``last_entry_at`` (epoch seconds) of the card ``meta`` would pick,
        straight from the index file: what ordering a page needs, without reading the cards."""
        # In mtime order, so the newest file's card is the one a session keeps (a dict made
        # in C from the rows: a loop over 20,000 cards cost a page ~0.05 s).
        return dict(
            self.store.reader().execute("SELECT session_id, last_activity FROM card ORDER BY mtime")
        )

    def card_places(self) -> list[tuple[str, str | None, float | None, float]]:
        """Per session, (session id, cwd, created at, last activity) of the card ``meta``
        would pick (the newest file's), straight from the index file: what places a session
        in a list, without reading the cards."""
        rows = self.store.reader().execute(
            "SELECT session_id, cwd, created_at, last_activity FROM card ORDER BY mtime"
        )
        return list({r[0]: r for r in rows}.values())

    def newest_cards(self) -> list[tuple[Any, ...]]:
        """Per session, the card ``meta`` would pick (the newest file's), as the index file's
        row: (session id, path, mtime, last activity, size, cwd, title, created at, git
        branch, cost). For a list that writes its rows out and needs no ``TranscriptMeta``
        (``cctui sessions --json``: 20,000 cards as objects cost it ~0.3 s)."""
        # In mtime order, so the newest file's card is the one a session keeps (a GROUP BY
        # through the session index took twice as long as this scan).
        rows = self.store.reader().execute(
            "SELECT session_id, path, mtime, last_activity, size, cwd, title, created_at, "
            "git_branch, coalesce(cost_state_usd, cost_usd) FROM card ORDER BY mtime"
        )
        return list({r[0]: r for r in rows}.values())

    def is_new(self, path: Path) -> bool:
        """The index has never read this file (as far as this process knows)."""
        return str(path) not in self._known

    def _put(self, meta: TranscriptMeta) -> None:
        key = str(meta.path)
        self._metas[key] = meta
        self._paths_by_session.setdefault(meta.session_id, set()).add(key)

    def _drop(self, path: str) -> str | None:
        meta = self._metas.pop(path, None)
        if meta is None:
            return None
        paths = self._paths_by_session.get(meta.session_id)
        if paths is not None:
            paths.discard(path)
            if not paths:
                del self._paths_by_session[meta.session_id]
        return meta.session_id

    def _reload_session(self, session_id: str) -> None:
        for path in list(self._paths_by_session.get(session_id, ())):
            self._drop(path)
        # The writer's connection: inside a batch, the cards just written are not committed yet.
        with self.store.write() as conn:
            metas = _cards(conn, "session_id=?", (session_id,))
        for meta in metas:
            self._put(meta)
        if self._cards_for is not None:
            self._cards_for.add(session_id)

    # -- sweeping --------------------------------------------------------------------------

    def scan(self) -> Plan:
        """Stat every transcript; what changed, newest first, and what is gone.

        One pass compares each file as it is statted (22,000 files: a second pass over a dict
        of their stats cost a warm ``cctui sessions`` ~0.1 s of its ~0.3 s sweep)."""
        plan = Plan()
        jobs: list[Job] = []
        bad = {str(p) for p in self.unreadable}
        known = self._known
        found: set[str] = set()
        for path, sid, kind, entry in self._walk():
            try:
                st = entry.stat(follow_symlinks=True)
            except FileNotFoundError:
                continue
            except OSError as exc:
                self._fail(Path(path), exc.strerror or str(exc))
                continue
            found.add(path)
            if known.get(path) != (st.st_size, st.st_mtime_ns, st.st_ino) or path in bad:
                jobs.append(Job(Path(path), sid, kind, st.st_size, st.st_mtime_ns))
        jobs.sort(key=lambda j: j.mtime_ns, reverse=True)
        plan.jobs = deque(jobs)
        plan.bytes_total = sum(j.size for j in plan.jobs)
        plan.gone = [Path(p) for p in self._known if p not in found]
        for p in [p for p in self.unreadable if p.suffix == ".jsonl" and str(p) not in found]:
            del self.unreadable[p]
        return plan

    def _walk(self) -> Iterator[tuple[str, str, str, os.DirEntry[str]]]:
        """(path, session id, kind, entry) of every transcript; ``entry.stat()`` stats it
        relative to its directory's descriptor (shorter lookups than by path: 22,000 files'
        sweep is most of what a warm ``cctui sessions`` costs)."""
        try:
            projects = [e for e in os.scandir(self.projects_dir) if e.is_dir()]
        except FileNotFoundError:
            return
        except OSError as exc:
            logger.warning("cannot list %s: %s", self.projects_dir, exc)
            self.unreadable[self.projects_dir] = exc.strerror or str(exc)
            return
        self.unreadable.pop(self.projects_dir, None)
        for project in projects:
            try:
                fd = os.open(project.path, os.O_RDONLY | os.O_DIRECTORY)
            except OSError as exc:
                self.unreadable[Path(project.path)] = exc.strerror or str(exc)
                continue
            try:
                with os.scandir(fd) as it:
                    children = list(it)
                self.unreadable.pop(Path(project.path), None)
                base = project.path + os.sep
                known = self._known  # (a path indexed before was a session's: no regex)
                for child in children:
                    name = child.name
                    if name.endswith(".jsonl"):
                        path = base + name
                        if path in known or (len(name) == 42 and _sdk.validate_uuid(name[:-6])):
                            yield path, name[:-6], "main", child
                    elif len(name) == 36 and _sdk.validate_uuid(name) and child.is_dir():
                        yield from _subagents(base + name, name)
            except OSError as exc:
                self.unreadable[Path(project.path)] = exc.strerror or str(exc)
            finally:
                os.close(fd)

    def classify(self, path: Path) -> tuple[str, str] | None:
        """(session id, kind) of a transcript path under ``projects/``, else ``None``."""
        if path.suffix != ".jsonl":
            return None
        if path.parent.parent == self.projects_dir and _sdk.validate_uuid(path.stem):
            return path.stem, "main"
        if (
            path.parent.name == "subagents"
            and path.parent.parent.parent.parent == self.projects_dir
            and _sdk.validate_uuid(path.parent.parent.name)
        ):
            return path.parent.parent.name, "subagent"
        return None

    def refresh(self) -> set[str]:
        """Sweep and bring every changed file up to date. Returns the session ids touched."""
        touched = set() if self.loaded else self.load()
        plan = self.scan()
        for path in plan.gone:
            touched |= self.forget(path)
        jobs = iter(plan.jobs)
        for job in jobs:
            # Files in transactions of about a second: one per file (and an FTS segment per
            # file) made a cold ``cctui sessions`` build its index several times slower than
            # the TUI's steps; a second bounds another process's wait for the write lock.
            deadline = time.monotonic() + REFRESH_BATCH_SECONDS
            with self.store.write(), self.batch():
                touched |= self.ingest(job.path, job.session_id, job.kind)
                while time.monotonic() < deadline:
                    nxt = next(jobs, None)
                    if nxt is None:
                        break
                    touched |= self.ingest(nxt.path, nxt.session_id, nxt.kind)
        return touched

    def refresh_paths(self, paths: Iterable[Path]) -> set[str]:
        """Re-check only these paths (from a file watcher). Returns the session ids touched."""
        touched = set() if self.loaded else self.load()
        for path in paths:
            what = self.classify(path)
            if what is None:
                continue
            if path.exists() or path.is_symlink():
                touched |= self.ingest(path, *what)
            else:
                touched |= self.forget(path)
                self.unreadable.pop(path, None)
        return touched

    # -- one file --------------------------------------------------------------------------

    def forget(self, path: Path) -> set[str]:
        """Remove a vanished file's rows. Returns the listed session ids that changed."""
        self._known.pop(str(path), None)
        touched: set[str] = set()
        with self.store.write() as conn:
            row = conn.execute(
                "SELECT id, session_id FROM source WHERE path=?", (str(path),)
            ).fetchone()
            if row is not None:
                _delete_rows(conn, row[0])
                conn.execute("DELETE FROM card WHERE source_id=?", (row[0],))
                conn.execute("DELETE FROM source WHERE id=?", (row[0],))
                _update_costs(conn, row[1])
                touched.add(row[1])
        sid = self._drop(str(path))
        if sid is not None:
            touched.add(sid)
        for s in list(touched):
            self._reload_session(s)
        return {s for s in touched if s in self._paths_by_session or s == sid}

    def _fail(self, path: Path, reason: str) -> set[str]:
        if path not in self.unreadable:
            logger.warning("cannot read transcript %s: %s", path, reason)
        self.unreadable[path] = reason
        key = str(path)
        return self.forget(path) if key in self._known or key in self._metas else set()

    def ingest(
        self, path: Path, session_id: str, kind: str, ready: Prepared | None = None
    ) -> set[str]:
        """Bring one file's rows up to date. Returns the listed session ids that changed.

        ``ready``: what a worker prepared from this file (``prepare.Prefetch``); used only if
        the file is new to the index and still the one the worker read.
        """
        if ready is not None and self._batching:
            done = self._ingest_ready(path, session_id, kind, ready)
            if done is not None:
                return done
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                return self._fail(path, "not a regular file")
            with path.open("rb") as fh:
                st = os.fstat(fh.fileno())
                if ready is not None and ready.identity != (
                    st.st_dev,
                    st.st_ino,
                    st.st_size,
                    st.st_mtime_ns,
                ):
                    ready = None
                changed = self._consume_file(fh, path, session_id, kind, ready)
        except FileNotFoundError:
            return self.forget(path)
        except OSError as exc:
            return self._fail(path, exc.strerror or str(exc))
        self.unreadable.pop(path, None)
        if not self._batching or self._fts_chars > FTS_BUFFER:
            self.flush()  # between files: never inside a file's savepoint
        if not changed:
            return set()
        was = self.meta(session_id)
        meta: TranscriptMeta | None = None
        if kind != "main":
            self.stats.files_read += 1
        elif ready is not None and ready.meta_read and self._used_ready:
            meta = ready.meta
            self.stats.files_read += 1
        else:
            try:
                meta = read_meta(path, session_id, self.stats)  # counts the file read
            except OSError as exc:
                return self._fail(path, exc.strerror or str(exc))
        with self.store.write() as conn:
            source_id = conn.execute("SELECT id FROM source WHERE path=?", (str(path),)).fetchone()[
                0
            ]
            if kind == "main":
                if meta is None:
                    conn.execute("DELETE FROM card WHERE source_id=?", (source_id,))
                else:
                    _put_card(conn, source_id, meta)
            _update_costs(conn, session_id)
        self._reload_session(session_id)
        now = self.meta(session_id)
        return {session_id} if (now is not None or was is not None) and now != was else set()

    def _ingest_ready(
        self, path: Path, session_id: str, kind: str, ready: Prepared
    ) -> set[str] | None:
        """``ingest`` of a file new to the index that a worker prepared whole, written in the
        batch's transaction with no savepoint of its own (``IndexStore.write``): nothing is
        read here that could fail halfway. ``None``: not such a file; ``ingest`` does it.

        A first build's writer did ~16 statements per file (three savepoints, the card read
        back for the list): at 20,000 small files, as much as the FTS table's own inserts."""
        key = str(path)
        if ready.more or ready.sig is None or (kind == "main" and not ready.meta_read):
            return None
        try:
            st = os.stat(key)
        except OSError:
            return None  # ``ingest`` says why
        if ready.identity != (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        was = self.meta(session_id)
        counts = ready.counts
        with self.store.write(savepoint=False) as conn:
            if conn.execute("SELECT 1 FROM source WHERE path=?", (key,)).fetchone():
                return None  # another process indexed it meanwhile
            source_id = conn.execute(
                "INSERT INTO source(path, session_id, kind, dev, ino, size, mtime_ns, offset, "
                "tail_sig, lines, skipped, oversized, bad_utf8, deferred, cost_state_usd, "
                "indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, session_id, kind, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                 ready.end, ready.sig, counts.lines, counts.skipped, counts.oversized,
                 counts.bad_utf8, max(0, st.st_size - ready.end), counts.cost_state,
                 time.time()),
            ).lastrowid  # fmt: skip
            assert source_id is not None
            self._write_rows(conn, source_id, session_id, ready)
            meta = ready.meta
            if meta is not None:
                _put_card(conn, source_id, meta)
            cost, unpriced = _update_costs(conn, session_id)
        self.stats.bytes_read += ready.end
        self.stats.files_read += 1
        self._known[key] = (st.st_size, st.st_mtime_ns, st.st_ino)
        self.unreadable.pop(path, None)
        if self._fts_chars > FTS_BUFFER:
            self.flush()
        if (
            meta is None  # a subagent's: its session's cards changed cost
            or self._cards_for is not None  # not every card read (``load(cards=False)``)
            or self._paths_by_session.get(session_id, {key}) != {key}  # other cards' costs
        ):
            self._reload_session(session_id)
        else:
            # The card as ``_cards`` reads it back from the row just written.
            state = counts.cost_state
            self._put(
                TranscriptMeta(
                    session_id=session_id,
                    path=self._path_of(key),  # (joined to its directory's: less memory)
                    mtime=_dt_round(meta.mtime),
                    last_entry_at=_dt_round(meta.last_entry_at),
                    size=meta.size,
                    cwd=meta.cwd,
                    title=meta.title,
                    first_prompt=meta.first_prompt,
                    created_at=None if meta.created_at is None else _dt_round(meta.created_at),
                    git_branch=meta.git_branch,
                    total_cost_usd=state if state is not None else cost,
                    unpriced_replies=unpriced or 0,
                )
            )
        now = self.meta(session_id)
        return {session_id} if now != was else set()

    def _consume_file(
        self, fh: BinaryIO, path: Path, session_id: str, kind: str, ready: Prepared | None
    ) -> bool:
        """Read what is new in ``fh`` into the index, a segment per transaction.

        Returns False when the index already had the file as it is (nothing was read).
        """
        changed = False
        self._used_ready = False
        while True:
            with self._segment() as conn:
                st = os.fstat(fh.fileno())
                row = conn.execute(
                    "SELECT id, dev, ino, size, mtime_ns, offset, tail_sig FROM source "
                    "WHERE path=?",
                    (str(path),),
                ).fetchone()
                identity = (st.st_dev, st.st_ino)
                if row is None:
                    source_id = conn.execute(
                        "INSERT INTO source(path, session_id, kind, dev, ino) VALUES (?,?,?,?,?)",
                        (str(path), session_id, kind, *identity),
                    ).lastrowid
                    offset = 0
                else:
                    source_id, dev, ino, size, mtime_ns, offset, sig = row
                    if (dev, ino, size, mtime_ns) == (*identity, st.st_size, st.st_mtime_ns):
                        self._known[str(path)] = (st.st_size, st.st_mtime_ns, st.st_ino)
                        return changed
                    if (
                        (dev, ino) != identity
                        or st.st_size < offset
                        or (offset and tail_sig(fh, offset) != sig)
                    ):
                        _delete_rows(conn, source_id)
                        conn.execute(
                            "UPDATE source SET dev=?, ino=?, offset=0, lines=0, skipped=0, "
                            "oversized=0, bad_utf8=0, deferred=0, cost_state_usd=NULL, "
                            "session_id=?, kind=? WHERE id=?",
                            (*identity, session_id, kind, source_id),
                        )
                        offset = 0
                assert source_id is not None
                # A worker's work is the file from its first byte: only for a file new here.
                use = ready if row is None and offset == 0 else None
                got = self._consume(
                    conn, fh, source_id, session_id, kind == "subagent", offset, use
                )
                self._used_ready = self._used_ready or use is not None
                ready = None
                end, counts, more = got.end, got.counts, got.more
                changed = True
                deferred = 0 if more else max(0, os.fstat(fh.fileno()).st_size - end)
                conn.execute(
                    "UPDATE source SET size=?, mtime_ns=?, offset=?, tail_sig=?, "
                    "lines=lines+?, skipped=skipped+?, oversized=oversized+?, "
                    "bad_utf8=bad_utf8+?, deferred=?, "
                    "cost_state_usd=coalesce(?, cost_state_usd), indexed_at=? WHERE id=?",
                    (
                        st.st_size if not more else -1,
                        st.st_mtime_ns,
                        end,
                        tail_sig(fh, end),
                        counts.lines,
                        counts.skipped,
                        counts.oversized,
                        counts.bad_utf8,
                        deferred,
                        counts.cost_state,
                        time.time(),
                        source_id,
                    ),
                )
                self.stats.bytes_read += end - offset
            if not more:
                self._known[str(path)] = (st.st_size, st.st_mtime_ns, st.st_ino)
                return changed

    def _consume(
        self,
        conn: sqlite3.Connection,
        fh: BinaryIO,
        source_id: int,
        session_id: str,
        sidechain_file: bool,
        offset: int,
        ready: Prepared | None = None,
    ) -> Prepared:
        """Read up to ``SEGMENT`` bytes of complete lines (or take what a worker read) and
        write their rows."""
        got = ready or read_segment(
            fh, offset, sidechain_file=sidechain_file, thinking=self.thinking
        )
        self._write_rows(conn, source_id, session_id, got)
        return got

    def _write_rows(
        self, conn: sqlite3.Connection, source_id: int, session_id: str, got: Prepared
    ) -> None:
        """A segment's ``msg`` and ``usage`` rows; its FTS rows are held for ``flush``."""
        ids = _Ids(conn)
        floors = [p[0] for p in got.pieces]
        ids.prime(floors)
        mids = [ids.next(floor) for floor in floors]
        conn.executemany(
            "INSERT INTO msg VALUES (?,?,?,?,?,?,?,?,?)",
            [(mid, source_id, *p[1:]) for mid, p in zip(mids, got.pieces, strict=True)],
        )
        self._fts += [(mid, *t) for mid, t in zip(mids, got.texts, strict=True)]
        self._fts_chars += got.chars
        self._put_usage(conn, source_id, session_id, got.replies)

    def _put_usage(
        self, conn: sqlite3.Connection, source_id: int, session_id: str, replies: list[Usage]
    ) -> None:
        """Upsert a segment's replies: the main thread's first, in two statements for all of
        them, then the sidechain's one by one. A sidechain reply that replays a main-thread
        one under another request id (``/btw``) is counted once, as the parent's; the order
        gives what reply-by-reply upserts in line order give."""
        main = [u for u in replies if not u.sidechain]
        conn.executemany(
            "DELETE FROM usage WHERE msg_id=? AND request_id!=? AND sidechain=1",
            [(u.msg_id, u.request_id) for u in main],
        )
        conn.executemany(_UPSERT_USAGE, [self._usage_row(source_id, session_id, u) for u in main])
        side = [
            self._usage_row(source_id, session_id, u)
            for u in replies
            if u.sidechain
            and not conn.execute(
                "SELECT 1 FROM usage WHERE msg_id=? AND request_id!=? AND sidechain=0",
                (u.msg_id, u.request_id),
            ).fetchone()
        ]
        conn.executemany(_UPSERT_USAGE, side)

    def _usage_row(self, source_id: int, session_id: str, u: Usage) -> tuple[object, ...]:
        return (
            u.msg_id, u.request_id, session_id, source_id, u.ts, u.model, u.input, u.output,
            u.cw5m, u.cw1h, u.cr, u.web_search, int(u.sidechain), u.geo, u.legacy_cost,
            self.pricer.cost(u),
        )  # fmt: skip

    def _reprice(self) -> None:
        """Recompute every stored cost (the price data or the overrides changed)."""
        with self.store.write() as conn:
            rows = conn.execute(
                "SELECT msg_id, request_id, model, ts, input, output, cw5m, cw1h, cr, "
                "web_search, sidechain, geo, legacy_cost FROM usage"
            ).fetchall()
            updates = []
            for r in rows:
                u = Usage(
                    msg_id=r[0], request_id=r[1], model=r[2], ts=r[3], input=r[4], output=r[5],
                    cw5m=r[6], cw1h=r[7], cr=r[8], web_search=r[9], sidechain=bool(r[10]),
                    geo=r[11], legacy_cost=r[12],
                )  # fmt: skip
                updates.append((self.pricer.cost(u), r[0], r[1]))
            conn.executemany("UPDATE usage SET cost=? WHERE msg_id=? AND request_id=?", updates)
            sessions = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM card")]
            for sid in sessions:
                _update_costs(conn, sid)
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('pricing', ?)",
                (self.pricer.fingerprint,),
            )
        if rows:
            logger.info("re-priced %d replies (%s)", len(rows), self.pricer.fingerprint)
            for sid in list(self._paths_by_session):
                self._reload_session(sid)


def _subagents(
    session_dir: str, session_id: str
) -> Iterator[tuple[str, str, str, os.DirEntry[str]]]:
    sub = os.path.join(session_dir, "subagents")
    try:
        with os.scandir(sub) as it:
            agents = list(it)
    except OSError:
        return
    for agent in agents:
        if agent.name.endswith(".jsonl"):
            yield agent.path, session_id, "subagent", agent


def _delete_rows(conn: sqlite3.Connection, source_id: int) -> None:
    # Tombstones: a contentless FTS5 row cannot be deleted before SQLite 3.43 (see ``store``);
    # the row stays so its id is never given to another piece, which would inherit its words.
    conn.execute("UPDATE msg SET source_id=0 WHERE source_id=?", (source_id,))
    conn.execute("DELETE FROM usage WHERE source_id=?", (source_id,))


def _update_costs(conn: sqlite3.Connection, session_id: str) -> tuple[float | None, int]:
    """The session's cost summed over its replies onto its cards; returns (cost, unpriced)."""
    cost, unpriced = conn.execute(
        "SELECT sum(cost), sum(cost IS NULL) FROM usage WHERE session_id=?", (session_id,)
    ).fetchone()
    conn.execute(
        "UPDATE card SET cost_usd=?, unpriced=?, cost_state_usd=(SELECT cost_state_usd FROM "
        "source WHERE source.id=card.source_id) WHERE session_id=?",
        (cost, unpriced or 0, session_id),
    )
    return cost, unpriced or 0


def _put_card(conn: sqlite3.Connection, source_id: int, m: TranscriptMeta) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO card(source_id, session_id, last_activity, created_at, mtime, "
        "size, cwd, git_branch, path, title, first_prompt) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            source_id, m.session_id, m.last_entry_at.timestamp(),
            m.created_at.timestamp() if m.created_at else None, m.mtime.timestamp(), m.size,
            m.cwd, m.git_branch, str(m.path), m.title, m.first_prompt,
        ),
    )  # fmt: skip


def _dt_round(value: datetime) -> datetime:
    """``value`` as it comes back from the index file (stored as epoch seconds)."""
    return datetime.fromtimestamp(value.timestamp(), tz=UTC)


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


class _Paths:
    """``Path`` objects for many files in a few directories: each directory parsed once,
    each file joined to it (``Path(text)`` parses every part again: 20,000 cards' paths cost
    a first list ~0.2 s of CPU)."""

    def __init__(self) -> None:
        self._dirs: dict[str, Path] = {}

    def __call__(self, text: str) -> Path:
        head, sep, name = text.rpartition("/")
        if not sep or not head or not name or name in (".", ".."):
            return Path(text)
        parent = self._dirs.get(head)
        if parent is None:
            parent = self._dirs[head] = Path(head)
        child = getattr(parent, "_make_child_relpath", None)  # pathlib's own, for iterdir()
        return child(name) if child is not None else parent / name


def _cards(conn: sqlite3.Connection, where: str, args: Sequence[object]) -> list[TranscriptMeta]:
    out: list[TranscriptMeta] = []
    path_of = _Paths()
    for r in conn.execute(
        "SELECT session_id, path, mtime, last_activity, size, cwd, title, first_prompt, "
        f"created_at, git_branch, cost_state_usd, cost_usd, unpriced FROM card WHERE {where}",
        args,
    ):
        cost = r[10] if r[10] is not None else r[11]
        out.append(
            TranscriptMeta(
                session_id=r[0],
                path=path_of(r[1]),
                mtime=datetime.fromtimestamp(r[2], tz=UTC),
                last_entry_at=datetime.fromtimestamp(r[3], tz=UTC),
                size=r[4],
                cwd=r[5],
                title=r[6],
                first_prompt=r[7],
                created_at=_dt(r[8]),
                git_branch=r[9],
                total_cost_usd=cost,
                unpriced_replies=r[12] or 0,
            )
        )
    return out
