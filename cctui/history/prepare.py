"""Transcript lines made into index rows, apart from the writer: in its thread, or ahead of
it in a worker process during a build.

Reading, parsing and extracting a transcript is about half of a first build's CPU; writing
SQLite (FTS tokenizing, inserts) is the rest, on the one writer. During a build of many new
files (``Prefetch``), a worker process prepares the next files while the writer writes the
current one, so the two halves run on two cores. What a worker prepared is used only if the
file is still the one it read (device, inode, size, mtime); otherwise the writer reads it
itself, as it always does for grown or changed files.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from cctui.history import _sdk
from cctui.history.extract import ROLE_CODES, Usage, extract, parse, wanted
from cctui.history.lines import complete_lines
from cctui.history.transcripts import TranscriptMeta, read_meta

if TYPE_CHECKING:  # concurrent.futures only when a build starts a worker (not a warm command)
    from concurrent.futures import Future, ProcessPoolExecutor

logger = logging.getLogger(__name__)

MAX_LINE = 8 * 1024 * 1024
"""Longer lines are dropped as they stream past (and counted): parsing one costs several
times its size in memory."""
ID_SLOTS = 32
"""Message ids are ``ts_seconds * ID_SLOTS`` + a sequence number: rowid order is time order.
Small, close ids keep the index small: FTS5 stores each posting's distance to the previous
row id as a varint (milliseconds times 65,536, the first scheme, cost ~3 bytes more each)."""
SIG_BYTES = 4096
"""Bytes before a file's offset its signature covers (``tail_sig``)."""
SEGMENT = 16 * 1024 * 1024
"""Bytes of one file read per write transaction (and the most a worker prepares)."""
PREFETCH_MIN_FILES = 16
"""New files a plan must hold before a worker process is worth starting."""
PARENT_POLL_SECONDS = 0.5
"""How often a worker checks that its parent still runs."""
PREFETCH_DEPTH = 1024
"""Files prepared ahead of the writer at most; ``PREFETCH_AHEAD_BYTES`` is what binds. At 64
files (~8 MB of a 20,000-session home's small files, ~0.1 s of the worker's work) the worker
ran dry while the writer flushed the FTS text or committed (~0.2-0.5 s each), then the writer
waited for it file after file: 123 waits, 11 s of a 4,400-file build at load 18 (1 wait,
0.4 s, deeper)."""
PREFETCH_AHEAD_BYTES = 32 * 1024 * 1024
"""Bytes of files prepared ahead of the writer at most (bounds the memory they hold)."""
PREFETCH_CHUNK_FILES = 16
PREFETCH_CHUNK_BYTES = 4 * 1024 * 1024
"""A worker's task: up to ``PREFETCH_CHUNK_FILES`` files or this many bytes (at least one
file). Handing the worker one file at a time cost the writer's process ~0.5 ms per file in
pickling and thread hand-offs (~10 s of a 20,000-file build)."""


@dataclass(slots=True)
class Counts:
    lines: int = 0
    skipped: int = 0
    oversized: int = 0
    bad_utf8: int = 0
    cost_state: float | None = None


def msg_id_floor(ts: float) -> int:
    """The smallest message id of a message written at ``ts`` (epoch seconds)."""
    return max(0, int(ts)) * ID_SLOTS


@dataclass(slots=True)
class Prepared:
    """What a run of complete lines gives the index."""

    end: int
    more: bool
    counts: Counts
    pieces: list[tuple[int, float | None, int, int, int, int, int, int]] = field(
        default_factory=list
    )
    """Per searchable piece, its ``msg`` row but for the id and the file: (its id's floor,
    ``msg_id_floor`` of its line's time or the last one before it; the line's time; role code;
    sidechain; the line's offset, length and CRC-32; the piece's part). Plain tuples: a
    worker's pieces are pickled to the writer (an object each cost both sides ~3x more)."""
    texts: list[tuple[str, str]] = field(default_factory=list)
    """Per piece, its (text, role): the FTS row but for the id."""
    chars: int = 0
    """Characters of text in ``texts``."""
    replies: list[Usage] = field(default_factory=list)
    """One per reply (its lines repeat its usage): the one the upsert's rule would keep."""
    identity: tuple[int, int, int, int] | None = None
    """(device, inode, size, mtime_ns) of the file a worker read."""
    meta: TranscriptMeta | None = None
    meta_read: bool = False
    sig: bytes | None = None
    """The signature of the bytes before ``end`` (``indexer``'s ``tail_sig``), from a worker."""


def read_segment(fh: BinaryIO, offset: int, *, sidechain_file: bool, thinking: bool) -> Prepared:
    """Up to ``SEGMENT`` bytes of complete lines from ``offset``."""
    counts = Counts()
    out = Prepared(end=offset, more=False, counts=counts)
    pieces, texts = out.pieces, out.texts
    replies: dict[tuple[str, str], Usage] = {}
    last_ts = os.fstat(fh.fileno()).st_mtime  # for entries without a timestamp
    lines = complete_lines(fh, offset, max_line=MAX_LINE)
    end = offset
    for end, line in lines:
        counts.lines += 1
        if line is None:
            counts.oversized += 1
        elif line.strip() and wanted(line):
            entry, bad = parse(line)
            counts.bad_utf8 += bad
            if entry is None:
                counts.skipped += 1
            else:
                got = extract(entry, thinking=thinking)
                if got.cost_state is not None:
                    counts.cost_state = got.cost_state
                side = int(got.sidechain or sidechain_file)
                last_ts = got.ts or last_ts
                if got.pieces:
                    floor = msg_id_floor(last_ts)
                    start, size, crc = end - len(line) - 1, len(line), zlib.crc32(line)
                    for p in got.pieces:
                        pieces.append(
                            (floor, got.ts, ROLE_CODES[p.role], side, start, size, crc, p.part)
                        )
                        texts.append((p.body, p.role))
                        out.chars += len(p.body)
                u = got.usage
                if u is not None:
                    u.sidechain = bool(side)
                    key = (u.msg_id, u.request_id)
                    had = replies.get(key)
                    if (
                        had is None
                        or u.total > had.total
                        or (u.total == had.total and u.ts < had.ts)
                    ):
                        replies[key] = u
        if end - offset >= SEGMENT:
            out.more = True
            break
    lines.close()
    out.end = end
    out.replies = list(replies.values())
    return out


def tail_sig(fh: BinaryIO, offset: int) -> bytes:
    """A hash of up to ``SIG_BYTES`` before ``offset``: a file rewritten in place (not just
    grown) is noticed by it."""
    start = max(0, offset - SIG_BYTES)
    fh.seek(start)
    return hashlib.sha1(fh.read(offset - start)).digest()


def prepare_file(path: str, session_id: str, kind: str, thinking: bool) -> Prepared | None:
    """A worker's job: the first segment of a new file, and its list metadata."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            out = read_segment(fh, 0, sidechain_file=kind == "subagent", thinking=thinking)
            out.sig = tail_sig(fh, out.end)
        out.identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if kind == "main" and not out.more:
            out.meta = read_meta(Path(path), session_id)
            out.meta_read = True
    except OSError:
        return None  # the writer reads it itself and reports what is wrong
    return out


def _exit_with_parent() -> None:
    """A worker's initializer: end when the process that started it is gone. A killed cctui
    (SIGKILL: no cleanup) left its worker waiting on its task queue for ever, since the worker
    holds that pipe's write end itself."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="cctui-index-worker-parent", daemon=True).start()


def warm_up() -> None:
    """A worker's first task: the imports its jobs need (the SDK's session parser). Loaded
    alone (``_sdk.one_shot_command``: no other thread of a worker imports), not with the
    SDK's package and the mcp SDK it imports, ~1 s of CPU before a worker's first file."""
    with _sdk.one_shot_command():
        _sdk.lite_read_size()


def prepare_files(jobs: list[tuple[str, str, str]], thinking: bool) -> list[Prepared | None]:
    """A worker's task: ``prepare_file`` of each (path, session id, kind)."""
    return [prepare_file(path, sid, kind, thinking) for path, sid, kind in jobs]


@contextlib.contextmanager
def _real_stderr() -> Iterator[None]:
    """``sys.stderr`` as the process's own while a pool starts: under the TUI it is
    Textual's capture, whose ``fileno()`` is -1, and the resource tracker the pool starts
    hands its stderr's fd to its child ("bad value(s) in fds_to_keep")."""
    captured = sys.stderr
    real = sys.__stderr__
    usable = real is not None and not real.closed
    if usable:
        sys.stderr = real
    try:
        yield
    finally:
        if usable:
            sys.stderr = captured


class Prefetch:
    """A worker process preparing the next new files of a build (see the module docstring)."""

    def __init__(self, thinking: bool) -> None:
        self._thinking = thinking
        self._ahead: dict[str, tuple[Future[list[Prepared | None]], int, int]] = {}
        """Path -> (its chunk's future, its place in the chunk, its size)."""
        self._ahead_bytes = 0
        self._warm: Future[None] | None = None
        """The worker's first task, its imports: until it is done the writer never waits."""
        self._broken = False
        self._pool: ProcessPoolExecutor | None = None
        # here: multiprocessing (~7 ms of import) only when a build starts a worker
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        try:
            with _real_stderr():
                # spawn, not fork: the TUI's process has threads (a fork copies their locks).
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_exit_with_parent,
                )
                self._warm = self._pool.submit(warm_up)
        except Exception:  # no worker here: the writer reads every file itself
            logger.warning("index worker could not start; reading in this process", exc_info=True)
            self._broken = True

    def feed(self, jobs: Iterable[tuple[str, str, str, int]]) -> None:
        """Start preparing the next of these (path, session id, kind, size) not asked for yet,
        in chunks (``PREFETCH_CHUNK_FILES`` files or ``PREFETCH_CHUNK_BYTES``), while there
        is room ahead of the writer; the last chunk of the jobs may be short."""
        if self._broken or self._pool is None or (self._ahead and not self._room()):
            return
        if self._warm is not None and not self._warm.done():
            # The worker is still starting: the writer reads the files it reaches meanwhile
            # itself (``take``), so files handed over now would be prepared twice. Under load
            # the start took seconds, and every file the writer read then had been queued for
            # the worker as well, which then worked through them before the files it was for.
            return
        chunk: list[tuple[str, str, str, int]] = []
        chunk_bytes = 0
        # Nothing ahead (the build's start): the writer waits for the first file alone.
        files = 1 if not self._ahead else PREFETCH_CHUNK_FILES
        for path, session_id, kind, size in jobs:
            if path in self._ahead:
                continue
            chunk.append((path, session_id, kind, size))
            chunk_bytes += size
            if chunk_bytes >= PREFETCH_CHUNK_BYTES or len(chunk) >= files:
                self._submit(chunk)
                chunk, chunk_bytes = [], 0
                files = PREFETCH_CHUNK_FILES
                if self._broken or not self._room():
                    return
        if chunk:
            self._submit(chunk)

    def _room(self) -> bool:
        """Another full chunk fits ahead of the writer."""
        return (
            len(self._ahead) + PREFETCH_CHUNK_FILES <= PREFETCH_DEPTH
            and self._ahead_bytes + PREFETCH_CHUNK_BYTES <= PREFETCH_AHEAD_BYTES
        )

    def _submit(self, chunk: list[tuple[str, str, str, int]]) -> None:
        assert self._pool is not None
        try:
            fut = self._pool.submit(prepare_files, [c[:3] for c in chunk], self._thinking)
        except Exception:  # the worker died (or could not start): the writer reads
            logger.warning("index worker unavailable; reading in this process")
            self._broken = True
            return
        for i, (path, _, _, size) in enumerate(chunk):
            self._ahead[path] = (fut, i, size)
            self._ahead_bytes += size

    def take(self, path: str) -> Prepared | None:
        """What the worker prepared for ``path`` (waiting for its chunk), if it was asked to."""
        entry = self._ahead.pop(path, None)
        if entry is None or self._broken:
            return None
        fut, i, size = entry
        self._ahead_bytes -= size
        if self._warm is not None and not self._warm.done():
            # The worker is still starting (a spawned interpreter's imports: seconds on a
            # busy machine): the writer reads this file itself rather than wait, so the first
            # step fills the list's top at once.
            return None
        try:
            got = fut.result()
        except Exception:  # a broken worker: the writer reads the file itself
            logger.warning("index worker failed on %s", path, exc_info=True)
            self._broken = True
            return None
        ready, got[i] = got[i], None  # the chunk's list lives until its last file is taken
        return ready

    def close(self, *, wait: bool = True) -> None:
        """Stop the worker (nothing prepared is kept); it exits after the file it is on."""
        self._broken = True
        for fut, _, _ in self._ahead.values():
            fut.cancel()
        self._ahead.clear()
        self._ahead_bytes = 0
        if self._pool is not None:
            with contextlib.suppress(Exception):
                self._pool.shutdown(wait=wait, cancel_futures=True)
