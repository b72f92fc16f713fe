"""The prompts cctui sent a session, numbered from 0: what a rewind is aimed at.

Each prompt goes to the CLI with a uuid made here; Claude Code keeps it as the user
message's id and names the prompt's file checkpoint after it. The log is a file of its own
per session (``<state_dir>/prompts/<session id>.jsonl``), a line appended per prompt and per
prompt the CLI took in, so the numbering survives a resume and a restart of cctui. (It used
to live in the session's registry record, which every save reads and writes whole: a session
with thousands of prompts made each save, on the event loop, slower than the last.)
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cctui.core.session.models import PromptMark
from cctui.fs.atomic import append_line, write_atomic

log = logging.getLogger(__name__)

PREVIEW_MAX = 120
"""Characters of a prompt kept in the log (one line)."""


def prompt_log_path(state_dir: Path, session_id: str) -> Path:
    """Where a session's prompt log is kept."""
    return state_dir / "prompts" / f"{session_id}.jsonl"


class PromptLog:
    """A session's prompts, oldest first; indices never change once given.

    With a ``path`` the log is read from it on first use (a registry of hundreds of sessions
    reads none of them until one is rewound or sent to), and every change is appended to it.
    """

    def __init__(self, marks: Iterable[PromptMark] = (), *, path: Path | None = None) -> None:
        self._path = path
        self._legacy = tuple(marks)
        """Prompts a registry record from before the log had its own file carried."""
        self._by_index: dict[int, PromptMark] | None = None
        """Every prompt by index, in order (None until read); indices only grow."""
        self._by_id: dict[str, PromptMark] = {}

    def _loaded(self) -> dict[int, PromptMark]:
        if self._by_index is None:
            self._by_index = {}
            for mark in self._read():
                self._keep(mark)
        return self._by_index

    def _read(self) -> list[PromptMark]:
        path = self._path
        if path is None:
            return list(self._legacy)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            if self._legacy:
                self._migrate(path)
            return list(self._legacy)
        except OSError as exc:
            log.warning("cannot read the prompt log %s: %s", path, exc)
            return list(self._legacy)
        marks: dict[str, PromptMark] = {}
        bad = 0
        for line in raw.splitlines():
            try:
                item: Any = json.loads(line)
                if isinstance(item, dict) and set(item) == {"accepted"}:
                    taken = marks.get(str(item["accepted"]))
                    if taken is not None:
                        marks[taken.id] = taken.model_copy(update={"accepted": True})
                    continue
                mark = PromptMark.model_validate(item)
            except (ValueError, ValidationError):
                bad += 1  # a line cut short by a crash, or written by hand
                continue
            marks[mark.id] = mark
        if bad:
            log.warning("skipped %d unreadable line(s) of the prompt log %s", bad, path)
        return sorted(marks.values(), key=lambda m: m.index)

    def _migrate(self, path: Path) -> None:
        body = "".join(m.model_dump_json() + "\n" for m in self._legacy)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, body)
        except OSError as exc:
            log.warning("cannot write the prompt log %s: %s", path, exc)

    def _keep(self, mark: PromptMark) -> None:
        by_index = self._loaded()
        old = by_index.get(mark.index)
        if old is not None:
            self._by_id.pop(old.id, None)
        by_index[mark.index] = mark  # a replaced mark keeps its place
        self._by_id[mark.id] = mark

    def _append(self, record: dict[str, Any] | PromptMark) -> None:
        if self._path is None:
            return
        line = record.model_dump_json() if isinstance(record, PromptMark) else json.dumps(record)
        try:
            append_line(self._path, (line + "\n").encode())
        except OSError as exc:
            # The prompt still goes out and is known this run; only a restart forgets it.
            log.warning("cannot append to the prompt log %s: %s", self._path, exc)

    @property
    def marks(self) -> tuple[PromptMark, ...]:
        """Every prompt, oldest first."""
        return tuple(self._loaded().values())

    def __len__(self) -> int:
        return len(self._loaded())

    def add(self, text: str) -> PromptMark:
        """Record a prompt about to be sent; its ``id`` is the uuid to send it with."""
        by_index = self._loaded()
        line = " ".join(text.split())
        if len(line) > PREVIEW_MAX:
            line = line[: PREVIEW_MAX - 1] + "…"
        index = next(reversed(by_index)) + 1 if by_index else 0
        mark = PromptMark(index=index, id=str(uuid.uuid4()), text=line, sent_at=datetime.now(UTC))
        self._keep(mark)
        self._append(mark)
        return mark

    def accept(self, prompt_id: str) -> bool:
        """The CLI echoed ``prompt_id``: mark it taken in. False for an id cctui never sent."""
        self._loaded()
        mark = self._by_id.get(prompt_id)
        if mark is None or mark.accepted:
            return False
        self._keep(mark.model_copy(update={"accepted": True}))
        self._append({"accepted": prompt_id})
        return True

    def find(self, prompt_id: str) -> PromptMark | None:
        """The prompt sent with this id, if cctui sent it."""
        self._loaded()
        return self._by_id.get(prompt_id)

    def at(self, index: int) -> PromptMark | None:
        """The prompt at ``index`` (from 0), if there is one."""
        return self._loaded().get(index)
