"""Once shutdown has begun no process starts: shutdown ends the processes it sees, and one
spawned after that would outlive cctui. (A taken spare that fails then: ``test_spare``.)"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from cctui.core import SessionManager
from cctui.errors import SessionNotReady
from cctui.fs import git
from tests.fakes.fake_driver import FakeDriverFactory


async def test_a_resume_still_reading_its_diff_base_starts_nothing_after_shutdown(
    manager: SessionManager,
    factory: FakeDriverFactory,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = await manager.create("hi", manager.default_config(project))
    await manager.wait(info.session_id, 5)
    await manager.kill(info.session_id)
    assert manager.get(info.session_id).base_commit is None  # not a git checkout
    # As one cctui sees live for the first time (started elsewhere, or before a restart):
    # its resume takes the diff's base.
    manager._sessions.find(info.session_id).base_snapshot = None

    def slow_head(cwd: Path) -> str | None:
        time.sleep(0.3)  # in the worker thread the resume waits on
        return None

    monkeypatch.setattr(git, "head", slow_head)
    resuming = asyncio.create_task(manager.send(info.session_id, "again"))
    await asyncio.sleep(0.05)
    await manager.shutdown()
    with pytest.raises(SessionNotReady):
        await resuming
    assert len(factory.drivers) == 1 and factory.drivers[0].closed
