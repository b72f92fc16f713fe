"""The spares a cctui hides, published for the other processes that list sessions.

A spare's ``claude`` writes its ``sessions/<pid>.json`` like any other, and ``cctui sessions``,
another cctui or ``cctui serve`` would list it as a live idle session (and a client could
message it) while a person is still writing its first prompt in the form. So while a cctui
hides a spare, it keeps an empty file ``<state dir>/spares/<owner pid>.<session id>``: the name
is the whole record, so creating it is atomic, and one whose owner is gone hides nothing.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from cctui.pids import pid_alive

SPARES_DIR = "spares"
"""Where the records live, under the state directory."""


def _record(state_dir: Path, session_id: str) -> Path:
    return state_dir / SPARES_DIR / f"{os.getpid()}.{session_id}"


def publish(state_dir: Path, session_id: str) -> None:
    """Record that this process hides ``session_id``.

    Raises:
        OSError: the record cannot be written.
    """
    record = _record(state_dir, session_id)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.touch()


def withdraw(state_dir: Path, session_id: str) -> None:
    """This process no longer hides ``session_id`` (taken, or its process is gone)."""
    with contextlib.suppress(FileNotFoundError):
        _record(state_dir, session_id).unlink()


def published(state_dir: Path) -> frozenset[str]:
    """The session ids the running cctuis on ``state_dir`` hide, this one's included. A
    record whose owner is no longer running (a crash) is removed."""
    try:
        entries = list(os.scandir(state_dir / SPARES_DIR))
    except OSError:  # nothing published yet
        return frozenset()
    ids: set[str] = set()
    for entry in entries:
        owner, _, session_id = entry.name.partition(".")
        if not owner.isdigit() or not session_id:
            continue
        if pid_alive(int(owner)):
            ids.add(session_id)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    return frozenset(ids)
