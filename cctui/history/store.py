"""The persisted index file: one SQLite database (WAL) of every transcript under ``projects/``.

It is a cache. Missing, corrupt, written by an older cctui or by a newer one: it is rebuilt
and ``IndexStore.note`` says why (the TUI and the log show it); opening never raises for that.

Tables (small columns before large ones, so list queries stay in the first pages):

- ``source``: one row per transcript file: identity (dev, inode), size, mtime, the byte offset
  just after the last complete line read, a signature of the 4 KiB before it, and counters of
  what was skipped. ``kind`` is ``main`` or ``subagent``; a subagent's ``session_id`` is its
  parent session's id.
- ``card``: one row per listable main transcript (the session list's head/tail metadata).
- ``msg``: one row per indexed piece of text (a prompt, an assistant text block, a tool input,
  a tool result): where it is, not what it says: its line's byte offset and length in the
  transcript, the line's CRC-32, and which piece of the line (``part``). The text itself is
  only in ``msg_fts``'s postings: a *contentless* FTS5 table (``content=''``) of the text and
  the role (a one-word column, so ``role:`` filters inside the index). Snippets are read from
  the transcript when shown (``snippets``), and a line whose CRC no longer matches gets its
  file re-indexed. SQLite before 3.43 cannot delete a contentless row, so a file read again
  leaves its old rows as tombstones (``source_id = 0``): the joins drop them, and ``plan``
  rebuilds the index when they outnumber the live rows.
- ``usage``: one row per API reply, keyed on (message id, request id); ``usage_q`` sums it
  per 15 minutes, session and model, ``usage_s`` per session (both kept by triggers), which is
  what reports read.
- ``meta``: key/value (pricing fingerprint, build times).

Writers take ``BEGIN IMMEDIATE`` with a busy timeout, so two cctui processes share one file
(one writes at a time); readers use their own connections and WAL never blocks them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 3
"""Bump on any change to the tables below: an index of another version is rebuilt.
3: ``msg_fts`` keeps no per-row column sizes (``columnsize=0``) and flushes 16 MiB segments."""
FTS_HASH_BYTES = 16 * 1024 * 1024
"""FTS5's in-memory postings before it writes a segment (its default is 1 MiB): a build's
8 MB batches (``indexer.FTS_BUFFER``) then become one segment each instead of ~8, which cuts the
merges that follow: 25% of the FTS table's insert time on a build."""

FTS_AUTOMERGE = 8
"""FTS5 merges a level's segments into one once this many are there (its default is 4): each
posting is then rewritten fewer times as the index grows (log base 8 of the segments instead
of base 4). Inserts 15-25% faster in a bench of 357 M characters of the 20,000-session
corpus's text (50 batches), the same size, queries within the noise (``docs/benchmarks.md``).
A setting of the table, kept in the file: an index made before keeps its 4."""

WRITER_CACHE_KIB = 8 * 1024
"""The writer connection's page cache."""

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's write transaction (a batch of files)."""

_SUMS = """\
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cw5m INTEGER NOT NULL,
    cw1h INTEGER NOT NULL,
    cr INTEGER NOT NULL,
    n INTEGER NOT NULL,
    cost REAL NOT NULL,
    unpriced INTEGER NOT NULL"""
"""The columns both rollups (``usage_q``, ``usage_s``) sum: tokens, replies, cost (0 for a reply
of no price) and replies of no price."""
_ADDED = """input = input + excluded.input,
        output = output + excluded.output, cw5m = cw5m + excluded.cw5m,
        cw1h = cw1h + excluded.cw1h, cr = cr + excluded.cr, n = n + 1,
        cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced"""
_TAKEN = """input = input - old.input, output = output - old.output,
        cw5m = cw5m - old.cw5m, cw1h = cw1h - old.cw1h, cr = cr - old.cr, n = n - 1,
        cost = cost - coalesce(old.cost, 0), unpriced = unpriced - (old.cost IS NULL)"""
_ADD_REPLY = f"""\
    INSERT INTO usage_q VALUES (CAST(new.ts / 900 AS INTEGER), new.session_id, new.model,
        new.input, new.output, new.cw5m, new.cw1h, new.cr, 1, coalesce(new.cost, 0),
        new.cost IS NULL)
    ON CONFLICT (q, session_id, model) DO UPDATE SET {_ADDED};
    INSERT INTO usage_s VALUES (new.session_id, new.input, new.output, new.cw5m, new.cw1h,
        new.cr, 1, coalesce(new.cost, 0), new.cost IS NULL)
    ON CONFLICT (session_id) DO UPDATE SET {_ADDED};
"""
"""A reply's usage added to its quarter-hour rollup (``usage_q``) and its session's
(``usage_s``)."""
_TAKE_REPLY = f"""\
    UPDATE usage_q SET {_TAKEN}
    WHERE q = CAST(old.ts / 900 AS INTEGER) AND session_id = old.session_id
        AND model = old.model;
    DELETE FROM usage_q WHERE q = CAST(old.ts / 900 AS INTEGER)
        AND session_id = old.session_id AND model = old.model AND n <= 0;
    UPDATE usage_s SET {_TAKEN}
    WHERE session_id = old.session_id;
    DELETE FROM usage_s WHERE session_id = old.session_id AND n <= 0;
"""
"""...and taken out again (a row emptied goes)."""
_ROLLUP_TRIGGERS = (
    f"CREATE TRIGGER usage_q_ai AFTER INSERT ON usage BEGIN\n{_ADD_REPLY}END;\n"
    f"CREATE TRIGGER usage_q_ad AFTER DELETE ON usage BEGIN\n{_TAKE_REPLY}END;\n"
    f"CREATE TRIGGER usage_q_au AFTER UPDATE ON usage BEGIN\n{_TAKE_REPLY}{_ADD_REPLY}END;\n"
)
"""The rollup kept in step with ``usage`` (an update is a take and an add)."""

_SESSION_ROLLUP = f"""
CREATE TABLE usage_s (
    session_id TEXT PRIMARY KEY,
{_SUMS}
) WITHOUT ROWID;
"""
"""Every reply's usage summed per session, kept by the same triggers as ``usage_q``: a report
by session of every time reads its 20,000 lines ready instead of grouping ``usage_q``'s rows
(``cctui usage session``: ~0.06 s of CPU less, ``docs/benchmarks.md``, 2026-11-29 night)."""

_SCHEMA = (
    """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE source (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    dev INTEGER NOT NULL DEFAULT 0,
    ino INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    offset INTEGER NOT NULL DEFAULT 0,
    tail_sig BLOB,
    lines INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    oversized INTEGER NOT NULL DEFAULT 0,
    bad_utf8 INTEGER NOT NULL DEFAULT 0,
    deferred INTEGER NOT NULL DEFAULT 0,
    cost_state_usd REAL,
    indexed_at REAL
);
CREATE INDEX source_session ON source(session_id);
CREATE TABLE card (
    source_id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    last_activity REAL NOT NULL,
    created_at REAL,
    mtime REAL NOT NULL,
    size INTEGER NOT NULL,
    cost_state_usd REAL,
    cost_usd REAL,
    unpriced INTEGER NOT NULL DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    path TEXT NOT NULL,
    title TEXT,
    first_prompt TEXT
);
CREATE INDEX card_session ON card(session_id);
CREATE INDEX card_cwd ON card(cwd, session_id);
-- The cards in file order, each session's newest last (what a list keeps), without sorting
-- them per query; covers a page's order (session id -> last activity).
CREATE INDEX card_mtime ON card(mtime, session_id, last_activity);
CREATE TABLE msg (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL,
    ts REAL,
    role INTEGER NOT NULL,
    sidechain INTEGER NOT NULL DEFAULT 0,
    off INTEGER NOT NULL,
    len INTEGER NOT NULL,
    crc INTEGER NOT NULL,
    part INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX msg_source ON msg(source_id);
-- columnsize=0: no %_docsize row per message (only bm25 and length() read it; search uses
-- neither): 10% of the FTS table's insert time.
CREATE VIRTUAL TABLE msg_fts USING fts5(
    body, role, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2'
);
CREATE TABLE usage (
    msg_id TEXT NOT NULL,
    request_id TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL,
    source_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    model TEXT NOT NULL,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cw5m INTEGER NOT NULL,
    cw1h INTEGER NOT NULL,
    cr INTEGER NOT NULL,
    web_search INTEGER NOT NULL DEFAULT 0,
    sidechain INTEGER NOT NULL DEFAULT 0,
    geo TEXT,
    legacy_cost REAL,
    cost REAL,
    PRIMARY KEY (msg_id, request_id)
) WITHOUT ROWID;
-- Covers the 5-hour blocks report (per-reply times), so it never reads the wide rows.
CREATE INDEX usage_ts ON usage(ts, input, output, cw5m, cw1h, cr, cost, model);
CREATE TABLE usage_q (
    q INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    model TEXT NOT NULL,
"""
    + _SUMS
    + """,
    PRIMARY KEY (q, session_id, model)
) WITHOUT ROWID;
"""
    + _SESSION_ROLLUP
    + _ROLLUP_TRIGGERS
    + """CREATE INDEX usage_session ON usage(session_id);
CREATE INDEX usage_source ON usage(source_id);
"""
)


class IndexStore:
    """Opens (creating or rebuilding) the index file and hands out connections.

    ``path=None`` puts the database in a private temporary directory (tests, benchmarks, and a
    ``HistoryIndex`` built without settings); it is removed when the store is closed.
    """

    def __init__(self, path: Path | None) -> None:
        self._tmp: Path | None = None
        if path is None:
            import shutil
            import tempfile
            import weakref

            self._tmp = Path(tempfile.mkdtemp(prefix="cctui-index-"))
            path = self._tmp / "index.sqlite"
            # Removed with the store even when nobody calls close() (tests, benchmarks).
            weakref.finalize(self, shutil.rmtree, self._tmp, True)
        self.path = path
        self.note = ""
        """Why the index was (re)built at open, for the status bar and the log; empty if not."""
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._depth = 0
        self._writer: sqlite3.Connection | None = None
        self._open()

    # -- opening ---------------------------------------------------------------------------

    def _open(self) -> None:
        d = self.path.parent
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(d, 0o700)  # it holds transcript text
        existed = self.path.exists()
        try:
            conn = self._connect()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            self._discard(f"the index was unreadable ({exc}); rebuilding it")
            conn = self._connect()
            version = 0
            existed = False
        if version != SCHEMA_VERSION:
            if existed and version != 0:
                which = "an older" if version < SCHEMA_VERSION else "a newer"
                self._set_note(f"the index was written by {which} cctui; rebuilding it")
            elif existed and _has_tables(conn):
                self._set_note("the index had no schema version; rebuilding it")
            self._create(conn)
        else:
            _add_indexes(conn)
            _add_session_rollup(conn)
        self._writer = conn
        self._secure()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
            check_same_thread=False,
        )  # fmt: skip
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        # 8 MiB (SQLite's default is 2): 32 MiB held a 20,000-session build's writer at ~210 MB
        # of RSS for no speed (FTS5 inserts of 213 M characters: 8.9, 8.2 s at 32 MiB; 8.0,
        # 7.6 s at 8 MiB; peak RSS 146 -> 121 MB).
        conn.execute(f"PRAGMA cache_size=-{WRITER_CACHE_KIB}")
        return conn

    def _secure(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.chmod(f"{self.path}{suffix}", 0o600)

    def _set_note(self, note: str) -> None:
        self.note = note
        logger.warning("%s: %s", self.path, note)

    def _discard(self, note: str) -> None:
        self._set_note(note)
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    def _create(self, conn: sqlite3.Connection) -> None:
        """Drop whatever is there and create the schema, in one write transaction."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                conn.execute("ROLLBACK")  # another process created it meanwhile
                return
            for kind, name in conn.execute(
                "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'msg_fts_%'"
            ).fetchall():
                conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
            for statement in _statements(_SCHEMA):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO msg_fts(msg_fts, rank) VALUES ('hashsize', ?)", (FTS_HASH_BYTES,)
            )
            conn.execute(
                "INSERT INTO msg_fts(msg_fts, rank) VALUES ('automerge', ?)", (FTS_AUTOMERGE,)
            )
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def reset(self, note: str = "") -> None:
        """Empty the index (``cctui index --rebuild``): the schema is created afresh."""
        assert self._writer is not None
        if note:
            self._set_note(note)
        with self._write_lock:
            self._writer.execute("PRAGMA user_version=0")
            self._create(self._writer)
            self._writer.execute("VACUUM")

    # -- connections -----------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self, *, savepoint: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``): committed on success, else rolled back.

        Nested calls (a batch of files around each file's own) become savepoints, so a batch
        commits once: fewer, larger FTS segments, which is most of the build's speed.
        ``savepoint=False`` inside a transaction: no savepoint, the writes are the enclosing
        transaction's (an error rolls that back whole). For writes that cannot fail halfway
        for a reason worth surviving: a savepoint's RELEASE was ~10% of a first build's
        writer (FTS5 takes part in every savepoint of a transaction that wrote it).
        """
        assert self._writer is not None
        with self._write_lock:
            conn = self._writer
            depth = self._depth
            if depth and not savepoint:
                yield conn
                return
            conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT w{depth}")
            self._depth += 1
            try:
                yield conn
            except BaseException:
                self._depth = depth
                if depth == 0:
                    conn.execute("ROLLBACK")
                else:
                    conn.execute(f"ROLLBACK TO w{depth}")
                    conn.execute(f"RELEASE w{depth}")
                raise
            self._depth = depth
            conn.execute("COMMIT" if depth == 0 else f"RELEASE w{depth}")
        self._secure_once()

    def checkpoint(self) -> None:
        """Fold the WAL into the file and empty it (after a build: the WAL holds a copy of
        every page written, as large as the index itself until then)."""
        assert self._writer is not None
        with self._write_lock, contextlib.suppress(sqlite3.Error):
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _secure_once(self) -> None:
        if not getattr(self, "_secured_wal", False) and Path(f"{self.path}-wal").exists():
            self._secure()
            self._secured_wal = True

    def reader(self) -> sqlite3.Connection:
        """This thread's read connection (read-only; WAL readers never wait for the writer)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False,
            )  # fmt: skip
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA query_only=1")
            self._local.conn = conn
        return conn

    def get_meta(self, key: str) -> str | None:
        row = self.reader().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def size_bytes(self) -> int:
        """The index's size on disk (database + WAL)."""
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                total += os.stat(f"{self.path}{suffix}").st_size
        return total

    def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(sqlite3.Error):
                self._writer.execute("PRAGMA optimize")
            self._writer.close()
            self._writer = None
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        if self._tmp is not None:
            import shutil

            shutil.rmtree(self._tmp, ignore_errors=True)


_ADDED_INDEXES = {
    "card_cwd": "CREATE INDEX IF NOT EXISTS card_cwd ON card(cwd, session_id)",
    # The queries ``ORDER BY mtime`` over 20,000 cards sorted them each time: a page's order
    # (``TranscriptIndexer.latest``) 21 -> 11 ms of CPU, ``usage session``'s titles 40 -> 30,
    # ``sessions --json``'s rows 70 -> 58 (at load ~10).
    "card_mtime": (
        "CREATE INDEX IF NOT EXISTS card_mtime ON card(mtime, session_id, last_activity)"
    ),
}
"""Indexes added to the schema after its version was set: an index file of this version without
them gets them at open (a second or less) instead of being rebuilt."""


def _add_indexes(conn: sqlite3.Connection) -> None:
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    for name, sql in _ADDED_INDEXES.items():
        if name not in have:
            with contextlib.suppress(sqlite3.OperationalError):  # busy, read-only: next time
                conn.execute(sql)


def _add_session_rollup(conn: sqlite3.Connection) -> None:
    """An index file of this version made before ``usage_s``: the table made from ``usage_q``
    and the triggers that keep both, in one write transaction (a second or less at 20,000
    sessions), instead of a rebuild. Busy or read-only: left for the next open (the reports
    read ``usage_q`` meanwhile, ``has_session_rollup``)."""
    if has_session_rollup(conn):
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return
    try:
        if not has_session_rollup(conn):  # another process may have made it meanwhile
            conn.execute(_SESSION_ROLLUP)
            conn.execute(
                "INSERT INTO usage_s SELECT session_id, sum(input), sum(output), sum(cw5m), "
                "sum(cw1h), sum(cr), sum(n), sum(cost), sum(unpriced) FROM usage_q "
                "GROUP BY session_id"
            )
            for name in ("usage_q_ai", "usage_q_ad", "usage_q_au"):
                conn.execute(f"DROP TRIGGER IF EXISTS {name}")
            for statement in _statements(_ROLLUP_TRIGGERS):
                conn.execute(statement)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        conn.execute("ROLLBACK")
        logger.warning("could not add the per-session usage to the index: %s", exc)


def has_session_rollup(conn: sqlite3.Connection) -> bool:
    """The index file has ``usage_s`` (see ``_add_session_rollup``)."""
    return bool(conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'usage_s'"
    ).fetchone()[0])  # fmt: skip


def _has_tables(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])


def _statements(script: str) -> list[str]:
    """Split the schema into statements (triggers contain ``;`` inside BEGIN ... END)."""
    out: list[str] = []
    buf: list[str] = []
    for line in script.strip().splitlines():
        buf.append(line)
        text = "\n".join(buf).strip()
        if text.endswith(";") and sqlite3.complete_statement(text):
            out.append(text)
            buf = []
    return out
