"""Tool inputs as a reader wants them: a Bash command as code, an Edit as a diff.

Everything returns textual ``Content`` styled with theme variables, so it reads the same in
dark and light themes without per-theme code.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from textual.content import Content

MAX_LINES = 400
"""Longer inputs are cut (a Write of a huge file must not freeze the modal)."""

_ADD = "$text-success on $success-muted"
_DEL = "$text-error on $error-muted"
_HUNK = "$text-accent"
_MUTED = "$text-muted"


def _cut(text: str, limit: int | None = MAX_LINES) -> tuple[str, int]:
    lines = text.splitlines()
    if limit is None or len(lines) <= limit:
        return text, 0
    return "\n".join(lines[:limit]), len(lines) - limit


def _more(hidden: int) -> Content:
    return Content.styled(f"… {hidden} more lines", _MUTED)


def code(
    text: str,
    *,
    language: str | None = None,
    path: str | None = None,
    limit: int | None = MAX_LINES,
) -> Content:
    """Syntax-highlighted code, cut to ``limit`` lines (None: all of it), saying so."""
    from textual.highlight import highlight  # here: pygments is not needed for a first frame

    shown, hidden = _cut(text, limit)
    try:
        body = highlight(shown, language=language, path=path)
    except Exception:  # pygments can choke on odd input; plain text is still useful
        body = Content(shown)
    return Content("\n").join([body, _more(hidden)]) if hidden else body


def diff(old: str, new: str, *, path: str = "", limit: int | None = MAX_LINES) -> Content:
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
    if limit is not None and len(lines) > limit:
        lines = [*lines[:limit], _more(len(lines) - limit)]
    return Content("\n").join(lines)


def _field(label: str, value: str) -> Content:
    return Content.assemble((f"{label} ", "bold"), value)


def _value(key: str, value: Any, limit: int | None) -> list[Content]:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    if "\n" in text:
        return [_field(key, ""), code(text, language="text", limit=limit)]
    return [_field(key, text)]


_SHOWN = {
    "Bash": ("command", "description"),
    "Edit": ("file_path", "old_string", "new_string", "replace_all"),
    "MultiEdit": ("file_path", "edits"),
    "Write": ("file_path", "content"),
}
"""The fields each special rendering shows; every other field is listed after it."""


def request_description(description: str | None, name: str, data: dict[str, Any]) -> str | None:
    """A permission request's description, unless ``tool_input`` draws it already (a Bash
    call's own ``description``, which the CLI also sends as the request's: it was shown
    twice, one line under the other)."""
    if not description:
        return None
    bash = name == "Bash" and isinstance(data.get("command"), str)
    if bash and description.strip() == str(data.get("description") or "").strip():
        return None
    return description


def tool_input(name: str, data: dict[str, Any], *, limit: int | None = MAX_LINES) -> Content:
    """The best rendering of one tool call's input: every field, long text cut to ``limit``
    lines with a note saying how many more (``None``: nothing is cut, for a pending input's
    modal)."""
    path = str(data.get("file_path") or data.get("notebook_path") or "")
    parts: list[Content] = []
    special = True
    if name == "Bash" and isinstance(data.get("command"), str):
        if data.get("description"):
            parts.append(Content.styled(str(data["description"]), _MUTED))
        parts.append(code(data["command"], language="bash", limit=limit))
    elif name == "Edit" and "old_string" in data:
        parts.append(_field("file", path))
        old, new = str(data.get("old_string", "")), str(data.get("new_string", ""))
        parts.append(diff(old, new, path=path, limit=limit))
        if data.get("replace_all"):
            parts.append(Content.styled("(every occurrence)", _MUTED))
    elif name == "MultiEdit" and isinstance(data.get("edits"), list):
        parts.append(_field("file", path))
        for edit in data["edits"]:
            if isinstance(edit, dict):
                old, new = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
                parts.append(diff(old, new, path=path, limit=limit))
                if edit.get("replace_all"):
                    parts.append(Content.styled("(every occurrence)", _MUTED))
    elif name == "Write" and "content" in data:
        parts.append(_field("file", path))
        parts.append(code(str(data["content"]), path=path or None, limit=limit))
    else:
        special = False
    shown = _SHOWN.get(name, ()) if special else ()
    for key, value in data.items():
        if key not in shown:
            parts += _value(key, value, limit)
    if not parts:
        parts.append(Content.styled("(no input)", _MUTED))
    return Content("\n").join(parts)


def result_text(text: str, limit: int = 40) -> Content:
    """A tool's output, cut to ``limit`` lines."""
    shown, hidden = _cut(text.rstrip(), limit)
    body = Content(shown) if shown else Content.styled("(no output)", _MUTED)
    return Content("\n").join([body, _more(hidden)]) if hidden else body
