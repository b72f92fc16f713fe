"""A session's output, also appended to a file its creator named (seed 004's ``log_file``).

One line per finished thing: the messages sent, each complete assistant message, each tool
call once it ran (or was denied), decisions, results, errors and state changes, each with
its UTC time. Streaming deltas are not written; the complete message is.

Where the file may be: inside the session's working directory (never under ``.git`` or
``.claude``, where an appended line could become a hook or a setting) or inside cctui's own
``session-logs`` directory. It is opened without following a symlink, created mode 0600,
and only ever appended to.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from cctui.core.context import resolve_inside
from cctui.core.events import (
    AssistantTextEvent,
    ErrorEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.errors import ValidationFailed
from cctui.timestamps import iso_z

log = logging.getLogger(__name__)

LOGS_DIR = "session-logs"
"""Under the state directory: where a log file outside every project may go."""
_GUARDED = {".git", ".claude"}


def check_log_file(raw: str, cwd: Path, state_dir: Path) -> Path:
    """Where ``raw`` (relative: to ``cwd``) may be written, resolved.

    Raises:
        ValidationFailed: outside the session's directory and cctui's ``session-logs``, in
            a guarded directory, or not a regular file.
    """
    logs = state_dir / LOGS_DIR
    candidate = Path(raw).expanduser()
    path: Path | None = None
    for root in (cwd, logs):
        try:
            path = resolve_inside(root, str(candidate))
        except ValidationFailed:
            continue
        base = root.resolve()
        if _GUARDED & set(path.relative_to(base).parts):
            raise ValidationFailed(
                f"log_file {raw!r} is inside .git or .claude, where an appended line could "
                "change what runs.",
                suggestion="Choose a path elsewhere in the project, e.g. logs/session.log.",
            )
        break
    if path is None:
        raise ValidationFailed(
            f"log_file {raw!r} is outside the session's working directory ({cwd}) and "
            f"cctui's log directory ({logs}).",
            suggestion="Pass a path inside the session's project (a relative path is best).",
        )
    if path.exists() and not path.is_file():
        raise ValidationFailed(f"log_file {raw!r} exists and is not a regular file.")
    return path


def log_line(ev: SessionEvent) -> str | None:
    """The line for ``ev``, or None when it is not written (a delta, a running tool)."""
    match ev:
        case UserMessageEvent():
            text = f"> {ev.text}"
        case AssistantTextEvent():
            if not ev.complete:
                return None
            text = ev.text
        case ToolUseEvent():
            if ev.state == "running":
                return None
            tail = f" -> {ev.result}" if ev.result else ""
            text = f"[tool {ev.state}] {ev.name} {json.dumps(ev.input, ensure_ascii=False)}{tail}"
        case InputRequestedEvent():
            text = f"[needs {ev.input.kind}] {ev.input.tool_name} (input {ev.input.id})"
        case InputResolvedEvent():
            text = f"[{ev.decision} by {ev.decided_by}] input {ev.input_id} {ev.message}".rstrip()
        case ResultEvent():
            text = f"[turn {'error' if ev.is_error else 'done'}] {ev.result or ''}".rstrip()
        case StatusChanged():
            text = f"[status] {ev.status}" + (f": {ev.error}" if ev.error else "")
        case ErrorEvent():
            text = f"[error] {ev.message}"
    return f"{iso_z(ev.at)} {text}\n"


def append(path: Path, ev: SessionEvent) -> None:
    """Append ``ev``'s line to ``path``; a failure is logged, never raised (the session goes
    on whether or not its log can be written)."""
    line = log_line(ev)
    if line is None:
        return
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, line.encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("session log %s cannot be written: %s", path, exc.strerror)
