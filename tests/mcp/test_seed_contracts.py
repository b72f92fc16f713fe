"""The seeds' documented return shapes, read the way a client written against a seed reads
them (top-level fields under the seed's names), through an in-memory client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.mcp.conftest import client
from tests.mcp.test_tools_inmemory import call

SEED_002_STATUSES = {"running", "waiting_for_input", "completed", "error", "interrupted"}


async def test_seed_002_session_tools(server: Any, project: Path) -> None:
    async with client(server) as c:
        created = await call(c, "claude_create_session", {"prompt": "please write"})
        sid = created["sessionId"]
        assert created["status"] in SEED_002_STATUSES

        await call(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        status = await call(c, "claude_get_status", {"sessionId": sid})
        assert status["sessionId"] == sid
        assert status["status"] == "waiting_for_input"
        assert isinstance(status["recentOutput"], list)
        assert isinstance(status["costUsd"], float) and isinstance(status["turnCount"], int)
        [pending] = status["pendingInputs"]
        assert {"inputId", "type", "toolName", "toolInput", "description"} <= set(pending)
        assert pending["type"] == "permission" and pending["toolName"] == "Write"
        assert isinstance(pending["description"], str) and pending["description"]
        assert pending["allowForSession"].startswith("Allow ")
        for use in status["toolUseEvents"]:
            assert {"toolName", "status"} <= set(use)
            assert use["status"] in ("running", "completed", "denied")

        responded = await call(
            c,
            "claude_respond",
            {"sessionId": sid, "inputId": pending["inputId"], "decision": "allow"},
        )
        assert responded["sessionId"] == sid
        assert responded["status"] == "running"  # the answer is on its way; nothing else waits

        sent = await call(c, "claude_send_message", {"sessionId": sid, "message": "hello"})
        assert sent["sessionId"] == sid and sent["status"] in SEED_002_STATUSES
        assert sent["session_id"] == sid and sent["message_sent"] is True  # seed 004

        await call(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        done = await call(c, "claude_get_status", {"sessionId": sid})
        assert done["status"] == "completed" and done["state"] == "idle"  # turn over, alive
        assert done["result"]

        listed = await call(c, "claude_list_sessions", {})
        [row] = [r for r in listed["sessions"] if r["sessionId"] == sid]
        assert {"projectDirectory", "displayText", "timestamp", "isActive"} <= set(row)
        assert row["isActive"] is True and row["activeStatus"] in SEED_002_STATUSES
        assert row["session_id"] == sid and row["cwd"] == str(project)  # seed 004
        assert listed["total_count"] >= 1 and listed["filtered_count"] == len(listed["sessions"])

        interrupted = await call(c, "claude_interrupt", {"sessionId": sid})
        assert interrupted["sessionId"] == sid


async def test_seed_004_wait_for_completion_fields(server: Any) -> None:
    async with client(server) as c:
        sid = (await call(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        w = await call(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["session_id"] == sid and w["completed"] is True and w["timed_out"] is False
        assert w["final_state"] == "idle" and isinstance(w["waited_ms"], int)
        assert w["response"] == w["reply"]


async def test_seed_003_query_result_object(server: Any) -> None:
    async with client(server) as c:
        out = await call(c, "claude_query", {"prompt": "hello query"})
        assert out["sessionId"] and isinstance(out["messages"], list)
        assert isinstance(out["executionTime"], int)
        assert out["result"]["success"] is True
        assert "hello query" in out["result"]["summary"]


async def test_seed_001_health(server: Any) -> None:
    async with client(server) as c:
        health = await call(c, "claude_health", {})
        assert isinstance(health["available"], bool) and "version" in health
        assert "path" in health
        if not health["available"]:
            assert health["error"]


async def test_queries_do_not_leave_their_process_running(
    tmp_path: Path, project: Path, factory: FakeDriverFactory
) -> None:
    """Two claude_query runs with MAX_SESSIONS=2 leave room for a new session."""
    settings: Settings = make_settings(tmp_path, default_cwd=project, max_sessions=2)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            for n in range(2):
                out = await call(c, "claude_query", {"prompt": f"query {n}"})
                assert out["success"]
                assert manager.get(out["sessionId"]).is_active is False
            created = await call(c, "claude_create_session", {"prompt": "hello"})
            assert created["sessionId"]
    finally:
        await manager.shutdown()


@pytest.mark.parametrize("spelling", ["sub/..", "./"])
async def test_working_directory_is_stored_resolved(
    server: Any, project: Path, spelling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "sub").mkdir(exist_ok=True)
    async with client(server) as c:
        created = await call(
            c,
            "claude_create_session",
            {"workingDirectory": f"{project}/{spelling}"},
        )
        assert created["workingDirectory"] == str(project.resolve())


async def test_since_seq_past_the_end_and_restarts_are_visible(
    tmp_path: Path, project: Path, factory: FakeDriverFactory
) -> None:
    """A reader holding a seq from before a restart (or past the end) can tell."""
    settings = make_settings(tmp_path, default_cwd=project)
    first = SessionManager(settings, driver_factory=factory)
    await first.start()
    async with client(build_server(first, settings)) as c:
        sid = (await call(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        await call(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        page = await call(c, "claude_get_status", {"sessionId": sid})
        assert page["epoch"] and page["missed"] is False
        ahead = await call(c, "claude_get_status", {"sessionId": sid, "sinceSeq": 10_000})
        assert ahead["missed"] is True and ahead["nextSeq"] == page["nextSeq"]
    await first.shutdown()
    second = SessionManager(settings, driver_factory=factory)
    await second.start()
    try:
        async with client(build_server(second, settings)) as c:
            again = await call(
                c, "claude_get_status", {"sessionId": sid, "sinceSeq": page["nextSeq"]}
            )
            assert again["epoch"] != page["epoch"]
            assert again["missed"] is True  # seqs restarted: the old one is past the end
    finally:
        await second.shutdown()


def test_elicitation_text_shows_the_whole_input_or_says_what_is_cut() -> None:
    from cctui.core import PendingInput
    from cctui.mcp_server.decisions import question_text

    command = "echo " + "x" * 3000
    item = PendingInput(
        session_id="s",
        kind="permission",
        tool_name="Bash",
        tool_input={"command": command, "description": "long", "timeout": 5},
    )
    text = question_text(item)
    assert command in text and "timeout: 5" in text and "description: long" in text
    huge = item.model_copy(update={"tool_input": {"command": "y" * 100_000}})
    text = question_text(huge)
    assert "truncated" in text and "claude_get_status" in text


async def test_seed_004_start_and_kill_fields(server: Any) -> None:
    async with client(server) as c:
        created = await call(c, "claude_create_session", {"prompt": "hello"})
        sid = created["sessionId"]
        assert created["session_id"] == sid and created["started_at"] and "pid" in created
        killed = await call(c, "claude_kill_session", {"sessionId": sid})
        assert killed["session_id"] == sid and killed["killed_at"]
        assert killed["state_saved"] is True and killed["status"] == "interrupted"


async def test_seed_002_question_answered_through_updated_input(
    server: Any, factory: FakeDriverFactory
) -> None:
    """Seed 002's example: allow with updatedInput {questions, answers: [label, ...]}."""
    async with client(server) as c:
        sid = (await call(c, "claude_create_session", {"prompt": "ask me"}))["sessionId"]
        await call(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        [pending] = (await call(c, "claude_get_status", {"sessionId": sid}))["pendingInputs"]
        assert pending["type"] == "user_question"
        bad = await c.call_tool(
            "claude_respond",
            {
                "sessionId": sid,
                "inputId": pending["inputId"],
                "decision": "allow",
                "updatedInput": {**pending["toolInput"], "answers": ["Green"]},
            },
        )
        assert bad.is_error and "not an option" in bad.content[0].text
        await call(
            c,
            "claude_respond",
            {
                "sessionId": sid,
                "inputId": pending["inputId"],
                "decision": "allow",
                "updatedInput": {**pending["toolInput"], "answers": ["Blue"]},
            },
        )
        await call(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
    answer = factory.drivers[0].answers[0]
    assert answer.updated_input is not None
    assert answer.updated_input["answers"] == {"Which color do you prefer?": "Blue"}


async def test_list_filter_by_project_takes_any_spelling(server: Any, project: Path) -> None:
    async with client(server) as c:
        sid = (await call(c, "claude_create_session", {}))["sessionId"]
        for spelling in (str(project), f"{project}/sub/..", f"{project}/"):
            (project / "sub").mkdir(exist_ok=True)
            listed = await call(c, "claude_list_sessions", {"projectDirectory": spelling})
            assert sid in [r["sessionId"] for r in listed["sessions"]], spelling
