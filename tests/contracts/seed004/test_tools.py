"""Seed 004's tools through an in-memory MCP client over the fake driver: the flows of the
seed's own examples, every answer parsed with the seed's schemas, and each argument and
default the seed documents."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionConfig, SessionManager, SessionRecord, SessionStatus
from cctui.mcp_server import compat
from cctui.mcp_server.asking import waiting
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.content import first_text
from tests.contracts.seed004.client import call, fails
from tests.contracts.seed004.schemas import MANIFEST, ZOD_DATETIME
from tests.fakes.fake_driver import FakeDriverFactory, fake_driver_factory, hold, sleep, text
from tests.fakes.settings import make_settings
from tests.mcp.conftest import client


@pytest.fixture
def settings(tmp_path: Path, project: Path) -> Settings:
    return make_settings(tmp_path, default_cwd=project)


@pytest.fixture
async def manager(settings: Settings, factory: FakeDriverFactory) -> AsyncIterator[SessionManager]:
    m = SessionManager(settings, driver_factory=factory)
    await m.start()
    yield m
    await m.shutdown()


@pytest.fixture
def server(manager: SessionManager, settings: Settings) -> CctuiMCPServer:
    return build_server(manager, settings)


async def test_the_seed_integration_test_passes(server: CctuiMCPServer, project: Path) -> None:
    """The seed's own tests/integration/session-lifecycle.test.ts, call for call."""
    async with client(server, name="seed004") as c:
        result = await call(c, "start_session", cwd=str(project))
        assert result["status"] == "ready"
        session_id = result["session_id"]
        assert re.fullmatch(
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", session_id
        )

        result = await call(c, "list_sessions", status_filter="active")
        assert session_id in [s["session_id"] for s in result["sessions"]]

        result = await call(
            c,
            "send_message",
            session_id=session_id,
            message="Hello, Claude!",
            wait_for_response=True,
        )
        assert result["message_sent"] is True
        assert result["response"] == "Echo: Hello, Claude!"

        result = await call(c, "kill_session", session_id=session_id)
        assert result["status"] == "killed"


async def test_the_tools_are_listed_by_default_and_nocompat_hides_them(
    server: CctuiMCPServer, manager: SessionManager, settings: Settings
) -> None:
    async with client(server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        # A seed 004 client (and the model behind an LLM host) sees its eight tools.
        assert set(MANIFEST) <= set(tools)
        assert "claude_create_session" in tools
        # The seed's defaults, as its schemas declare them.
        wait = tools["wait_for_completion"].input_schema["properties"]
        assert wait["timeout_ms"]["default"] == 300_000
        send = tools["send_message"].input_schema["properties"]
        assert send["timeout_ms"]["default"] == 30_000
        assert send["wait_for_response"]["default"] is True
        assert "limit" not in tools["list_sessions"].input_schema.get("required", [])
    hidden = settings.model_copy(update={"compat_tools": False})
    async with client(build_server(manager, hidden)) as c:
        listed = {t.name for t in (await c.list_tools()).tools}
        assert not listed & set(MANIFEST)
        assert "claude_create_session" in listed
        await call(c, "list_sessions")  # callable by name all the same
    menu = settings.model_copy(update={"tools_profile": "menu"})
    async with client(build_server(manager, menu)) as c:
        refused = await fails(c, "start_session")
        assert refused.error.code == "PERMISSION_ERROR"  # the menu never starts sessions


async def test_team_start_resume_and_the_statuses_of_the_seed(
    server: CctuiMCPServer, factory: FakeDriverFactory
) -> None:
    """Pattern 3 (multi-agent) and the seed's status words on start, resume and kill."""
    async with client(server) as c:
        r1 = await call(
            c,
            "start_session",
            team_name="code-review",
            teammate_name="reviewer-1",
            prompt="Review for security issues",
        )
        r2 = await call(c, "start_session", team_name="code-review", prompt="Review for speed")
        assert r1["status"] == r2["status"] == "ready"
        assert r1["teammate_name"] == "reviewer-1"
        assert r2["teammate_name"] == f"session-{r2['session_id'][:8]}"  # generated
        listed = await call(c, "list_sessions", team_filter="code-review")
        assert {s["teammate_name"] for s in listed["sessions"]} == {
            "reviewer-1",
            r2["teammate_name"],
        }
        # The session's environment (seed 004, Doppler Integration).
        env = factory.specs[1].env
        assert env["CLAUDE_SESSION_ID"] == r2["session_id"]
        assert env["CLAUDE_TEAM_NAME"] == "code-review"
        assert env["CLAUDE_TEAMMATE_NAME"] == r2["teammate_name"]

        sid = r1["session_id"]
        await call(c, "wait_for_completion", session_id=sid)
        killed = await call(c, "kill_session", session_id=sid, force=True)
        assert killed["status"] == "killed" and killed["state_saved"] is True
        again = await call(c, "kill_session", session_id=sid)
        assert again["status"] == "already_dead"
        resumed = await call(c, "resume_session", session_id=sid, message="Continue from here")
        assert resumed["status"] in ("ready", "resuming")
        assert resumed["previous_state"]["created_at"] == r1["started_at"]
        assert factory.specs[-1].resume == sid
        assert factory.specs[-1].env["CLAUDE_SESSION_ID"] == sid
        done = await call(c, "wait_for_completion", session_id=sid)
        assert done["completed"] is True and done["final_state"] == "idle"

        unknown = str(uuid.uuid4())
        assert (await call(c, "kill_session", session_id=unknown))["status"] == "not_found"
        assert (await call(c, "resume_session", session_id=unknown))["status"] == "not_found"


async def test_errors_come_in_the_seed_envelope(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        missing = await fails(c, "send_message", session_id="abc123", message="hi")
        assert missing.error.code == "SESSION_NOT_FOUND" and missing.error.retryable is False
        assert missing.error.suggestion and "list_sessions" in missing.error.suggestion
        assert "claude_" not in missing.error.suggestion  # advice in the seed's tool names
        assert missing.error.details == {"cctui_code": "session_not_found"}
        assert (await fails(c, "wait_for_completion", session_id="abc123")).error.code == (
            "SESSION_NOT_FOUND"
        )
        assert (await fails(c, "stream_output", session_id="abc123")).error.code == (
            "SESSION_NOT_FOUND"
        )
        bad_id = await fails(c, "start_session", session_id="not-a-uuid")
        assert bad_id.error.code == "VALIDATION_ERROR"
        typo = await fails(c, "start_session", promt="hi")
        assert typo.error.code == "VALIDATION_ERROR" and "promt" in typo.error.message
        # The seed's unit test: a Doppler project wraps the launch in `doppler run`; with no
        # doppler installed that is the seed's DOPPLER_ERROR, before anything is spawned.
        doppler = await fails(c, "start_session", doppler_project="my-project")
        assert doppler.error.code == "DOPPLER_ERROR", doppler
        # The claude_* tools keep cctui's own flat error.
        flat = await c.call_tool("claude_send_message", {"sessionId": "abc123", "message": "x"})
        assert json.loads(first_text(flat))["code"] == "session_not_found"


async def test_every_timestamp_ends_in_z(server: CctuiMCPServer) -> None:
    """The claude_* tools too: their seed-004 fields parse with z.string().datetime()."""
    stamps: list[str] = []

    def collect(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                collect(v, k)
        elif isinstance(value, list):
            for v in value:
                collect(v, key)
        elif isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}T", value):
            stamps.append(value)

    async with client(server) as c:
        for tool, args in [
            ("claude_create_session", {"prompt": "hello"}),
        ]:
            out = (await c.call_tool(tool, args)).structured_content
            collect(out)
        sid = out["sessionId"]
        for tool, args in [
            ("claude_wait", {"sessionId": sid, "timeoutMs": 5000}),
            ("claude_send_message", {"sessionId": sid, "message": "more", "wait": True}),
            ("claude_list_sessions", {}),
            ("claude_sync_context", {"sessionId": sid, "context_type": "env"}),
            ("claude_kill_session", {"sessionId": sid}),
            ("claude_query", {"prompt": "a query"}),
        ]:
            result = await c.call_tool(tool, args)
            assert not result.is_error, first_text(result)
            collect(result.structured_content)
    assert len(stamps) >= 8, stamps
    bad = [s for s in stamps if not ZOD_DATETIME.match(s)]
    assert not bad, bad


async def test_list_sessions_returns_every_session_and_counts_them_all(
    tmp_path: Path, project: Path, factory: FakeDriverFactory, settings: Settings
) -> None:
    """No limit: every session (cctui's claude_list_sessions stops at 50); total_count
    counts all sessions, filtered_count those that match."""
    from cctui.core.records import SessionRecords

    records = [
        SessionRecord.fresh(
            str(uuid.uuid4()),
            SessionConfig(cwd=project, team="blue" if n % 3 == 0 else None),
            title=f"old {n}",
            status=SessionStatus.COMPLETED,
        )
        for n in range(60)
    ]
    SessionRecords(settings.state_dir).save(records)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            every = await call(c, "list_sessions")
            assert len(every["sessions"]) == every["total_count"] == every["filtered_count"] == 60
            blue = await call(c, "list_sessions", team_filter="blue", limit=5)
            assert len(blue["sessions"]) == 5
            assert blue["total_count"] == 60 and blue["filtered_count"] == 20
            active = await call(c, "list_sessions", status_filter="active")
            assert active["sessions"] == [] and active["total_count"] == 60
            rich = await call(c, "list_sessions", include_metadata=True, limit=1)
            assert rich["sessions"][0]["title"].startswith("old ")
    finally:
        await manager.shutdown()


async def test_a_seed_timeout_is_never_cut_unsaid(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed names on claude_wait: a timeout_ms past what it waits (55 s; 0.3 s here) ends
    timed_out with a note on how to go on (it was cut to 55 s without a word), while
    wait_for_completion waits the whole timeout_ms."""
    monkeypatch.setattr(compat, "MAX_WAIT_MS", 300)
    # Each turn is held until the test lets it end: a turn of fixed length could end under
    # load before the wait that should be cut began.
    cut_seen, never = asyncio.Event(), asyncio.Event()
    factory = fake_driver_factory(
        {
            "work": [text("thinking"), hold(cut_seen), text("done")],
            "more": [text("thinking"), hold(never)],
        }
    )
    settings = make_settings(tmp_path, default_cwd=project)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            sid = (await call(c, "start_session", prompt="work"))["session_id"]
            r = await c.call_tool("claude_wait", {"session_id": sid, "timeout_ms": 300_000})
            cut = r.structured_content
            assert cut is not None and cut["timed_out"] is True, cut
            assert "claude_wait" in cut["note"] and "wait_for_completion" in cut["note"]
            cut_seen.set()
            whole = await call(c, "wait_for_completion", session_id=sid, timeout_ms=300_000)
            assert whole["completed"] is True and whole["timed_out"] is False
            # send_message's own timeout, short, says how to go on in the seed's words.
            short = await call(c, "send_message", session_id=sid, message="more", timeout_ms=200)
            assert short["timed_out"] is True and "wait_for_completion" in short["note"]
    finally:
        cut_seen.set()
        never.set()
        await manager.shutdown()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_long_wait_keeps_the_call_alive_with_progress(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Both protocol eras: in 2026-07-28 the wait runs in a resolver, still heartbeating.
    The turn is held until three beats came (a fixed-length turn could end under load
    before the wait began, and the wait then rightly returned with no beat)."""
    monkeypatch.setattr(waiting, "HEARTBEAT_S", 0.2)
    beaten = asyncio.Event()
    factory = fake_driver_factory({"*": [text("thinking"), hold(beaten), text("done")]})
    settings = make_settings(tmp_path, default_cwd=project)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    beats: list[str | None] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        beats.append(message)
        if len(beats) >= 3:
            beaten.set()

    try:
        async with client(build_server(manager, settings), mode=mode) as c:
            sid = (await call(c, "start_session", prompt="work"))["session_id"]
            async with asyncio.timeout(60):  # no heartbeat: the turn would wait forever
                result = await c.call_tool(
                    "wait_for_completion",
                    {"session_id": sid, "timeout_ms": 600_000},
                    progress_callback=progress,
                )
            out = json.loads(first_text(result))
            assert out["completed"] is True and out["timed_out"] is False
            assert len(beats) >= 3 and all(b and sid in b for b in beats), beats
    finally:
        beaten.set()
        await manager.shutdown()


async def test_stream_output_follows_the_turn(tmp_path: Path, project: Path) -> None:
    factory = fake_driver_factory({"*": [text("first part "), sleep(0.5), text("second part")]})
    settings = make_settings(tmp_path, default_cwd=project)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    chunks: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        chunks.append(message or "")

    try:
        async with client(build_server(manager, settings)) as c:
            sid = (await call(c, "start_session", prompt="go"))["session_id"]
            result = await c.call_tool(
                "stream_output", {"session_id": sid, "follow": True}, progress_callback=progress
            )
            out = json.loads(first_text(result))
            assert "second part" in out["output"]
            assert "second part" in "".join(chunks), chunks
            tail = await call(c, "stream_output", session_id=sid, lines=1)
            assert tail["lines"] == [out["lines"][-1]]
    finally:
        await manager.shutdown()


async def test_log_file_gets_the_session_output(
    server: CctuiMCPServer, project: Path, tmp_path: Path
) -> None:
    async with client(server) as c:
        started = await call(c, "start_session", prompt="hello log", log_file="logs/session.log")
        await call(c, "wait_for_completion", session_id=started["session_id"])
        log = project / "logs" / "session.log"
        lines = log.read_text().splitlines()
        assert any(line.endswith("> hello log") for line in lines), lines
        assert any(line.endswith("Echo: hello log") for line in lines), lines
        assert all(ZOD_DATETIME.match(line.split(" ", 1)[0]) for line in lines)
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        for where in (
            "/etc/cctui-test.log",
            str(tmp_path / "elsewhere.log"),
            ".git/hooks/x",
            ".claude/settings.local.json",
            "../escape.log",
        ):
            refused = await fails(c, "start_session", log_file=where)
            assert refused.error.code == "VALIDATION_ERROR", where
        assert not (tmp_path / "elsewhere.log").exists()


async def test_include_context_prepends_the_project_context(
    server: CctuiMCPServer, factory: FakeDriverFactory
) -> None:
    async with client(server) as c:
        sid = (await call(c, "start_session"))["session_id"]
        out = await call(
            c, "send_message", session_id=sid, message="What changed?", include_context=True
        )
        assert out["message_sent"] is True
        sent = factory.drivers[-1].sent[-1]
        assert sent.startswith("[cctui context sync: all") and sent.endswith("What changed?")
        synced = await call(c, "sync_context", session_id=sid, context_type="env")
        assert synced["context_type"] == "env" and synced["env_vars_synced"] > 0


async def test_resume_overrides_cwd_and_doppler(
    server: CctuiMCPServer,
    factory: FakeDriverFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    doppler = bin_dir / "doppler"
    doppler.write_text("#!/bin/sh\nexit 0\n")
    doppler.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    other = tmp_path / "other"
    other.mkdir()
    async with client(server) as c:
        sid = (await call(c, "start_session", prompt="hi"))["session_id"]
        await call(c, "wait_for_completion", session_id=sid)
        await call(c, "kill_session", session_id=sid)
        out = await call(
            c, "resume_session", session_id=sid, cwd=str(other), doppler_project="proj-x"
        )
        assert out["status"] in ("ready", "resuming")
        spec = factory.specs[-1]
        assert spec.resume == sid and spec.cwd == other.resolve()
        assert spec.launch_prefix == (
            "doppler",
            "run",
            "--project",
            "proj-x",
            "--config",
            "dev",
            "--",
        )
        # A live session with a new override is restarted with it.
        out = await call(c, "resume_session", session_id=sid, doppler_config="prd")
        assert factory.specs[-1].launch_prefix[:6] == (
            "doppler",
            "run",
            "--project",
            "proj-x",
            "--config",
            "prd",
        )
        assert len(factory.specs) == 3


async def test_a_session_past_max_session_duration_is_ended_and_says_why(
    tmp_path: Path, project: Path, factory: FakeDriverFactory
) -> None:
    settings = make_settings(tmp_path, default_cwd=project, max_session_duration_ms=300)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            sid = (await call(c, "start_session", prompt="hello"))["session_id"]
            for _ in range(50):
                if not manager.get(sid).is_active:
                    break
                await asyncio.sleep(0.1)
            info = manager.get(sid)
            assert not info.is_active and info.status == SessionStatus.ERROR
            assert info.error and "MAX_SESSION_DURATION" in info.error
            rows = (await call(c, "list_sessions", status_filter="error"))["sessions"]
            assert [r["session_id"] for r in rows] == [sid]
            # A new message resumes it, with a fresh allowance of time.
            out = await call(c, "send_message", session_id=sid, message="again")
            assert out["response"] == "Echo: again"
    finally:
        await manager.shutdown()
