"""The live watcher: new sessions within a couple of seconds, clean stop, late ~/.claude."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.history import HistoryIndex, IndexChange
from tests.history.conftest import (
    INTERACTIVE_ID,
    MULTI_ID,
    add_transcript,
    history_line,
    write_process,
)

NEW_ID = "0f0f0f0f-1111-4222-8333-444455556666"


async def _next_with(changes: AsyncIterator[IndexChange], session_id: str) -> IndexChange:
    async with asyncio.timeout(3.0):
        async for change in changes:
            if session_id in change.changed or session_id in change.removed:
                return change
    raise AssertionError("the watcher ended")


async def _stop(stop: asyncio.Event, changes: AsyncIterator[IndexChange]) -> float:
    """Set the stop event and drain; returns how long the iterator took to end."""
    start = time.monotonic()
    stop.set()
    async with asyncio.timeout(2):
        async for _ in changes:
            pass
    return time.monotonic() - start


async def test_first_build_fills_newest_first_then_a_restart_lists_all_at_once(
    claude_home: Path, tmp_path: Path
) -> None:
    index_file = tmp_path / "cache" / "index.sqlite"
    index = HistoryIndex(claude_home, index_file=index_file)
    stop = asyncio.Event()
    changes = index.watch(stop)

    first = await anext(changes)
    newest = max(
        (claude_home / "projects").glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime_ns
    ).stem
    assert newest in first.changed  # the build starts with the newest transcript
    await _next_with(changes, MULTI_ID) if MULTI_ID not in first.changed else None
    assert len(index.sessions()) == 3
    assert await _stop(stop, changes) < 0.5
    index.close()

    again = HistoryIndex(claude_home, index_file=index_file)
    stop2 = asyncio.Event()
    changes2 = again.watch(stop2)
    loaded = await anext(changes2)  # from the index file: no transcript read
    assert len(loaded.changed) == 3 and again.read_stats.files_read == 0
    assert await _stop(stop2, changes2) < 0.5


async def test_new_session_is_reported_within_two_seconds(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    stop = asyncio.Event()
    changes = index.watch(stop)
    await anext(changes)

    # Make sure the OS watch is up (and its first sweep done), so the new file below can only
    # be seen through a file event: it lands in an existing project directory.
    with (claude_home / "history.jsonl").open("a") as fh:
        fh.write(history_line("more", 1795332240000, "<tmp>/cci/proj", INTERACTIVE_ID))
    await _next_with(changes, INTERACTIVE_ID)

    start = time.monotonic()
    add_transcript(claude_home, NEW_ID, "transcript-write-tool-with-hooks.jsonl", "<tmp>/ccp/proj")
    change = await _next_with(changes, NEW_ID)

    assert time.monotonic() - start < 2.0
    assert NEW_ID in change.changed
    summary = index.get(NEW_ID)
    assert summary is not None and summary.transcript_path is not None
    assert await _stop(stop, changes) < 0.5


async def test_history_append_and_process_start_are_reported(claude_home: Path) -> None:
    import os

    index = HistoryIndex(claude_home)
    stop = asyncio.Event()
    changes = index.watch(stop, tick=0.2)
    await anext(changes)

    with (claude_home / "history.jsonl").open("a") as fh:
        fh.write(history_line("more", 1795332240000, "<tmp>/cci/proj", INTERACTIVE_ID))
    await _next_with(changes, INTERACTIVE_ID)
    interactive = index.get(INTERACTIVE_ID)
    assert interactive is not None and interactive.prompt_count == 4

    write_process(claude_home, os.getpid(), MULTI_ID)
    await _next_with(changes, MULTI_ID)
    multi = index.get(MULTI_ID)
    assert multi is not None and multi.is_running
    await _stop(stop, changes)


async def test_config_dir_created_after_start_is_picked_up(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    index = HistoryIndex(home)
    stop = asyncio.Event()
    changes = index.watch(stop, tick=0.2)
    first = await anext(changes)
    assert not first and index.problems.config_dir_missing

    add_transcript(home, MULTI_ID)
    await _next_with(changes, MULTI_ID)
    assert not index.problems.config_dir_missing

    # And once projects/ exists, a second session arrives through file events.
    # (ignore: mypy keeps `config_dir_missing` narrowed to True across the await above.)
    add_transcript(home, NEW_ID, "transcript-interactive.jsonl", "/w/second")  # type: ignore[unreachable]
    await _next_with(changes, NEW_ID)
    assert await _stop(stop, changes) < 0.5


async def test_stop_while_waiting_for_the_config_dir(tmp_path: Path) -> None:
    index = HistoryIndex(tmp_path / "never")
    stop = asyncio.Event()
    changes = index.watch(stop, tick=5.0)
    await anext(changes)

    consumer = asyncio.ensure_future(anext(changes))
    await asyncio.sleep(0.1)
    start = time.monotonic()
    stop.set()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(consumer, 2)
    assert time.monotonic() - start < 0.5


async def test_cancelling_the_consumer_task_ends_the_watch(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    stop = asyncio.Event()

    async def consume() -> None:
        async for _ in index.watch(stop):
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.3)
    start = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    assert time.monotonic() - start < 0.5
