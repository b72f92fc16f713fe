"""invoke_claude_code's decisions over the fake driver (in memory), both protocol eras."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.types import ElicitResult, InputRequiredResult, InputResponses

from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer
from tests.content import first_text
from tests.fakes.fake_driver import FakeDriverFactory, Step, hold, sleep, text, tool
from tests.mcp.conftest import Answers, call, client, error_body


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_declined_decision_comes_back_at_once_to_answer_by_hand(
    server: CctuiMCPServer, manager: SessionManager, project: Path, mode: str
) -> None:
    """No TUI: after the decline nobody would answer, so the call says so well before
    maxTime, with the input; claude_respond answers it and the task's record completes."""
    answers = Answers(action="decline")
    async with client(server, name="desk", elicit=answers, mode=mode) as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        began = time.monotonic()
        out = await call(c, "invoke_claude_code", projectId="p", task="please write", maxTime=60)
        assert time.monotonic() - began < 15, out
        assert out["status"] == "waiting_for_input" and out["exitCode"] is None, out
        assert len(answers.asked) == 1 and "Write" in answers.asked[0]
        [pending] = out["pendingInputs"]
        assert pending["toolName"] == "Write" and pending["inputId"] in out["note"]
        assert "decline" in out["note"]
        sid = out["sessionId"]
        await call(c, "claude_respond", sessionId=sid, inputId=pending["inputId"], decision="allow")
        waited = await call(c, "claude_wait", sessionId=sid, timeoutMs=10_000)
        assert waited["status"] == "completed", waited
        for _ in range(50):
            status = await call(c, "get_project_status", projectId="p")
            if status["claudeCodeTasks"][0]["status"] != "running":
                break
            await anyio.sleep(0.1)
    [task] = status["claudeCodeTasks"]
    assert task["taskId"] == out["taskId"] and task["status"] == "completed", task


async def recorded(c: Any, task_id: str) -> dict[str, Any]:
    """The project's record of the task once it is no longer running."""
    task: dict[str, Any]
    for _ in range(100):
        status = await call(c, "get_project_status", projectId="p")
        [task] = [t for t in status["claudeCodeTasks"] if t["taskId"] == task_id]
        if task["status"] != "running":
            return task
        await anyio.sleep(0.1)
    raise AssertionError(f"task {task_id} still running: {task}")


async def test_a_legacy_answer_that_does_not_fit_the_form_goes_to_claude_respond(
    server: CctuiMCPServer, manager: SessionManager, project: Path
) -> None:
    """The SDK raises on an accepted answer outside the form; that is no answer (as a
    cancelled form is for the session tools), not an internal error."""
    answers = Answers(content={"decision": "maybe"})
    async with client(server, name="desk", elicit=answers, mode="legacy") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        out = await call(c, "invoke_claude_code", projectId="p", task="please write", maxTime=60)
        assert out["status"] == "waiting_for_input", out
        assert len(answers.asked) == 1
        [pending] = out["pendingInputs"]
        assert "did not fit" in out["note"] and pending["inputId"] in out["note"], out
        assert pending["asked"] == "nobody", pending  # no human at cctui, no client to ask
        assert "no human is at cctui" in out["note"]


async def test_a_call_cancelled_mid_task_is_recorded_cancelled(
    server: CctuiMCPServer, manager: SessionManager, project: Path
) -> None:
    """Stopping the task ends its turn; the supervisor seeing that end must not win with
    ``completed``/0 over the cancel."""
    async with client(server, name="desk") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        with anyio.move_on_after(1.0):
            await c.call_tool(
                "invoke_claude_code", {"projectId": "p", "task": "slow", "maxTime": 30}
            )
        status = await call(c, "get_project_status", projectId="p")
        [task] = status["claudeCodeTasks"]
        await recorded(c, task["taskId"])
    state = json.loads((project / ".claude" / "session_state.json").read_text())
    [task] = state["claudeCodeTasks"]
    assert task["status"] == "cancelled" and task["exitCode"] == 130, task


async def test_a_task_left_waiting_when_cctui_shuts_down_is_not_completed(
    server: CctuiMCPServer, manager: SessionManager, project: Path
) -> None:
    async with client(server, name="desk") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        out = await call(c, "invoke_claude_code", projectId="p", task="please write", maxTime=60)
        assert out["status"] == "waiting_for_input", out
        await manager.shutdown()
    # Read at once: on exit asyncio.run lets cancelled tasks finish, not worker threads.
    state = json.loads((project / ".claude" / "session_state.json").read_text())
    [task] = state["claudeCodeTasks"]
    assert task["status"] == "cancelled" and task["exitCode"] == 130, task


async def test_a_retry_from_another_client_is_told_whose_task_it_is(
    server: CctuiMCPServer, manager: SessionManager, project: Path
) -> None:
    args = {"projectId": "p", "task": "please write", "maxTime": 60}
    async with (
        client(server, name="desk", elicit=Answers()) as c,
        client(server, name="other", elicit=Answers()) as other,
    ):
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        first = await c.session.call_tool("invoke_claude_code", args, allow_input_required=True)
        assert isinstance(first, InputRequiredResult), first
        answer: InputResponses = {
            "decision": ElicitResult(action="accept", content={"decision": "allow"})
        }
        retry = await other.call_tool(
            "invoke_claude_code", args, input_responses=answer, request_state=first.request_state
        )
        body = error_body(retry)
        assert "the client that started it (desk)" in body["message"], body
        assert "restarted" not in body["message"], body


def _two_tasks(project: Path, together: int, one_until: asyncio.Event | None = None) -> Any:
    """Each task writes a file with Write (its own) and one with Bash; the files appear once
    ``together`` turns have started, so every task's before-snapshot predates them all.
    Task one's turn lasts until ``one_until`` is set (3 s without it)."""
    started: list[str] = []

    def script(message: str) -> Sequence[Step]:
        name = "one" if "one" in message else "two"
        started.append(name)
        if len(started) == together:
            (project / "src").mkdir(exist_ok=True)
            for n in started:
                (project / "src" / f"{n}.txt").write_text(n)
                (project / "src" / f"bash-{n}.txt").write_text(n)
        own = str(project / "src" / "two.txt") if name == "two" else "src/one.txt"
        return [
            tool("Write", {"file_path": own, "content": name}, ask=False),
            tool("Bash", {"command": f"echo {name} > src/bash-{name}.txt"}, ask=False),
            hold(one_until)
            if name == "one" and one_until
            else sleep(3.0 if name == "one" else 0.2),
            text(f"done {name}"),
        ]

    return script


async def test_concurrent_tasks_keep_their_own_edits_and_name_the_rest(
    server: CctuiMCPServer, manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    two_done = asyncio.Event()  # task one runs until task two has ended: they overlap
    factory.script = _two_tasks(project, together=2, one_until=two_done)
    outs: dict[str, dict[str, Any]] = {}
    async with client(server, name="desk") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")

        async def run(name: str) -> None:
            outs[name] = await call(c, "invoke_claude_code", projectId="p", task=f"task {name}")
            if name == "two":
                two_done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "one")
            await anyio.sleep(0.3)
            tg.start_soon(run, "two")
    one, two = outs["one"], outs["two"]
    assert one["status"] == two["status"] == "completed", (one, two)
    assert one["filesCreated"] == ["src/one.txt"], one
    assert two["filesCreated"] == ["src/two.txt"], two
    for out, others in ((one, ("src/bash-one.txt", "src/two.txt")), (two, ("src/one.txt",))):
        assert "changed while other tasks ran here" in out["note"], out
        assert all(o in out["note"] for o in others), out


async def test_a_lone_task_still_counts_the_files_its_commands_made(
    server: CctuiMCPServer, manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    factory.script = _two_tasks(project, together=1)
    async with client(server, name="desk") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        out = await call(c, "invoke_claude_code", projectId="p", task="task two")
    assert out["filesCreated"] == ["src/bash-two.txt", "src/two.txt"], out
    assert not out["note"], out


async def test_a_task_refused_at_start_is_failed_and_not_counted_as_concurrent(
    server: CctuiMCPServer,
    manager: SessionManager,
    settings: Any,
    project: Path,
    factory: FakeDriverFactory,
) -> None:
    async with client(server, name="desk") as c:
        await call(c, "register_project", name="p", rootPath=str(project), id="p")
        # Every slot taken: the task cannot start.
        for n in range(settings.max_sessions):
            await call(c, "claude_create_session", prompt=f"slow please {n}")
        refused = await c.call_tool("invoke_claude_code", {"projectId": "p", "task": "task one"})
        assert refused.is_error and "session_limit" in first_text(refused)
        status = await call(c, "get_project_status", projectId="p")
        [task] = status["claudeCodeTasks"]
        assert task["status"] == "failed", task
        for info in manager.list():
            await manager.kill(info.session_id)
        # A task that then runs alone is not told that others ran beside it.
        factory.script = _two_tasks(project, together=1)
        out = await call(c, "invoke_claude_code", projectId="p", task="task two")
    assert out["filesCreated"] == ["src/bash-two.txt", "src/two.txt"], out
    assert not out["note"], out
