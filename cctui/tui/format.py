"""Small text renderings shared by widgets: ages, costs, status badges, tool summaries."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cctui.tui import clock

# Glyph and theme variable per status; "past" is a session known only from disk.
BADGES: dict[str, tuple[str, str, str]] = {
    "starting": ("◌", "starting", "text-primary"),
    "running": ("●", "running", "text-primary"),
    "waiting_for_input": ("◆", "waiting", "text-warning"),
    "idle": ("○", "idle", "text-success"),
    "completed": ("✓", "done", "foreground-muted"),
    "interrupted": ("■", "stopped", "text-secondary"),
    "error": ("✗", "error", "text-error"),
    "queued": ("◷", "queued", "text-secondary"),
    "paused_usage_limit": ("‖", "paused", "text-warning"),
    "cancelled": ("⊘", "cancelled", "foreground-muted"),
    "past": ("·", "past", "foreground-muted"),
}


UNSEEN = ("◉", "finished", "text-primary")
"""A turn that ended while nobody looked ("done, not seen yet"; ``tui.attention``)."""


INTERRUPTED_LIVE = ("■", "interrupted", "text-secondary")
"""An interrupted turn whose process still runs (the next message goes straight to it); the
same status with no process reads "stopped" (killed, or ended since)."""


def badge(status: str, *, live: bool = False) -> tuple[str, str, str]:
    """(glyph, label, theme variable) for a status value; ``live``: a process has it open."""
    if status == "interrupted" and live:
        return INTERRUPTED_LIVE
    return BADGES.get(status, ("?", status, "foreground-muted"))


def row_badge(status: str, *, unseen: bool = False, live: bool = False) -> tuple[str, str, str]:
    """``badge``, or the unseen one for a finished turn nobody looked at (a failure keeps
    its own badge: it says more)."""
    return UNSEEN if unseen and status != "error" else badge(status, live=live)


def age(when: datetime | None) -> str:
    """A compact relative time: ``now`` (within the minute), ``5m``, ``3h``, ``2d``, else
    ``Nov 02``.

    No seconds: the session list shows this for every row, and a column counting seconds
    would repaint every row active in the last minute, every second.
    """
    if when is None:
        return ""
    seconds = (clock.now() - when).total_seconds()
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    if seconds < 30 * 86400:
        return f"{int(seconds // 86400)}d"
    return when.astimezone(clock.now().tzinfo).strftime("%b %d")


def age_changes_at(when: datetime | None) -> datetime | None:
    """When ``age(when)`` will next read differently (None: never; a date stays a date)."""
    if when is None:
        return None
    seconds = (clock.now() - when).total_seconds()
    if seconds < 60:
        return when + timedelta(seconds=60)
    for size, below in ((60, 3600), (3600, 86400), (86400, 30 * 86400)):
        if seconds < below:
            return when + timedelta(seconds=(seconds // size + 1) * size)
    return None


def waited_changes_at(since: datetime | None) -> datetime | None:
    """When ``waited(since)`` will next read differently."""
    if since is None:
        return None
    seconds = max(0.0, (clock.now() - since).total_seconds())
    size = next((s for s, below in ((1, 60), (60, 3600), (3600, 86400)) if seconds < below), 86400)
    return since + timedelta(seconds=(seconds // size + 1) * size)


def waited(since: datetime | None) -> str:
    """How long something has waited, compact and never "now": ``7s``, ``3m``, ``2h``, ``4d``."""
    if since is None:
        return ""
    seconds = max(0, int((clock.now() - since).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def cost(usd: float | None) -> str:
    """``$0.042``-style cost; blank when unknown or zero."""
    if not usd:
        return ""
    return f"${usd:.3f}" if usd < 1 else f"${usd:.2f}"


def duration(ms: int) -> str:
    """``850ms``, ``4.2s``, ``3m 05s``."""
    if ms < 1000:
        return f"{ms}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    return f"{int(seconds // 60)}m {int(seconds % 60):02d}s"


def one_line(text: str, width: int = 80) -> str:
    """First line of ``text``, cut to ``width`` with an ellipsis."""
    line = " ".join(text.strip().split("\n", 1)[0].split())
    return line if len(line) <= width else line[: width - 1] + "…"


def project_name(cwd: Path | str | None, label: str | None = None) -> str:
    """The label a user knows a project by: its configured name, else the directory's name."""
    if label:
        return label
    if cwd is None:
        return ""
    return Path(cwd).name or str(cwd)


def tool_summary(name: str, tool_input: dict[str, Any], width: int = 70) -> str:
    """The one argument that says what a tool call does (command, path, pattern, url)."""
    if name == "Edit" and isinstance(tool_input.get("file_path"), str):
        old = str(tool_input.get("old_string", "")).count("\n") + 1
        new = str(tool_input.get("new_string", "")).count("\n") + 1
        return one_line(f"{tool_input['file_path']}  −{old} +{new}", width)
    questions = tool_input.get("questions")
    if isinstance(questions, list) and questions and isinstance(questions[0], dict):
        return one_line(str(questions[0].get("question", "")), width)
    for key in (
        "command",
        "file_path",
        "notebook_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
        "prompt",
        "plan",
    ):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return one_line(value.lstrip("# \n"), width)
    if not tool_input:
        return ""
    return one_line(json.dumps(tool_input, ensure_ascii=False), width)


def pending_summary(
    kind: str,
    tool_name: str,
    tool_input: dict[str, Any],
    plan: str | None,
    questions: tuple[str, ...],
    width: int = 60,
) -> str:
    """One line saying what a pending input asks."""
    if kind == "plan_review":
        heading = next((ln.lstrip("# ") for ln in (plan or "").splitlines() if ln.strip()), "")
        return one_line(heading or "(empty plan)", width)
    if kind == "user_question":
        return one_line(" · ".join(questions) or "(no question)", width)
    return tool_summary(tool_name, tool_input, width)
