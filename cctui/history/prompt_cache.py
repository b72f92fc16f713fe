"""What history.jsonl's prompts came to, kept between runs beside the index file.

history.jsonl is not in the index (it is small next to the transcripts, and its lines change
no search), so every start parsed it whole: 5,000 prompts cost the TUI's first frame about
0.1 s of CPU, and a long-used CLI writes tens of thousands. A run now leaves what it read:
each session's prompts folded (``PromptFold``), the prompts without a session id, the lines
skipped, and where it stopped (inode, offset, a digest of the 4 KiB before the offset). The
next run restores that and reads only the lines appended since; a file that is not the
one read (rotated, truncated, rewritten) is read whole, as without a cache.

Prompts without a session id are kept as read, not as attributed: the run that restores them
gives them to the transcripts of that moment, as a run reading the file whole would. A cache
that is missing, unreadable, of another version or of another history file is ignored, and
the next save replaces it. Written atomically (``cctui.fs.atomic``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from cctui.fs.atomic import write_atomic
from cctui.history.models import HistoryPrompt
from cctui.history.prompts import HistoryFileReader, PromptFold, title_text

logger = logging.getLogger(__name__)

VERSION = 1
"""Bumped when what is stored, or how it is folded, changes: an older cache is ignored."""
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


@dataclass(slots=True)
class PromptState:
    """What history.jsonl has given so far (``HistoryIndex`` keeps one)."""

    folds: dict[str, PromptFold]
    """Per session id, its prompts that name it, in file order."""
    idless: list[HistoryPrompt]
    """Every prompt without a session id (older CLIs), as read (attributed or not)."""
    skipped: int = 0
    """Corrupt lines read."""


def save(path: Path, reader: HistoryFileReader, state: PromptState) -> None:
    """Keep ``state``, read by ``reader`` up to its ``consumed`` offset, in ``path``.

    Raises:
        OSError: the file cannot be written (the old one, if any, is left whole).
    """
    if reader.inode is None:
        return  # no history file read
    tail_len, tail_sha1 = reader.tail_digest()
    data = {
        "version": VERSION,
        "history": str(reader.path),
        "inode": reader.inode,
        "offset": reader.consumed,
        "tail_len": tail_len,
        "tail_sha1": tail_sha1,
        "skipped": state.skipped,
        "sessions": [
            [sid, _us(f.first), _us(f.last), f.count, f.project, f.title]
            for sid, f in state.folds.items()
        ],
        # The title's text is all a fold takes from a prompt's words.
        "idless": [[title_text(p.display), _us(p.timestamp), p.project] for p in state.idless],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, orjson.dumps(data))


def restore(path: Path, reader: HistoryFileReader) -> PromptState | None:
    """The state kept in ``path`` if it is of ``reader``'s file as it still is (``reader``
    then resumes where that run stopped); None otherwise (``reader`` is left as it was)."""
    try:
        data: Any = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        logger.info("prompt cache %s not read (%s): history.jsonl is read whole", path, exc)
        return None
    try:
        if data.get("version") != VERSION or data.get("history") != str(reader.path):
            return None
        state = PromptState(
            folds={row[0]: _fold(row) for row in data["sessions"]},
            idless=[
                HistoryPrompt.model_construct(
                    display=text, timestamp=_dt(ts), project=project, session_id=None
                )
                for text, ts, project in data["idless"]
                if _text(text) and _text(project, none=True)
            ],
            skipped=int(data["skipped"]),
        )
        where = (int(data["inode"]), int(data["offset"]), int(data["tail_len"]))
        tail_sha1 = str(data["tail_sha1"])
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError) as exc:
        logger.info("prompt cache %s is damaged (%s): history.jsonl is read whole", path, exc)
        return None
    if not reader.resume(*where, tail_sha1):
        return None  # the file changed under it (or is gone): read whole
    return state


def _fold(row: list[Any]) -> PromptFold:
    sid, first, last, count, project, title = row
    if not isinstance(sid, str) or not isinstance(count, int):
        raise TypeError("a session's id and count")
    if not all(v is None or isinstance(v, str) for v in (project, title)):
        raise TypeError("a session's project and title")
    return PromptFold(_dt(first), _dt(last), count, project, title)


def _us(when: datetime) -> int:
    """Microseconds since the epoch, exactly (a float of seconds would round)."""
    return (when - _EPOCH) // _US


def _text(value: object, *, none: bool = False) -> bool:
    if isinstance(value, str) or (none and value is None):
        return True
    raise TypeError(f"text, not {type(value).__name__}")


def _dt(us: int) -> datetime:
    if not isinstance(us, int):
        raise TypeError(f"a time in microseconds, not {type(us).__name__}")
    return _EPOCH + timedelta(microseconds=us)
