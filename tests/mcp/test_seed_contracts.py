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

SEED_002_STATUSES = {"running", "waiting_for_input", "completed", "error", "interrupted", "idle"}


async def test_seed_002_session_tools(server: Any, project: Path) -> None:
    async with client(server) as c:
        created = await call(c, "claude_create_session", {"prompt": "please write"})
        sid = created["sessionId"]
        assert created["status"] in SEED_002_STATUSES | {"starting"}

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

        responded = await call(
            c,
            "claude_respond",
            {"sessionId": sid, "inputId": pending["inputId"], "decision": "allow"},
        )
        assert responded["sessionId"] == sid
        assert responded["status"] in ("running", "waiting_for_input", "idle")

        sent = await call(c, "claude_send_message", {"sessionId": sid, "message": "hello"})
        assert sent["sessionId"] == sid and sent["status"] in SEED_002_STATUSES
        assert sent["session_id"] == sid and sent["message_sent"] is True  # seed 004

        done = await call(c, "claude_get_status", {"sessionId": sid})
        assert "result" in done

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
