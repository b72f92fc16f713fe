"""Live updates of a ``HistoryIndex`` from file-system events.

``projects/`` and ``sessions/`` are watched recursively with watchfiles; ``awatch`` also wakes
every ``tick`` seconds, and each wake-up re-checks ``history.jsonl`` (one stat; its directory is
``~/.claude`` itself, which is far too busy to watch recursively) and the process files (a
crashed CLI leaves its file behind, so liveness must be polled). A missing ``~/.claude`` (or
``projects/``) is polled for until it appears, and the watch restarts whenever a watched
directory appears or vanishes. A full stat sweep runs every ``full_sweep_every`` seconds to make
up for events the OS dropped (inotify queue overflow).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from watchfiles import Change, awatch

from cctui.history.models import IndexChange

if TYPE_CHECKING:
    from cctui.history.index import HistoryIndex

logger = logging.getLogger(__name__)

StopEvent = anyio.Event | asyncio.Event
"""Set it to end ``watch_index``; the iterator finishes within about 50 ms plus one refresh."""

_DEBOUNCE_MS = 400
_STEP_MS = 50


def _roots(index: HistoryIndex) -> tuple[Path, ...]:
    dirs = (index.transcripts.projects_dir, index.processes.sessions_dir)
    return tuple(d for d in dirs if d.is_dir())


async def _sleep_or_stop(stop_event: StopEvent, seconds: float) -> None:
    with anyio.move_on_after(seconds):
        await stop_event.wait()


async def watch_index(
    index: HistoryIndex,
    stop_event: StopEvent,
    *,
    tick: float = 0.5,
    full_sweep_every: float = 60.0,
) -> AsyncIterator[IndexChange]:
    """Refresh ``index`` as files change and yield what changed, until ``stop_event`` is set.

    The first item is every session the index file already knows (when it knows any), so a
    start draws the whole list at once; then the transcripts changed since are indexed in
    short steps, newest first, each step yielded (the first step always is, possibly empty).
    Later items are yielded only when something changed. File reads run in worker threads,
    never on the event loop.
    """
    loaded = await index.aload()
    if loaded:
        yield loaded
    first = True
    async for change in index.build_steps():
        if change or first:
            first = False
            yield change
        if stop_event.is_set():
            return
    last_full = time.monotonic()
    projects_dir = index.transcripts.projects_dir

    def keep(_change: Change, path: str) -> bool:
        p = Path(path)
        return p.suffix in (".jsonl", ".json") or p.parent == projects_dir

    while not stop_event.is_set():
        roots = _roots(index)
        if not roots:
            await _sleep_or_stop(stop_event, tick)
            if stop_event.is_set():
                break
            change = await index.arefresh()
            if change:
                yield change
            continue
        try:
            batches = awatch(
                *roots,
                watch_filter=keep,
                debounce=_DEBOUNCE_MS,
                step=_STEP_MS,
                rust_timeout=max(1, int(tick * 1000)),
                yield_on_timeout=True,
                stop_event=stop_event,
                recursive=True,
            )
            swept = False
            async with aclosing(batches):
                async for batch in batches:
                    paths = {Path(p) for _, p in batch}
                    # Sweep on the first batch of each watch (changes made before the OS watch
                    # existed produce no events) and on a new project directory (files created
                    # before the watch was added to it produce none either).
                    new_dir = any(p.parent == projects_dir for p in paths)
                    if not swept or new_dir or time.monotonic() - last_full >= full_sweep_every:
                        swept = True
                        change = await index.arefresh()
                        last_full = time.monotonic()
                    else:
                        change = await index.arefresh(full=False, paths=paths)
                    if change:
                        yield change
                    if stop_event.is_set():
                        break
                    if _roots(index) != roots:
                        # A directory appeared or vanished: sweep, then watch the new set.
                        change = await index.arefresh()
                        last_full = time.monotonic()
                        if change:
                            yield change
                        break
        except OSError as exc:
            # Typically a watched directory was removed under us; start over.
            logger.warning("watching %s failed: %s", ", ".join(map(str, roots)), exc)
            await _sleep_or_stop(stop_event, tick)
