"""The seeds' documented return shapes, read the way a client written against a seed reads
them (top-level fields under the seed's names), through an in-memory client."""

from __future__ import annotations

import os
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from mcp.types import LoggingMessageNotificationParams

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from tests.content import first_text
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.mcp.conftest import client, error_body, ok

SEED_002_STATUSES = {"running", "waiting_for_input", "completed", "error", "interrupted"}


async def test_seed_002_session_tools(server: Any, project: Path) -> None:
    async with client(server) as c:
        created = await ok(c, "claude_create_session", {"prompt": "please write"})
        sid = created["sessionId"]
        assert created["status"] in SEED_002_STATUSES

        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        status = await ok(c, "claude_get_status", {"sessionId": sid})
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

        responded = await ok(
            c,
            "claude_respond",
            {"sessionId": sid, "inputId": pending["inputId"], "decision": "allow"},
        )
        assert responded["sessionId"] == sid
        assert responded["status"] == "running"  # the answer is on its way; nothing else waits

        sent = await ok(c, "claude_send_message", {"sessionId": sid, "message": "hello"})
        assert sent["sessionId"] == sid and sent["status"] in SEED_002_STATUSES
        assert sent["session_id"] == sid and sent["message_sent"] is True  # seed 004

        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        done = await ok(c, "claude_get_status", {"sessionId": sid})
        assert done["status"] == "completed" and done["state"] == "idle"  # turn over, alive
        assert done["result"]

        listed = await ok(c, "claude_list_sessions", {})
        [row] = [r for r in listed["sessions"] if r["sessionId"] == sid]
        assert {"projectDirectory", "displayText", "timestamp", "isActive"} <= set(row)
        assert row["isActive"] is True and row["activeStatus"] in SEED_002_STATUSES
        assert row["session_id"] == sid and row["cwd"] == str(project)  # seed 004
        assert listed["total_count"] >= 1 and listed["filtered_count"] == len(listed["sessions"])

        interrupted = await ok(c, "claude_interrupt", {"sessionId": sid})
        assert interrupted["sessionId"] == sid


async def test_seed_004_wait_for_completion_fields(server: Any) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert w["session_id"] == sid and w["completed"] is True and w["timed_out"] is False
        assert w["final_state"] == "idle" and isinstance(w["waited_ms"], int)
        assert w["response"] == w["reply"]


async def test_seed_003_query_result_object(server: Any) -> None:
    async with client(server) as c:
        out = await ok(c, "claude_query", {"prompt": "hello query"})
        assert out["sessionId"] and isinstance(out["messages"], list)
        assert isinstance(out["executionTime"], int)
        assert out["result"]["success"] is True
        assert "hello query" in out["result"]["summary"]


async def test_seed_001_health(server: Any) -> None:
    async with client(server) as c:
        health = await ok(c, "claude_health", {})
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
                out = await ok(c, "claude_query", {"prompt": f"query {n}"})
                assert out["success"]
                assert manager.get(out["sessionId"]).is_active is False
            created = await ok(c, "claude_create_session", {"prompt": "hello"})
            assert created["sessionId"]
    finally:
        await manager.shutdown()


@pytest.mark.parametrize("spelling", ["sub/..", "./"])
async def test_working_directory_is_stored_resolved(
    server: Any, project: Path, spelling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "sub").mkdir(exist_ok=True)
    async with client(server) as c:
        created = await ok(
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
        sid = (await ok(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        page = await ok(c, "claude_get_status", {"sessionId": sid})
        assert page["epoch"] and page["missed"] is False
        ahead = await ok(c, "claude_get_status", {"sessionId": sid, "sinceSeq": 10_000})
        assert ahead["missed"] is True and ahead["nextSeq"] == page["nextSeq"]
    await first.shutdown()
    second = SessionManager(settings, driver_factory=factory)
    await second.start()
    try:
        async with client(build_server(second, settings)) as c:
            again = await ok(
                c, "claude_get_status", {"sessionId": sid, "sinceSeq": page["nextSeq"]}
            )
            assert again["epoch"] != page["epoch"]
            assert again["missed"] is True  # seqs restarted: the old one is past the end
    finally:
        await second.shutdown()


def test_elicitation_text_shows_the_whole_input_or_says_what_is_cut() -> None:
    from cctui.core import PendingInput
    from cctui.mcp_server.asking.decisions import question_text

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
        created = await ok(c, "claude_create_session", {"prompt": "hello"})
        sid = created["sessionId"]
        assert created["session_id"] == sid and created["started_at"] and "pid" in created
        killed = await ok(c, "claude_kill_session", {"sessionId": sid})
        assert killed["session_id"] == sid and killed["killed_at"]
        assert killed["state_saved"] is True and killed["status"] == "killed"
        assert killed["state"] == "interrupted"


async def test_seed_002_question_answered_through_updated_input(
    server: Any, factory: FakeDriverFactory
) -> None:
    """Seed 002's example: allow with updatedInput {questions, answers: [label, ...]}."""
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "ask me"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        [pending] = (await ok(c, "claude_get_status", {"sessionId": sid}))["pendingInputs"]
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
        assert bad.is_error and "not an option" in first_text(bad)
        await ok(
            c,
            "claude_respond",
            {
                "sessionId": sid,
                "inputId": pending["inputId"],
                "decision": "allow",
                "updatedInput": {**pending["toolInput"], "answers": ["Blue"]},
            },
        )
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
    answer = factory.drivers[0].answers[0]
    assert answer.updated_input is not None
    assert answer.updated_input["answers"] == {"Which color do you prefer?": "Blue"}


async def test_list_filter_by_project_takes_any_spelling(server: Any, project: Path) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {}))["sessionId"]
        for spelling in (str(project), f"{project}/sub/..", f"{project}/"):
            (project / "sub").mkdir(exist_ok=True)
            listed = await ok(c, "claude_list_sessions", {"projectDirectory": spelling})
            assert sid in [r["sessionId"] for r in listed["sessions"]], spelling


# --------------------------------------------------------------------------- seed 004
# A client written against seed 004 calls cctui's tools (DESIGN's name mapping) with its own
# snake_case arguments and reads its documented response fields at the top level.


def _iso(value: Any) -> datetime:
    """A seed ``z.string().datetime()``: ISO 8601 with a zone."""
    assert isinstance(value, str), value
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, value
    return parsed


async def test_seed_004_start_session_arguments_and_response(
    server: Any, project: Path, factory: FakeDriverFactory
) -> None:
    wanted = str(uuid.uuid4())
    async with client(server) as c:
        out = await ok(
            c,
            "claude_create_session",
            {
                "session_id": wanted,
                "cwd": str(project),
                "prompt": "hello",
                "team_name": "red",
                "teammate_name": "ann",
                "model": "opus",
                "max_turns": 3,
                "stream_output": True,
            },
        )
        # StartSessionResponse: session_id, status, pid?, tmux_pane?, started_at
        assert out["session_id"] == out["sessionId"] == wanted
        assert isinstance(out["status"], str) and isinstance(out["pid"], int)
        _iso(out["started_at"])
        [row] = (await ok(c, "claude_list_sessions", {"team_filter": "red"}))["sessions"]
        assert row["session_id"] == wanted
        assert row["team_name"] == "red" and row["teammate_name"] == "ann"
    spec = factory.specs[0]
    assert spec.cwd == project.resolve() and spec.model == "opus" and spec.max_turns == 3


async def test_seed_004_doppler_becomes_a_launch_prefix(
    server: Any, factory: FakeDriverFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    doppler = bin_dir / "doppler"
    doppler.write_text('#!/bin/sh\nexec "$@"\n')
    doppler.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    async with client(server) as c:
        await ok(
            c,
            "claude_create_session",
            {"prompt": "hello", "doppler_project": "shop", "doppler_config": "dev"},
        )
        await ok(c, "claude_create_session", {"doppler_config": "prd"})
        body = error_body(
            await c.call_tool(
                "claude_create_session", {"doppler_project": "shop", "launchPrefix": []}
            )
        )
        assert body["code"] == "validation_error" and "launchPrefix" in body["message"]
    assert factory.specs[0].launch_prefix == (
        "doppler", "run", "--project", "shop", "--config", "dev", "--"
    )  # fmt: skip
    assert factory.specs[1].launch_prefix == ("doppler", "run", "--config", "prd", "--")


async def test_seed_004_send_message_arguments_and_response(server: Any) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        out = await ok(
            c,
            "claude_send_message",
            {
                "session_id": sid,
                "message": "second",
                "wait_for_response": True,
                "timeout_ms": 5000,
                "include_context": False,
            },
        )
        # SendMessageResponse: session_id, message_sent, response?, error?, sent_at,
        # responded_at?
        assert out["session_id"] == sid and out["message_sent"] is True
        assert "second" in out["response"] and out["error"] is None
        assert _iso(out["sent_at"]) <= _iso(out["responded_at"])
        # The seed waits by default: a call in its names that omits wait_for_response too.
        again = await ok(c, "claude_send_message", {"session_id": sid, "message": "third"})
        assert again["reason"] == "turn_ended" and "third" in again["response"]
        _iso(again["sent_at"])
        # cctui's own names keep cctui's default (return at once).
        quick = await ok(c, "claude_send_message", {"sessionId": sid, "message": "fourth"})
        assert quick["reason"] == "sent" and quick["responded_at"] is None
        _iso(quick["sent_at"])
        body = error_body(
            await c.call_tool(
                "claude_send_message",
                {"session_id": sid, "message": "x", "include_context": True},
            )
        )
        assert body["code"] == "validation_error" and "claude_sync_context" in body["suggestion"]


async def test_seed_004_send_message_reports_the_session_error(server: Any) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {}))["sessionId"]
        out = await ok(
            c, "claude_send_message", {"session_id": sid, "message": "error", "timeout_ms": 5000}
        )
        assert out["message_sent"] is True and out["error"], out


async def test_seed_004_resume_session_arguments_and_response(
    server: Any, project: Path, tmp_path: Path
) -> None:
    async with client(server) as c:
        created = await ok(c, "claude_create_session", {"prompt": "hello"})
        sid = created["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        before = await ok(c, "claude_get_status", {"sessionId": sid})
        await ok(c, "claude_kill_session", {"sessionId": sid})
        out = await ok(c, "claude_send_message", {"session_id": sid, "cwd": str(project)})
        # ResumeSessionResponse: session_id, status, resumed_at, previous_state?
        assert out["session_id"] == sid and isinstance(out["status"], str)
        assert out["resumed"] is True and out["message_sent"] is False
        assert out["reason"] == "resumed" and out["session"]["isActive"] is True
        _iso(out["resumed_at"])
        previous = out["previous_state"]
        assert _iso(previous["created_at"]) == _iso(created["started_at"])
        assert _iso(previous["last_active"]) >= _iso(previous["created_at"])
        assert before["session"]["createdAt"] == previous["created_at"]
        # Resume with a message (the seed's optional ``message``): sent and answered.
        await ok(c, "claude_kill_session", {"sessionId": sid})
        out = await ok(c, "claude_send_message", {"session_id": sid, "message": "back again"})
        assert out["resumed"] is True and "back again" in out["response"]
        # A resume elsewhere is refused, not ignored: the history lives in the project.
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        body = error_body(
            await c.call_tool("claude_send_message", {"session_id": sid, "cwd": str(elsewhere)})
        )
        assert body["code"] == "validation_error" and "directory" in body["message"]


async def test_seed_004_kill_session_arguments_and_response(
    server: Any, factory: FakeDriverFactory
) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "slow"}))["sessionId"]
        driver = factory.drivers[0]
        graces: list[float] = []
        close = driver.close

        async def recording_close(grace_s: float = 2.0) -> None:
            graces.append(grace_s)
            await close(grace_s)

        driver.close = recording_close  # type: ignore[method-assign]
        out = await ok(
            c, "claude_kill_session", {"session_id": sid, "force": True, "save_state": True}
        )
        # KillSessionResponse: session_id, status, killed_at, exit_code?, state_saved
        assert out["session_id"] == sid and out["status"] == "killed"
        _iso(out["killed_at"])
        assert out["exit_code"] == 0 and out["state_saved"] is True
        assert graces == [0.0]  # force: no grace between SIGTERM and SIGKILL
        again = await ok(c, "claude_kill_session", {"session_id": sid})
        assert again["status"] == "already_dead" and again["exit_code"] is None


async def test_seed_004_list_sessions_arguments_and_rows(server: Any, project: Path) -> None:
    async with client(server) as c:
        red = await ok(
            c,
            "claude_create_session",
            {"prompt": "hello", "team_name": "red", "teammate_name": "ann", "model": "opus"},
        )
        blue = await ok(c, "claude_create_session", {"prompt": "hello", "team_name": "blue"})
        await ok(c, "claude_kill_session", {"sessionId": blue["sessionId"]})

        listed = await ok(c, "claude_list_sessions", {"team_filter": "red"})
        assert [r["session_id"] for r in listed["sessions"]] == [red["sessionId"]]
        # ListSessionsResponse: sessions[], total_count, filtered_count
        assert listed["total_count"] == 1 and listed["filtered_count"] == 1
        [row] = listed["sessions"]
        # rows: session_id, status, pid?, cwd?, created_at, last_active?, team_name?,
        # teammate_name?, model?
        assert row["status"] == "active" and isinstance(row["pid"], int)
        assert row["cwd"] == str(project) and row["model"] == "opus"
        assert _iso(row["created_at"]) == _iso(red["started_at"])
        assert _iso(row["last_active"]) >= _iso(row["created_at"])
        assert row["team_name"] == "red" and row["teammate_name"] == "ann"

        active = await ok(c, "claude_list_sessions", {"status_filter": "active"})
        assert {r["session_id"] for r in active["sessions"]} == {red["sessionId"]}
        inactive = await ok(
            c, "claude_list_sessions", {"status_filter": "inactive", "include_metadata": True}
        )
        [gone] = inactive["sessions"]
        assert gone["session_id"] == blue["sessionId"] and gone["status"] == "inactive"
        assert gone["pid"] is None and gone["state"] == "interrupted"
        everything = await ok(c, "claude_list_sessions", {"status_filter": "all", "limit": 1})
        assert everything["filtered_count"] == 1 and everything["total_count"] == 2
        assert (await ok(c, "claude_list_sessions", {"status_filter": "error"}))["sessions"] == []


async def test_seed_004_wait_for_completion_arguments_and_response(server: Any) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        out = await ok(
            c,
            "claude_wait",
            {
                "session_id": sid,
                "timeout_ms": 300_000,  # the seed's default: capped at cctui's 55 s, not refused
                "poll_interval_ms": 1000,
                "check_idle": True,
            },
        )
        # WaitForCompletionResponse: session_id, completed, timed_out, waited_ms,
        # final_state, completed_at?
        assert out["session_id"] == sid and out["completed"] is True
        assert out["timed_out"] is False and isinstance(out["waited_ms"], int)
        assert out["final_state"] == "idle"
        assert _iso(out["completed_at"]) >= _iso(out["session"]["createdAt"])
        assert out["sent_at"] is None and out["resumed_at"] is None  # claude_wait sends nothing


async def test_seed_004_stream_output_and_sync_context_arguments(server: Any) -> None:
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "hello"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        out = await ok(c, "claude_get_status", {"session_id": sid, "lines": 1, "follow": False})
        assert out["sessionId"] == sid and len(out["recentOutput"]) == 1
        synced = await ok(
            c, "claude_sync_context", {"session_id": sid, "context_type": "git", "force": True}
        )
        # SyncContextResponse: session_id, synced_at, context_type, files_synced?,
        # env_vars_synced?, git_status_synced?, warnings?
        assert synced["session_id"] == sid and synced["context_type"] == "git"
        _iso(synced["synced_at"])
        assert isinstance(synced["git_status_synced"], bool)
        assert isinstance(synced["warnings"], list)


@pytest.mark.parametrize(
    ("tool", "args", "named"),
    [
        ("claude_create_session", {"prompt": "hi", "team_nam": "red"}, "team_nam"),
        ("claude_list_sessions", {"team": "red", "colour": "x", "zz": 1}, "colour, zz"),
        ("claude_health", {"verbose": True}, "verbose"),
        ("claude_kill_session", {"sessionId": "x", "signal": "KILL"}, "signal"),
    ],
)
async def test_unknown_arguments_are_refused_by_name(
    server: Any, tool: str, args: dict[str, Any], named: str
) -> None:
    async with client(server) as c:
        body = error_body(await c.call_tool(tool, args))
        assert body["code"] == "validation_error" and body["retryable"] is False
        assert f"does not take {named}." in body["message"], body
        assert "It takes:" in body["message"] and body["suggestion"]
        # nothing ran: no session was created by the refused call
        assert (await ok(c, "claude_list_sessions", {}))["sessions"] == []


async def test_seed_argument_problems_are_refused(server: Any, project: Path) -> None:
    async with client(server) as c:
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("claude_create_session", {"log_file": "/tmp/x.log"}, "log_file"),
            ("claude_create_session", {"cwd": str(project), "workingDirectory": "/"}, "cwd"),
            ("claude_create_session", {"cwd": "/nonexistent"}, "/nonexistent"),
            ("claude_list_sessions", {"status_filter": "zombie"}, "status_filter"),
            ("claude_send_message", {"session_id": "x", "doppler_project": "p"}, "launch"),
        ]
        for tool, args, word in cases:
            body = error_body(await c.call_tool(tool, args))
            assert body["code"] in ("validation_error", "cwd_not_found"), (tool, body)
            assert word in body["message"], (tool, body)
        assert (await ok(c, "claude_list_sessions", {}))["sessions"] == []


# --------------------------------------------------------------------------- seed 003


async def test_seed_003_query_options_reach_the_cli(
    server: Any, project: Path, factory: FakeDriverFactory
) -> None:
    sub = project / "sub"
    sub.mkdir()
    async with client(server) as c:
        out = await ok(
            c,
            "claude_query",
            {
                "prompt": "hello query",
                "options": {
                    "cwd": str(sub),
                    "maxTurns": 2,
                    "model": "opus",
                    "appendSystemPrompt": "Be brief.",
                    "maxMessages": 1,
                    "includeSystemMessages": True,
                },
            },
        )
        assert out["truncated"] is True and len(out["messages"]) == 1
        await ok(c, "claude_query", {"prompt": "top level", "cwd": str(sub)})
        body = error_body(
            await c.call_tool("claude_query", {"prompt": "x", "options": {"permissionMode": "x"}})
        )
        assert body["code"] == "validation_error" and "permissionMode" in body["message"]
        body = error_body(
            await c.call_tool(
                "claude_query", {"prompt": "x", "model": "a", "options": {"model": "b"}}
            )
        )
        assert body["code"] == "validation_error" and "options.model" in body["message"]
    first, second = factory.specs
    assert first.cwd == sub.resolve() and first.model == "opus" and first.max_turns == 2
    assert first.append_system_prompt == "Be brief."
    assert second.cwd == sub.resolve()


async def test_seed_003_include_system_messages(server: Any) -> None:
    async with client(server) as c:
        full = await ok(c, "claude_query", {"prompt": "error please"})
        kinds = [(m["type"], m.get("subtype")) for m in full["messages"]]
        assert ("system", "init") in kinds and ("system", "cctui_error") in kinds, kinds
        bare = await ok(
            c,
            "claude_query",
            {"prompt": "error please", "options": {"includeSystemMessages": False}},
        )
        assert bare["messages"] and "system" not in [m["type"] for m in bare["messages"]]
        assert bare["result"]["success"] is False and bare["result"]["error"] is not None


async def test_seed_003_response_and_notifications(server: Any) -> None:
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with client(server, logging_callback=on_log, log_level="debug") as c:
        out = await ok(c, "claude_query", {"prompt": "hello query"})
        # ClaudeCodeQueryResponse: sessionId, messages, executionTime, usage?,
        # result?: {success, summary, error?}
        assert out["sessionId"] and out["messages"] and isinstance(out["executionTime"], int)
        assert "usage" in out
        assert out["result"]["success"] is True and out["result"]["summary"]
        for m in out["messages"]:
            _iso(m["timestamp"])
    notes = [p.data for p in logs if p.logger == "claude-code/messages"]
    assert notes
    for note in notes:
        # ClaudeCodeNotification: type, sessionId, message, timestamp, sequence
        assert note["type"] == "claude_code_message" and note["sessionId"] == out["sessionId"]
        assert isinstance(note["sequence"], int) and _iso(note["timestamp"])
        assert note["message"]["seq"] == note["sequence"] and note["message"]["type"]
        assert "text" in note["message"]
    assert [n["message"] for n in notes][-len(out["messages"]) :] == out["messages"]
