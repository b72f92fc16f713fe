"""A create whose caller gives up while the process spawns must not leave it running."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from cctui.core import SessionStatus
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import fake_driver_factory


async def test_cancelled_create_ends_the_process_it_started(
    make_manager: MakeManager, project: Path
) -> None:
    factory = fake_driver_factory(connect_delay=0.3)
    manager = make_manager(factory)
    await manager.start()
    task = asyncio.create_task(manager.create("hello", manager.default_config(project)))
    while not factory.drivers:  # noqa: ASYNC110 (the factory has no event to await)
        await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    [info] = manager.list()
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.session.status == SessionStatus.INTERRUPTED
    assert not outcome.session.is_active
    assert factory.drivers[0].closed
    assert manager.list(active_only=True) == []
