"""Rapid saves of one file, debounced (seed 000 §Performance: "debounce rapid tool calls,
e.g. multiple quick saves").

The first save of a file is written at once. Saves of the same file that follow within
``window_s`` of the last write are held and coalesced: when the window closes, the newest
content is written once, and every held caller gets that write's result with how many
saves it covered. Nothing is lost (the last content is the one a client that saved twice
meant), and a burst of saves costs one atomic write and one state update instead of N.
Appends are never merged: each appends its own text, after any held save is written.

Writes of one file never overlap and run in the order they were asked for (a lock per
file, which asyncio hands out first come, first served), and the window opens when a write
starts: saves arriving while the first is still being written are held behind it, so the
file ends with the last content saved, never with whichever write happened to finish last.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from cctui.fs.safepath import WriteMode, WriteResult

DEBOUNCE_S = 0.2
"""How close together two saves of one file must be to be written once."""

Write = Callable[[str, str, str, WriteMode, bool], Awaitable[WriteResult]]
"""``(project_id, rel, content, mode, create_dirs)`` -> the write's result."""


@dataclass
class _Held:
    content: str
    mode: WriteMode
    create_dirs: bool
    done: asyncio.Future[WriteResult] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    saves: int = 1


@dataclass(frozen=True)
class Saved:
    """One caller's view of its save."""

    result: WriteResult
    coalesced: int
    """How many saves this one write covered (1: it was written on its own)."""


class SaveDebouncer:
    """Per file: write the first save now, coalesce the rapid ones that follow."""

    def __init__(self, write: Write, window_s: float = DEBOUNCE_S) -> None:
        self._write = write
        self.window_s = window_s
        self._last: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], _Held] = {}
        self._locks: dict[tuple[str, str], tuple[asyncio.Lock, list[int]]] = {}
        """Per file being written: its lock and how many writes hold or wait for it."""
        self._tasks: set[asyncio.Task[None]] = set()

    async def save(
        self, project_id: str, rel: str, content: str, mode: WriteMode, create_dirs: bool
    ) -> Saved:
        """Save ``content``; returns once it (or a newer save of the file) is written."""
        key = (project_id, rel)
        held = self._held.get(key)
        if mode == "append":
            if held is not None:
                await asyncio.shield(held.done)
            return Saved(await self._now(key, content, mode, create_dirs), 1)
        if held is not None:  # join the held save: the newest content wins
            held.content, held.mode, held.create_dirs = content, mode, create_dirs
            held.saves += 1
            result = await asyncio.shield(held.done)
            return Saved(result, held.saves)
        since = time.monotonic() - self._last.get(key, float("-inf"))
        if since >= self.window_s:
            return Saved(await self._now(key, content, mode, create_dirs), 1)
        held = _Held(content, mode, create_dirs)
        self._held[key] = held
        # A task of its own: a caller that goes away must not strand the others.
        self._tasks.add(task := asyncio.create_task(self._flush(key, held, self.window_s - since)))
        task.add_done_callback(self._tasks.discard)
        result = await asyncio.shield(held.done)
        return Saved(result, held.saves)

    async def _flush(self, key: tuple[str, str], held: _Held, delay: float) -> None:
        await asyncio.sleep(delay)
        del self._held[key]
        try:
            result = await self._now(key, held.content, held.mode, held.create_dirs)
        except Exception as exc:
            held.done.set_exception(exc)
        else:
            held.done.set_result(result)

    async def _now(
        self, key: tuple[str, str], content: str, mode: WriteMode, dirs: bool
    ) -> WriteResult:
        # The window opens now, not when the write is done: a save arriving meanwhile is
        # held behind this one instead of racing it to the disk.
        self._last[key] = time.monotonic()
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                return await self._write(key[0], key[1], content, mode, dirs)
        finally:
            self._last[key] = time.monotonic()
            users[0] -= 1
            if not users[0]:  # no file keeps a lock nobody waits for
                del self._locks[key]
