"""Project tasks (``cctui.projects.tasks``) over FakeDriver: recorded before and after, with
the files they changed, whichever way they end; no MCP involved."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from cctui.core import SessionManager
from cctui.errors import CliNotFound
from cctui.fs.errors import PathRefused
from cctui.projects import ProjectService
from cctui.projects.tasks import ProjectTask, ProjectTasks, task_prompt
from tests.fakes.fake_driver import Step, fake_driver_factory, sleep, text, tool
from tests.fakes.settings import make_settings


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = (tmp_path / "repo").resolve()
    path.mkdir()
    (path / "old.txt").write_text("old\n")
    return path


@pytest.fixture
async def setup(tmp_path: Path, root: Path) -> AsyncIterator[Any]:
    made: list[SessionManager] = []

    async def go(script: Any = None, **factory: Any) -> tuple[SessionManager, ProjectTasks, Any]:
        drivers = fake_driver_factory(script, **factory)
        manager = SessionManager(make_settings(tmp_path), driver_factory=drivers)
        await manager.start()
        made.append(manager)
        projects = ProjectService(tmp_path / "projects.json", watch=False)
        projects.register("Repo", str(root), project_id="p")
        return manager, ProjectTasks(manager, projects), drivers

    yield go
    for manager in made:
        await manager.shutdown()


def writes(root: Path, name: str, content: str = "new\n") -> Callable[[str], list[Step]]:
    """A turn whose Write tool call really writes ``name`` (the fake driver writes nothing)."""

    def script(message: str) -> list[Step]:
        (root / name).write_text(content)
        return [tool("Write", {"file_path": str(root / name), "content": content}, ask=False)]

    return script


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".claude" / "session_state.json").read_text())
    return data


async def ended(task: ProjectTask, timeout_s: float = 10) -> None:
    async with asyncio.timeout(timeout_s):
        while task.ended is None:
            await task.run.changed.wait()


async def test_a_task_is_recorded_running_then_completed_with_its_files(
    setup: Any, root: Path
) -> None:
    manager, tasks, _ = await setup(writes(root, "made.txt"))
    task = await tasks.open("p", "make a file", [], 30)
    [running] = state(root)["claudeCodeTasks"]
    assert running["taskId"] == task.task_id and running["status"] == "running"
    info = await task.start(task_prompt("make a file", []))
    assert state(root)["claudeCodeTasks"][0]["sessionId"] == info.session_id
    await ended(task)
    assert task.ended is not None and task.ended.status == "completed"
    assert task.ended.changes.created == ["made.txt"] and task.edited == {"made.txt"}
    [done] = state(root)["claudeCodeTasks"]
    assert done["status"] == "completed" and done["exitCode"] == 0
    assert done["filesCreated"] == ["made.txt"] and done["endTime"]
    # The session stays for its next message (resumable), as a task's session does.
    assert manager.get(info.session_id).is_active


async def test_a_task_past_its_time_is_stopped_and_recorded_as_timeout(
    setup: Any, root: Path
) -> None:
    manager, tasks, _ = await setup({"*": [text("working on it"), sleep(30)]})
    task = await tasks.open("p", "slow", [], 0.3)
    await task.start("slow")
    await ended(task)
    assert task.ended is not None and task.ended.status == "timeout"
    assert (task.ended.summary or "").startswith("Timed out after 0.3 s; partial results.")
    [record] = state(root)["claudeCodeTasks"]
    assert record["status"] == "timeout" and record["exitCode"] == 124
    assert not manager.get(task.sid).is_active  # nothing keeps working after maxTime


async def test_a_stopped_task_is_recorded_as_cancelled_not_completed(
    setup: Any, root: Path
) -> None:
    _, tasks, _ = await setup({"*": [sleep(30)]})
    task = await tasks.open("p", "work", [], 60)
    await task.start("work")
    await asyncio.sleep(0.1)
    await task.stop("cancelled")  # the turn ends here, and the supervisor sees it end
    await task.finish("cancelled")
    await ended(task)
    assert task.ended is not None and task.ended.status == "cancelled"
    assert state(root)["claudeCodeTasks"][0]["exitCode"] == 130


async def test_tasks_sharing_a_root_count_only_their_own_edits(setup: Any, root: Path) -> None:
    def script(message: str) -> list[Step]:
        name = "a.txt" if "first" in message else "b.txt"
        (root / name).write_text(message)
        return [
            tool("Write", {"file_path": str(root / name), "content": message}, ask=False),
            sleep(0.3),
        ]

    _, tasks, _ = await setup(script)
    first = await tasks.open("p", "first", [], 30)
    second = await tasks.open("p", "second", [], 30)
    assert first.shared and second.shared
    await asyncio.gather(first.start("first"), second.start("second"))
    await asyncio.gather(ended(first), ended(second))
    assert first.ended is not None and first.ended.changes.created == ["a.txt"]
    assert second.ended is not None and second.ended.changes.created == ["b.txt"]
    assert any("b.txt" in note for note in first.notes)
    later = await tasks.open("p", "third", [], 30)
    assert not later.shared  # the others finished


async def test_a_task_that_cannot_start_is_recorded_failed(setup: Any, root: Path) -> None:
    _, tasks, _ = await setup(connect_error=CliNotFound("no claude here"))
    task = await tasks.open("p", "anything", [], 30)
    with pytest.raises(CliNotFound):
        await task.start("anything")
    [record] = state(root)["claudeCodeTasks"]
    assert record["status"] == "failed" and record["exitCode"] == 1 and record["endTime"]
    assert not (await tasks.open("p", "next", [], 30)).shared


async def test_context_files_must_be_inside_the_root(setup: Any, root: Path) -> None:
    _, tasks, _ = await setup()
    with pytest.raises(PathRefused):
        await tasks.open("p", "read it", ["../../etc/passwd"], 30)
    assert not (root / ".claude" / "session_state.json").exists()  # nothing recorded
    assert task_prompt("go", ["old.txt"]).endswith("Read these files first for context:\n- old.txt")
