"""The prompts cctui sent a session, numbered from 0: what a rewind is aimed at.

Each prompt goes to the CLI with a uuid made here; Claude Code keeps it as the user
message's id and names the prompt's file checkpoint after it. The log lives in the
session's registry record, so the numbering survives a resume and a restart of cctui.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

from cctui.core.models import PromptMark

PREVIEW_MAX = 120
"""Characters of a prompt kept in the log (one line)."""


class PromptLog:
    """A session's prompts, oldest first; indices never change once given."""

    def __init__(self, marks: Iterable[PromptMark] = ()) -> None:
        self._marks = list(marks)
        self._by_id = {m.id: m for m in self._marks}

    @property
    def marks(self) -> tuple[PromptMark, ...]:
        """Every prompt, oldest first."""
        return tuple(self._marks)

    def __len__(self) -> int:
        return len(self._marks)

    def add(self, text: str) -> PromptMark:
        """Record a prompt about to be sent; its ``id`` is the uuid to send it with."""
        line = " ".join(text.split())
        if len(line) > PREVIEW_MAX:
            line = line[: PREVIEW_MAX - 1] + "…"
        mark = PromptMark(
            index=len(self._marks), id=str(uuid.uuid4()), text=line, sent_at=datetime.now(UTC)
        )
        self._marks.append(mark)
        self._by_id[mark.id] = mark
        return mark

    def accept(self, prompt_id: str) -> bool:
        """The CLI echoed ``prompt_id``: mark it taken in. False for an id cctui never sent."""
        mark = self._by_id.get(prompt_id)
        if mark is None or mark.accepted:
            return False
        mark = mark.model_copy(update={"accepted": True})
        self._marks[mark.index] = mark
        self._by_id[mark.id] = mark
        return True

    def find(self, prompt_id: str) -> PromptMark | None:
        """The prompt sent with this id, if cctui sent it."""
        return self._by_id.get(prompt_id)

    def at(self, index: int) -> PromptMark | None:
        """The prompt at ``index`` (from 0), if there is one."""
        return self._marks[index] if 0 <= index < len(self._marks) else None
