"""Incremental reader of ``history.jsonl``, the interactive CLI's prompt log.

The file is append-only, so we remember (inode, offset) and read only the bytes appended since.
A new inode (rotation) or a size below our offset (truncation) starts over from byte 0; the
caller is told so it can drop what it derived from the old content. A trailing line without a
newline is a write in progress: it is kept and completed by the next read, not counted as corrupt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cctui.history.models import HistoryPrompt

logger = logging.getLogger(__name__)

_READ_CHUNK = 1 << 20
TAIL_BYTES = 4096
"""The reader keeps this many bytes before its offset: a later run tells by them that the
file it resumes is still the one read (``tail_digest``)."""


@dataclass(slots=True)
class PromptFold:
    """The history.jsonl prompts of one session, folded in file order."""

    first: datetime
    last: datetime
    count: int = 0
    project: str | None = None
    title: str | None = None
    """The first prompt that is not a slash command (else the first one)."""

    def add(self, p: HistoryPrompt) -> None:
        self.first, self.last = min(self.first, p.timestamp), max(self.last, p.timestamp)
        self.count += 1
        self.project = self.project or p.project
        self.title = _better_title(self.title, title_text(p.display))

    def merged(self, later: PromptFold | None) -> PromptFold:
        """This fold followed by ``later``'s prompts (as if added after these)."""
        if later is None:
            return self
        return PromptFold(
            min(self.first, later.first),
            max(self.last, later.last),
            self.count + later.count,
            self.project or later.project,
            _better_title(self.title, later.title),
        )


def _better_title(title: str | None, later: str | None) -> str | None:
    """A fold's title once a later prompt's text comes: the first prompt that is not a slash
    command, else the first one."""
    if later and (title is None or (title.startswith("/") and not later.startswith("/"))):
        return later
    return title


def fold_into(folds: dict[str, PromptFold], session_id: str, prompt: HistoryPrompt) -> None:
    """Add ``prompt`` to ``session_id``'s fold in ``folds``."""
    agg = folds.get(session_id)
    if agg is None:
        agg = folds[session_id] = PromptFold(prompt.timestamp, prompt.timestamp)
    agg.add(prompt)


def title_text(display: str) -> str:
    """What of a prompt a title shows: its words on one line, at most 200 characters."""
    return " ".join(display.split())[:200]


@dataclass(frozen=True, slots=True)
class HistoryRead:
    """What one read of history.jsonl produced."""

    prompts: list[HistoryPrompt]
    reset: bool = False
    """The file was rotated, truncated or removed: forget prompts read before."""
    skipped: int = 0
    """Corrupt lines in this read."""


def parse_history_line(raw: bytes) -> HistoryPrompt | None:
    """One history.jsonl line as a prompt; ``None`` when it is not valid JSON of that shape."""
    try:
        data: Any = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    display, ts = data.get("display"), data.get("timestamp")
    if not isinstance(display, str) or not isinstance(ts, int | float) or isinstance(ts, bool):
        return None
    try:
        when = datetime.fromtimestamp(ts / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    project = data.get("project")
    session_id = data.get("sessionId")
    # Fields are checked above; skipping validation halves the cost of a cold read of a long file.
    return HistoryPrompt.model_construct(
        display=display,
        timestamp=when,
        project=project if isinstance(project, str) and project else None,
        session_id=session_id if isinstance(session_id, str) and session_id else None,
    )


@dataclass
class HistoryFileReader:
    """Tails one history.jsonl across refreshes."""

    path: Path
    offset: int = 0
    """Bytes of the file consumed so far (complete lines plus ``_partial``)."""
    inode: int | None = None
    bytes_read: int = 0
    """Total bytes read over the reader's life (tests assert appends read only new bytes)."""
    unreadable: str | None = None
    """Why the file could not be read last time, if it could not."""
    _partial: bytes = field(default=b"", repr=False)
    _tail: bytes = field(default=b"", repr=False)
    """Up to ``TAIL_BYTES`` of the complete lines before ``consumed``."""

    @property
    def consumed(self) -> int:
        """Bytes of complete lines read (``offset`` less a line still being written)."""
        return self.offset - len(self._partial)

    def tail_digest(self) -> tuple[int, str]:
        """(length, SHA-1) of the bytes kept before ``consumed``."""
        return len(self._tail), hashlib.sha1(self._tail).hexdigest()

    def resume(self, inode: int, offset: int, tail_len: int, tail_sha1: str) -> bool:
        """Carry on from ``offset`` of the file an earlier reader read (``tail_digest``
        says how it ended); False, and nothing changed, unless the file is still that one:
        the same inode, at least ``offset`` long, the same bytes before it."""
        try:
            with self.path.open("rb") as fh:
                st = os.fstat(fh.fileno())
                if st.st_ino != inode or st.st_size < offset or tail_len > offset:
                    return False
                fh.seek(offset - tail_len)
                tail = fh.read(tail_len)
        except OSError:
            return False
        if len(tail) != tail_len or hashlib.sha1(tail).hexdigest() != tail_sha1:
            return False
        self.inode, self.offset, self._partial, self._tail = inode, offset, b"", tail
        return True

    def read_new(self) -> HistoryRead:
        """Read what was appended since the last call."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            had = self.inode is not None
            self._restart(None)
            self.unreadable = None
            return HistoryRead([], reset=had)
        except OSError as exc:
            return self._fail(exc)
        reset = False
        if self.inode is not None and (st.st_ino != self.inode or st.st_size < self.offset):
            logger.info("history file %s was rotated or truncated; re-reading", self.path)
            self._restart(st.st_ino)
            reset = True
        self.inode = st.st_ino
        if st.st_size == self.offset:
            return HistoryRead([], reset=reset)
        try:
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                chunks: list[bytes] = []
                while chunk := fh.read(_READ_CHUNK):
                    chunks.append(chunk)
        except OSError as exc:
            return self._fail(exc)
        self.unreadable = None
        data = b"".join(chunks)
        self.bytes_read += len(data)
        self.offset += len(data)
        return self._parse(self._partial + data, reset)

    def _parse(self, data: bytes, reset: bool) -> HistoryRead:
        lines = data.split(b"\n")
        self._partial = lines.pop()  # b"" when data ends with a newline
        whole = len(data) - len(self._partial)
        self._tail = (self._tail + data[max(0, whole - TAIL_BYTES) : whole])[-TAIL_BYTES:]
        prompts: list[HistoryPrompt] = []
        skipped = 0
        for line in lines:
            if not line.strip():
                continue
            prompt = parse_history_line(line)
            if prompt is None:
                skipped += 1
            else:
                prompts.append(prompt)
        if skipped:
            logger.warning("skipped %d corrupt line(s) in %s", skipped, self.path)
        return HistoryRead(prompts, reset=reset, skipped=skipped)

    def _restart(self, inode: int | None) -> None:
        self.offset = 0
        self.inode = inode
        self._partial = b""
        self._tail = b""

    def _fail(self, exc: OSError) -> HistoryRead:
        reason = exc.strerror or str(exc)
        if self.unreadable != reason:
            logger.warning("cannot read %s: %s", self.path, reason)
        self.unreadable = reason
        return HistoryRead([])
