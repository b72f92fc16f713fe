"""Rapid saves of one file are debounced (seed 000 §Performance): the first is written at
once, the ones that follow within the window are written once with the newest content,
appends are never merged, and an error reaches every coalesced caller."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

import pytest

from cctui.errors import CctuiError
from cctui.fs.safepath import WriteMode, WriteResult
from cctui.projects.saves import SaveDebouncer


class Disk:
    """Records each write; the file's content is the last one written."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, WriteMode]] = []
        self.fail = False

    async def __call__(
        self, pid: str, rel: str, content: str, mode: WriteMode, dirs: bool
    ) -> WriteResult:
        await asyncio.sleep(0)
        if self.fail:
            raise CctuiError("disk full")
        self.writes.append((content, mode))
        action: Literal["overwritten", "appended"] = (
            "appended" if mode == "append" else "overwritten"
        )
        return WriteResult(path=Path("/p") / rel, action=action, bytes=len(content))


async def test_a_burst_is_written_once_with_the_newest_content() -> None:
    disk = Disk()
    saves = SaveDebouncer(disk, window_s=0.1)
    first = await saves.save("p", "a.md", "v0", "overwrite", True)
    assert first.coalesced == 1 and disk.writes == [("v0", "overwrite")]
    burst = await asyncio.gather(
        *(saves.save("p", "a.md", f"v{n}", "overwrite", True) for n in range(1, 6))
    )
    assert disk.writes == [("v0", "overwrite"), ("v5", "overwrite")]
    assert {s.coalesced for s in burst} == {5}
    assert all(s.result.bytes == 2 for s in burst)


async def test_saves_far_apart_and_other_files_are_not_held() -> None:
    disk = Disk()
    saves = SaveDebouncer(disk, window_s=0.05)
    await saves.save("p", "a.md", "a", "overwrite", True)
    await saves.save("p", "b.md", "b", "overwrite", True)  # another file: at once
    await asyncio.sleep(0.06)
    await saves.save("p", "a.md", "a2", "overwrite", True)  # past the window: at once
    assert [w[0] for w in disk.writes] == ["a", "b", "a2"]


async def test_appends_are_never_merged() -> None:
    disk = Disk()
    saves = SaveDebouncer(disk, window_s=0.1)
    await saves.save("p", "log.md", "x", "overwrite", True)
    held = asyncio.create_task(saves.save("p", "log.md", "y", "overwrite", True))
    await asyncio.sleep(0)
    out = await asyncio.gather(
        saves.save("p", "log.md", "+1", "append", True),
        saves.save("p", "log.md", "+2", "append", True),
    )
    await held
    assert disk.writes[0] == ("x", "overwrite") and ("y", "overwrite") in disk.writes
    assert [w for w in disk.writes if w[1] == "append"] == [("+1", "append"), ("+2", "append")]
    assert disk.writes.index(("y", "overwrite")) < disk.writes.index(("+1", "append"))
    assert all(s.coalesced == 1 for s in out)


async def test_a_failed_write_fails_every_coalesced_save() -> None:
    disk = Disk()
    saves = SaveDebouncer(disk, window_s=0.05)
    await saves.save("p", "a.md", "v0", "overwrite", True)
    disk.fail = True
    results = await asyncio.gather(
        saves.save("p", "a.md", "v1", "overwrite", True),
        saves.save("p", "a.md", "v2", "overwrite", True),
        return_exceptions=True,
    )
    assert all(isinstance(r, CctuiError) for r in results), results
    with pytest.raises(CctuiError):
        await saves.save("p", "a.md", "v3", "overwrite", True)


class UnevenDisk:
    """Each write takes less time than the one before (a big file, then small ones): the
    file holds whichever write finished last."""

    def __init__(self) -> None:
        self.content: str | None = None
        self.delays = [0.06, 0.03, 0.0]
        self.overlapping = 0
        self.most_at_once = 0

    async def __call__(
        self, pid: str, rel: str, content: str, mode: WriteMode, dirs: bool
    ) -> WriteResult:
        self.overlapping += 1
        self.most_at_once = max(self.most_at_once, self.overlapping)
        await asyncio.sleep(self.delays.pop(0) if self.delays else 0.0)
        self.content = content
        self.overlapping -= 1
        return WriteResult(path=Path("/p") / rel, action="overwritten", bytes=len(content))


async def test_first_saves_at_once_end_with_the_last_content() -> None:
    disk = UnevenDisk()
    saves = SaveDebouncer(disk, window_s=0.05)
    one, two, three = (saves.save("p", "a.md", v, "overwrite", True) for v in ("1", "2", "3"))
    t1 = asyncio.create_task(one)
    await asyncio.sleep(0)  # asked in this order, as three calls arriving together
    t2 = asyncio.create_task(two)
    await asyncio.sleep(0)
    t3 = asyncio.create_task(three)
    await asyncio.gather(t1, t2, t3)
    assert disk.content == "3"
    assert disk.most_at_once == 1  # writes of one file never overlap
    assert saves._locks == {}  # nothing kept for a file nobody writes
