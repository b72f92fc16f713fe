"""Claude Code's files on disk that the engine needs: transcripts (to resume a session
cctui did not start) and plan files (ExitPlanMode's plan text since CLI 2.1.330).

Transcript lookup goes through claude-agent-sdk, which knows the file layout; the SDK
reads ``CLAUDE_CONFIG_DIR`` from the environment, so when cctui's configured directory
differs we scan it directly.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cctui.timestamps import parse_iso

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TranscriptInfo:
    """What resuming an on-disk session needs."""

    session_id: str
    cwd: Path
    title: str | None = None
    last_activity: datetime | None = None
    """When the transcript was last written (what "active" shows for it)."""
    created_at: datetime | None = None
    """When the session began (its first entry's time), if the transcript says."""


def find_session(session_id: str, config_dir: Path) -> TranscriptInfo | None:
    """The transcript of ``session_id`` under ``config_dir``, or None if there is none."""
    from claude_agent_sdk import get_session_info

    env_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    if env_dir and Path(env_dir).resolve() == config_dir.resolve():
        try:
            info = get_session_info(session_id)
        except Exception:  # the SDK reads user files; a bad one must not crash a send
            log.exception("get_session_info(%s) failed", session_id)
            info = None
        if info is not None and info.cwd:
            written = datetime.fromtimestamp(info.last_modified / 1000, UTC)
            began = datetime.fromtimestamp(info.created_at / 1000, UTC) if info.created_at else None
            return TranscriptInfo(
                session_id, Path(info.cwd), info.summary or None, written, created_at=began
            )
    return _scan(session_id, config_dir)


def _scan(session_id: str, config_dir: Path) -> TranscriptInfo | None:
    if "/" in session_id or session_id.startswith("."):
        return None
    projects = config_dir / "projects"
    try:
        candidates = [d / f"{session_id}.jsonl" for d in projects.iterdir() if d.is_dir()]
    except OSError:
        return None
    for path in candidates:
        try:
            # errors="replace": a transcript with bytes that are not UTF-8 is still resumable.
            with path.open(encoding="utf-8", errors="replace") as fh:
                began: datetime | None = None
                for _, line in zip(range(200), fh, strict=False):
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(entry, dict):
                        continue
                    began = began or parse_iso(entry.get("timestamp"))
                    if isinstance(entry.get("cwd"), str):
                        written = datetime.fromtimestamp(path.stat().st_mtime, UTC)
                        return TranscriptInfo(
                            session_id, Path(entry["cwd"]), None, written, created_at=began
                        )
        except OSError:
            continue
    return None


PLAN_WRITERS = ("Write", "Edit", "MultiEdit")
"""Tools the model writes its plan file with."""


def read_plan(config_dir: Path, file_path: str) -> str | None:
    """The text of a plan file, if ``file_path`` is a ``.md`` directly under
    ``<config_dir>/plans`` (a session's tool input is not trusted to name anything else)."""
    plans = (config_dir / "plans").resolve()
    try:
        path = Path(file_path).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if path.parent != plans or path.suffix != ".md":
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
