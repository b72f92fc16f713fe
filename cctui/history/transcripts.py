"""A transcript's list metadata from its head and tail (64 KiB each, the SDK's lite read).

The indexer calls ``read_meta`` whenever a transcript changed and stores the result as the
session's card, so the list never needs more than the index to draw.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cctui.history import _sdk
from cctui.timestamps import parse_iso

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
    """The CLI's own last ``cost-state`` total, else the index's sum over the session's replies
    (subagents included); ``None`` when neither is known."""
    unpriced_replies: int = 0
    """Replies of a model with no known price (their tokens count, their cost is unknown)."""


@dataclass(slots=True)
class ReadStats:
    """Counters the tests and the benchmark use to prove reads are incremental."""

    files_read: int = 0
    bytes_read: int = 0


def _ms_to_dt(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def _last_timestamp(tail: bytes) -> datetime | None:
    """The last ISO ``"timestamp"`` in the tail (one rfind; the SDK's scan visits every one)."""
    key = b'"timestamp":"'
    pos = tail.rfind(key)
    if pos < 0:
        return None
    start = pos + len(key)
    end = tail.find(b'"', start, start + 40)
    return parse_iso(tail[start:end].decode("ascii", "replace")) if end > start else None


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


def read_meta(path: Path, session_id: str, stats: ReadStats | None = None) -> TranscriptMeta | None:
    """The list metadata of one transcript; ``None`` for sidechain or metadata-only files.

    Raises:
        OSError: the file cannot be read.
    """
    buf = _sdk.lite_read_size()
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
    if stats is not None:
        stats.files_read += 1
        stats.bytes_read += len(head) + (len(tail) if tail is not head else 0)
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
