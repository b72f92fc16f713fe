"""A session's output, also appended to a file its creator named (seed 004's ``log_file``).

One line per finished thing: the messages sent, each complete assistant message, each tool
call once it ran (or was denied), decisions, results, errors and state changes, each with
its UTC time. Streaming deltas are not written; the complete message is.

Where the file may be: inside the session's working directory (never under ``.git`` or
``.claude``, where an appended line could become a hook or a setting) or inside cctui's own
``session-logs`` directory, by the one path policy of ``fs.safepath``. It is opened
without following a symlink, created mode 0600, and only ever appended to.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from cctui.core.session.event_text import event_text
from cctui.core.session.events import (
    AssistantTextEvent,
    InputRequestedEvent,
    SessionEvent,
    ToolUseEvent,
)
from cctui.errors import ValidationFailed
from cctui.fs.errors import PathRefused
from cctui.fs.safepath import fold_name, locate, shown
from cctui.timestamps import iso_z

log = logging.getLogger(__name__)

LOGS_DIR = "session-logs"
"""Under the state directory: where a log file outside every project may go."""


def check_log_file(raw: str, cwd: Path, state_dir: Path) -> Path:
    """Where ``raw`` (relative: to ``cwd``) may be written, resolved.

    The path rules are the project tools' (``fs.safepath.locate``: no ``..``, no control or
    lookalike characters, links resolved, never ``.git``), plus: never ``.claude``.

    Raises:
        ValidationFailed: outside the session's directory and cctui's ``session-logs``, in
            a guarded directory, or not a regular file.
    """
    logs = state_dir / LOGS_DIR
    try:
        found = locate(raw, [cwd, logs], base=cwd)
    except PathRefused as exc:
        raise ValidationFailed(
            f"log_file {shown(raw)!r} refused: {exc.why} (it must be inside the session's "
            f"working directory {cwd} or cctui's log directory {logs}).",
            suggestion="Pass a path inside the session's project, e.g. logs/session.log.",
        ) from None
    if ".claude" in {fold_name(p) for p in found.parts[:-1]}:
        raise ValidationFailed(
            f"log_file {shown(raw)!r} is inside .claude, where an appended line could change "
            "Claude Code's settings.",
            suggestion="Choose a path elsewhere in the project, e.g. logs/session.log.",
        )
    if not found.parts or (found.path.exists() and not found.path.is_file()):
        raise ValidationFailed(f"log_file {shown(raw)!r} is not a regular file.")
    return found.path


def log_line(ev: SessionEvent) -> str | None:
    """The line for ``ev``, or None when it is not written (a delta, a running tool)."""
    match ev:
        case AssistantTextEvent(complete=False) | ToolUseEvent(state="running"):
            return None
        case ToolUseEvent():
            # The file keeps a call whole; the MCP lines cut it short.
            tail = f" -> {ev.result}" if ev.result else ""
            text = f"[tool {ev.state}] {ev.name} {json.dumps(ev.input, ensure_ascii=False)}{tail}"
        case InputRequestedEvent():
            text = f"[needs {ev.input.kind}] {ev.input.tool_name} (input {ev.input.id})"
        case _:
            text = event_text(ev)  # every other kind as the MCP output lines say it
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
