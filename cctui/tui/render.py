"""Tool inputs as a reader wants them: a Bash command as code, an Edit as a diff.

Everything returns textual ``Content`` styled with theme variables, so it reads the same in
dark and light themes without per-theme code.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from textual.content import Content
from textual.highlight import highlight

MAX_LINES = 400
"""Longer inputs are cut (a Write of a huge file must not freeze the modal)."""

_ADD = "$text-success on $success-muted"
_DEL = "$text-error on $error-muted"
_HUNK = "$text-accent"
_MUTED = "$text-muted"


def _cut(text: str, limit: int = MAX_LINES) -> tuple[str, int]:
    lines = text.splitlines()
    if len(lines) <= limit:
        return text, 0
    return "\n".join(lines[:limit]), len(lines) - limit


def _more(hidden: int) -> Content:
    return Content.styled(f"… {hidden} more lines", _MUTED)


def code(text: str, *, language: str | None = None, path: str | None = None) -> Content:
    """Syntax-highlighted code, cut to ``MAX_LINES``."""
    shown, hidden = _cut(text)
    try:
        body = highlight(shown, language=language, path=path)
    except Exception:  # pygments can choke on odd input; plain text is still useful
        body = Content(shown)
    return Content("\n").join([body, _more(hidden)]) if hidden else body


def diff(old: str, new: str, *, path: str = "") -> Content:
    """A unified diff of ``old`` -> ``new`` with added and removed lines coloured."""
    lines: list[Content] = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            lines.append(Content.styled(line, _HUNK))
        elif line.startswith("+"):
            lines.append(Content.styled(line, _ADD))
        elif line.startswith("-"):
            lines.append(Content.styled(line, _DEL))
        else:
            lines.append(Content(line))
    if not lines:
        lines.append(Content.styled("(no change)", _MUTED))
    hidden = max(0, len(lines) - MAX_LINES)
    lines = lines[:MAX_LINES] + ([_more(hidden)] if hidden else [])
    return Content("\n").join(lines)


def _field(label: str, value: str) -> Content:
    return Content.assemble((f"{label} ", "bold"), value)


def tool_input(name: str, data: dict[str, Any]) -> Content:
    """The best rendering of one tool call's input."""
    path = str(data.get("file_path") or data.get("notebook_path") or "")
    parts: list[Content] = []
    if name == "Bash" and isinstance(data.get("command"), str):
        if data.get("description"):
            parts.append(Content.styled(str(data["description"]), _MUTED))
        parts.append(code(data["command"], language="bash"))
    elif name == "Edit" and "old_string" in data:
        parts.append(_field("file", path))
        parts.append(
            diff(str(data.get("old_string", "")), str(data.get("new_string", "")), path=path)
        )
        if data.get("replace_all"):
            parts.append(Content.styled("(every occurrence)", _MUTED))
    elif name == "MultiEdit" and isinstance(data.get("edits"), list):
        parts.append(_field("file", path))
        for edit in data["edits"]:
            if isinstance(edit, dict):
                parts.append(
                    diff(
                        str(edit.get("old_string", "")), str(edit.get("new_string", "")), path=path
                    )
                )
    elif name == "Write" and "content" in data:
        parts.append(_field("file", path))
        parts.append(code(str(data["content"]), path=path or None))
    else:
        for key, value in data.items():
            text = (
                value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
            )
            if "\n" in text:
                parts.append(_field(key, ""))
                parts.append(code(text, language="text"))
            else:
                parts.append(_field(key, text))
        if not parts:
            parts.append(Content.styled("(no input)", _MUTED))
    return Content("\n").join(parts)


def result_text(text: str, limit: int = 40) -> Content:
    """A tool's output, cut to ``limit`` lines."""
    shown, hidden = _cut(text.rstrip(), limit)
    body = Content(shown) if shown else Content.styled("(no output)", _MUTED)
    return Content("\n").join([body, _more(hidden)]) if hidden else body
