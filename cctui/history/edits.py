"""The files a session's edit tools wrote, read from its transcript: for sessions outside
git, whose changes no repository records.

Claude Code stores each Write/Edit/MultiEdit/NotebookEdit result with a ``toolUseResult``
that names the file (``filePath``) and, for an edit, the whole file before it
(``originalFile``; null or absent when the tool created the file). The first one seen per
file is its content before the session touched it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
"""A transcript bigger than this is read up to here (the edits of a very long session may
be missed past it)."""


@dataclass(frozen=True)
class EditedFile:
    """One file the session's tools wrote."""

    path: Path
    original: str | None
    """Its text before the session's first edit; None when a tool created it."""


def edited_files(transcript: Path) -> list[EditedFile]:
    """Files written by the session's edit tools, in the order first written."""
    seen: dict[Path, EditedFile] = {}
    try:
        with transcript.open("rb") as fh:
            data = fh.read(MAX_TRANSCRIPT_BYTES)
    except OSError:
        return []
    for raw in data.splitlines():
        if b'"toolUseResult"' not in raw or b"filePath" not in raw:
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        result = entry.get("toolUseResult") if isinstance(entry, dict) else None
        if not isinstance(result, dict):
            continue
        target = result.get("filePath")
        if not isinstance(target, str) or not target:
            continue
        path = Path(target)
        if path in seen:
            continue
        original = result.get("originalFile")
        if result.get("type") == "create" or not isinstance(original, str):
            original = None
        seen[path] = EditedFile(path, original)
    return list(seen.values())
