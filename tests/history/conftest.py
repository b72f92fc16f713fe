"""Fake ``~/.claude`` trees built from the real samples in ``shared/research/samples``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "samples"

# The three sample transcripts: session id -> (file, cwd written inside it).
WRITE_ID = "3e6cc210-1d63-4132-bd18-a85f0d548b5f"
MULTI_ID = "119b4e30-892c-453f-a4a4-0cc930c9c9db"
INTERACTIVE_ID = "526386e5-73c4-47af-8221-0661fec3ccbf"
TRANSCRIPTS = {
    WRITE_ID: ("transcript-write-tool-with-hooks.jsonl", "<tmp>/ccp/proj"),
    MULTI_ID: ("transcript-multiturn-then-resumed.jsonl", "<tmp>/ccp/proj"),
    INTERACTIVE_ID: ("transcript-interactive.jsonl", "<tmp>/cci/proj"),
}


def encode_cwd(cwd: str) -> str:
    """The CLI's directory name for a cwd: every non-alphanumeric character becomes ``-``."""
    return "".join(c if c.isalnum() else "-" for c in cwd)


def transcript_path(home: Path, session_id: str, cwd: str) -> Path:
    return home / "projects" / encode_cwd(cwd) / f"{session_id}.jsonl"


def add_transcript(home: Path, session_id: str, sample: str | None = None, cwd: str = "") -> Path:
    """Copy a sample transcript in as ``session_id`` (ids inside are left as they are)."""
    name, sample_cwd = TRANSCRIPTS.get(session_id, (sample or "", cwd))
    path = transcript_path(home, session_id, cwd or sample_cwd)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLES / (sample or name), path)
    return path


def write_process(home: Path, pid: int, session_id: str, **extra: object) -> Path:
    d = home / "sessions"
    d.mkdir(parents=True, exist_ok=True)
    body = {
        "pid": pid,
        "sessionId": session_id,
        "cwd": "/work/x",
        "status": "busy",
        "startedAt": 1795332429033,
        "updatedAt": 1795332429245,
        "kind": "interactive",
    }
    body.update(extra)
    path = d / f"{pid}.json"
    path.write_text(json.dumps(body))
    return path


def history_line(display: str, ts_ms: int, project: str, session_id: str | None) -> str:
    data: dict[str, object] = {
        "display": display,
        "pastedContents": {},
        "timestamp": ts_ms,
        "project": project,
    }
    if session_id is not None:
        data["sessionId"] = session_id
    return json.dumps(data) + "\n"


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """A ``~/.claude`` with the three sample transcripts and the sample history.jsonl."""
    home = tmp_path / "claude"
    for sid in TRANSCRIPTS:
        add_transcript(home, sid)
    shutil.copyfile(SAMPLES / "history.jsonl", home / "history.jsonl")
    return home


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


MakeHome = Callable[[], Path]
