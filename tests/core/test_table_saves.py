"""The session table's saves: batches written by a worker thread and synchronous flushes
land on disk in the order they were taken, whatever order their threads reach the file in."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from cctui.core import SessionConfig
from cctui.core.manager import SessionManager
from cctui.core.records import SessionRecords


async def test_a_batch_whose_thread_starts_late_does_not_write_over_a_later_flush(
    manager: SessionManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole run at load 9 lost a session's diff base on disk: the worker's batch was
    taken before the base snapshot, its thread reached the registry after ``flush`` had
    written the snapshot, and wrote the older record over it."""
    info = await manager.create("hi", SessionConfig(cwd=tmp_path))
    await manager.wait(info.session_id, 5)
    table = manager._sessions
    session = table.find(info.session_id)
    # Its diff base is snapshotted in a thread beside the turn: once done it sets base_tree
    # and saves, which would take the place of this test's "older" before its batch is taken.
    assert session.base_snapshot is not None
    await session.base_snapshot
    table.flush()
    started = threading.Event()
    gate = threading.Event()
    write = table._write

    def late(*args: Any) -> None:  # the worker's thread reaches the lock only when let
        if threading.current_thread() is not threading.main_thread():
            started.set()
            gate.wait(10)
        write(*args)

    monkeypatch.setattr(table, "_write", late)
    session.base_tree = "older"
    table.save(info.session_id)  # a batch, written in a thread in 0.2 s
    for _ in range(500):
        if started.is_set():
            break
        await asyncio.sleep(0.01)
    assert started.is_set()
    session.base_tree = "newer"
    table.save(info.session_id)
    table.flush()  # written now, on this thread, before the batch's thread gets the lock
    gate.set()
    for _ in range(500):  # the batch's thread done
        if table._writing is None:
            break
        await asyncio.sleep(0.01)
    [record] = SessionRecords(manager.settings.state_dir).load().values()
    assert record.base_tree == "newer"
