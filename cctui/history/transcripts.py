"""Cached head/tail metadata of every transcript under ``projects/*/<uuid>.jsonl``.

A refresh is a stat sweep; a file's head and tail (64 KiB each, the SDK's lite read) are read
again only when its (mtime, size, inode) changed. Whole transcripts are never parsed here.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from cctui.history import _sdk

logger = logging.getLogger(__name__)

_COST_RE = re.compile(rb'"totalCostUSD"\s*:\s*(-?[0-9.]+(?:[eE][+-]?[0-9]+)?)')
_COST_LINE = b'{"type":"cost-state"'


@dataclass(frozen=True, slots=True)
class TranscriptMeta:
    """What the list needs from one transcript file."""

    session_id: str
    path: Path
    mtime: datetime
    last_entry_at: datetime
    """The last entry's own timestamp (survives a copy of ~/.claude), else the file's mtime."""
    size: int
    cwd: str | None
    title: str | None
    first_prompt: str | None
    created_at: datetime | None
    git_branch: str | None
    total_cost_usd: float | None


@dataclass(slots=True)
class _Entry:
    key: tuple[int, int, int]
    """(mtime_ns, size, inode) when last read."""
    meta: TranscriptMeta | None
    """``None`` for sidechain or metadata-only files: the list leaves them out, as the SDK does."""


@dataclass(slots=True)
class ReadStats:
    """Counters the tests and the benchmark use to prove reads are incremental."""

    files_read: int = 0
    bytes_read: int = 0


def _ms_to_dt(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def _iso(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _last_timestamp(tail: bytes) -> datetime | None:
    """The last ISO ``"timestamp"`` in the tail (one rfind; the SDK's scan visits every one)."""
    key = b'"timestamp":"'
    pos = tail.rfind(key)
    if pos < 0:
        return None
    start = pos + len(key)
    end = tail.find(b'"', start, start + 40)
    return _iso(tail[start:end].decode("ascii", "replace")) if end > start else None


def _cost_from_tail(tail: bytes) -> float | None:
    """The last ``cost-state`` total in the tail, if one is there (cheap: no JSON parse)."""
    pos = tail.rfind(_COST_LINE)
    if pos < 0:
        return None
    end = tail.find(b"\n", pos)
    match = _COST_RE.search(tail, pos, end if end >= 0 else len(tail))
    if match is None:
        return None
    try:
        return float(match.group(1))
    except ValueError:
        return None


@dataclass
class TranscriptScanner:
    """Keeps ``TranscriptMeta`` for every transcript under one ``projects/`` directory.

    Not thread-safe; the index serialises refreshes.
    """

    projects_dir: Path
    stats: ReadStats = field(default_factory=ReadStats)
    _files: dict[Path, _Entry] = field(default_factory=dict)
    _paths_by_session: dict[str, set[Path]] = field(default_factory=dict)
    unreadable: dict[Path, str] = field(default_factory=dict)
    """Transcript paths that could not be read, with the reason."""

    def metas(self) -> Iterable[TranscriptMeta]:
        """Every listable transcript read so far."""
        return (e.meta for e in self._files.values() if e.meta is not None)

    def meta(self, session_id: str) -> TranscriptMeta | None:
        """The session's transcript; the newest if the id appears under two project dirs."""
        best: TranscriptMeta | None = None
        for path in self._paths_by_session.get(session_id, ()):
            entry = self._files.get(path)
            meta = entry.meta if entry is not None else None
            if meta is not None and (best is None or meta.mtime > best.mtime):
                best = meta
        return best

    def refresh(self) -> set[str]:
        """Stat every transcript; re-read changed ones. Returns the session ids touched."""
        found: set[Path] = set()
        touched: set[str] = set()
        try:
            project_dirs = [e for e in os.scandir(self.projects_dir) if e.is_dir()]
        except FileNotFoundError:
            project_dirs = []
        except OSError as exc:
            logger.warning("cannot list %s: %s", self.projects_dir, exc)
            self.unreadable[self.projects_dir] = exc.strerror or str(exc)
            project_dirs = []
        else:
            self.unreadable.pop(self.projects_dir, None)
        for project in project_dirs:
            try:
                children = list(os.scandir(project.path))
            except OSError as exc:
                self.unreadable[Path(project.path)] = exc.strerror or str(exc)
                continue
            self.unreadable.pop(Path(project.path), None)
            for child in children:
                if child.name.endswith(".jsonl") and _sdk.validate_uuid(child.name[:-6]):
                    path = Path(child.path)
                    found.add(path)
                    touched |= self._update(path)
        for gone in [p for p in self._files if p not in found]:
            touched |= self._forget(gone)
        for gone in [p for p in self.unreadable if p.suffix == ".jsonl" and p not in found]:
            del self.unreadable[gone]
        return touched

    def refresh_paths(self, paths: Iterable[Path]) -> set[str]:
        """Re-check only these paths (from a file watcher). Returns the session ids touched."""
        touched: set[str] = set()
        for path in paths:
            if path.suffix != ".jsonl" or not _sdk.validate_uuid(path.stem):
                continue
            if path.parent.parent != self.projects_dir:
                continue  # subagent transcripts live deeper; they are not sessions
            if path.exists() or path.is_symlink():
                touched |= self._update(path)
            else:
                touched |= self._forget(path)
                self.unreadable.pop(path, None)
        return touched

    def _forget(self, path: Path) -> set[str]:
        entry = self._files.pop(path, None)
        paths = self._paths_by_session.get(path.stem)
        if paths is not None:
            paths.discard(path)
            if not paths:
                del self._paths_by_session[path.stem]
        return {path.stem} if entry is not None and entry.meta is not None else set()

    def _update(self, path: Path) -> set[str]:
        session_id = path.stem
        try:
            st = path.stat()
        except OSError as exc:
            return self._fail(path, exc.strerror or str(exc))
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        old = self._files.get(path)
        if old is not None and old.key == key:
            return set()
        if not path.is_file():
            return self._fail(path, "not a regular file")
        try:
            meta = self._read(path, session_id)
        except OSError as exc:
            return self._fail(path, exc.strerror or str(exc))
        self.unreadable.pop(path, None)
        self._files[path] = _Entry(key=key, meta=meta)
        self._paths_by_session.setdefault(session_id, set()).add(path)
        was_listed = old is not None and old.meta is not None
        return {session_id} if (meta is not None or was_listed) else set()

    def _fail(self, path: Path, reason: str) -> set[str]:
        if path not in self.unreadable:
            logger.warning("cannot read transcript %s: %s", path, reason)
        self.unreadable[path] = reason
        return self._forget(path)

    def _read(self, path: Path, session_id: str) -> TranscriptMeta | None:
        buf = _sdk.LITE_READ_BUF_SIZE
        with path.open("rb") as fh:
            st = os.fstat(fh.fileno())
            head = fh.read(buf)
            if not head:
                return None
            if st.st_size > buf:
                # Same window as the SDK's lite read: the last 64 KiB, even if it overlaps.
                fh.seek(st.st_size - buf)
                tail = fh.read(buf)
            else:
                tail = head
        self.stats.files_read += 1
        self.stats.bytes_read += len(head) + (len(tail) if tail is not head else 0)
        head_text = head.decode("utf-8", errors="replace")
        tail_text = tail.decode("utf-8", errors="replace")
        info = _sdk.parse_lite(
            session_id,
            mtime_ms=int(st.st_mtime * 1000),
            size=st.st_size,
            head=head_text,
            tail=tail_text,
        )
        if info is None:
            return None
        mtime = datetime.fromtimestamp(st.st_mtime, tz=UTC)
        return TranscriptMeta(
            session_id=session_id,
            path=path,
            mtime=mtime,
            last_entry_at=_last_timestamp(tail) or mtime,
            size=st.st_size,
            cwd=info.cwd,
            title=info.custom_title or info.first_prompt or info.summary,
            first_prompt=info.first_prompt,
            created_at=_ms_to_dt(info.created_at),
            git_branch=info.git_branch,
            total_cost_usd=_cost_from_tail(tail),
        )
