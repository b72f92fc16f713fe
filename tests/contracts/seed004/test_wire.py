"""A seed-004 client against cctui running the real ``claude`` CLI (fake Anthropic API),
over stdio (``cctui serve --stdio``, the default profile, configured by the seed's own
environment names) and over Streamable HTTP in both protocol eras. Every answer is parsed
with the seed's schemas (``client.call``)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from tests.contracts.seed004.client import call, fails
from tests.contracts.seed004.schemas import MANIFEST
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.seed_home import seed_claude_home
from tests.fakes.settings import make_settings
from tests.mcp.conftest import Answers, client

pytestmark = pytest.mark.e2e

TRANSPORTS = ["stdio", "http-2025-11-25", "http-2026-07-28"]


@pytest.fixture
def seed_settings(tmp_path: Path, claude_env: dict[str, str], project_dir: Path) -> Settings:
    return make_settings(
        tmp_path,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=Path(claude_env["XDG_STATE_HOME"]) / "cctui",
        default_cwd=project_dir,
        permission_timeout_ms=20_000,
    )


@asynccontextmanager
async def http_service(settings: Settings) -> AsyncIterator[HttpService]:
    manager = SessionManager(settings)
    await manager.start()
    service = HttpService(build_server(manager, settings), settings)
    await service.start()
    try:
        yield service
    finally:
        await service.stop()
        await manager.shutdown()


@pytest.fixture
async def seed_http(seed_settings: Settings) -> AsyncIterator[HttpService]:
    async with http_service(seed_settings) as service:
        yield service


@pytest.fixture(params=TRANSPORTS)
async def transport(
    request: pytest.FixtureRequest, seed_settings: Settings
) -> AsyncIterator[tuple[str, HttpService | None]]:
    """Each transport; the HTTP ones with cctui's server in this process."""
    if request.param == "stdio":
        yield request.param, None
        return
    async with http_service(seed_settings) as service:
        yield request.param, service


@asynccontextmanager
async def connect(
    transport: str,
    claude_env: dict[str, str],
    project_dir: Path,
    tmp_path: Path,
    http: HttpService | None,
    answers: Answers,
    **kwargs: Any,
) -> AsyncIterator[Any]:
    """A client as seed 004's users run it: the seed's environment names over stdio
    (``kwargs`` go to the client, e.g. its ``logging_callback``)."""
    if transport == "stdio":
        env = {
            **claude_env,
            "CLAUDE_CODE_DEFAULT_CWD": str(project_dir),
            "STATE_DIR": str(tmp_path / "seed-state"),
            "MCP_LOG_LEVEL": "info",
            "MAX_CONCURRENT_SESSIONS": "4",
            "MAX_SESSION_DURATION": "600000",
            "BACKUP_ENABLED": "true",
        }
        target: Any = StdioServerParameters(
            command=sys.executable,
            args=["-m", "cctui", "serve", "--stdio"],
            env=env,
        )
        mode = "legacy"
    else:
        assert http is not None
        raw = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {http.token}"},
            timeout=httpx2.Timeout(30, read=120),
        )
        target = streamable_http_client(http.url, http_client=raw)
        mode = "legacy" if transport.endswith("2025-11-25") else "auto"
    async with client(target, name="seed004", elicit=answers, mode=mode, **kwargs) as c:
        yield c


async def test_a_seed_004_session_from_start_to_resume(
    transport: tuple[str, HttpService | None],
    claude_env: dict[str, str],
    project_dir: Path,
    tmp_path: Path,
) -> None:
    name, http = transport
    answers = Answers("accept", {"decision": "allow"})
    async with connect(name, claude_env, project_dir, tmp_path, http, answers) as c:
        listed = {t.name for t in (await c.list_tools()).tools}
        assert set(MANIFEST) <= listed

        # Pattern 2 and 3 of the seed: a team member with a first prompt, logged to a file.
        started = await call(
            c,
            "start_session",
            cwd=str(project_dir),
            team_name="dev-team",
            prompt="[[say text=Hello]]",
            log_file="logs/session.log",
        )
        assert started["status"] == "ready"
        sid = started["session_id"]
        assert started["teammate_name"] == f"session-{sid[:8]}"
        environ = Path(f"/proc/{started['pid']}/environ").read_bytes().split(b"\0")
        assert f"CLAUDE_SESSION_ID={sid}".encode() in environ
        assert b"CLAUDE_TEAM_NAME=dev-team" in environ
        assert f"CLAUDE_TEAMMATE_NAME=session-{sid[:8]}".encode() in environ

        done = await call(c, "wait_for_completion", session_id=sid)  # the seed's 5 min
        assert done["completed"] is True and done["timed_out"] is False
        assert done["final_state"] == "idle" and done["response"] == "Hello"

        active = await call(c, "list_sessions", status_filter="active")
        assert sid in [s["session_id"] for s in active["sessions"]]
        assert active["total_count"] >= active["filtered_count"] >= 1

        sent = await call(
            c, "send_message", session_id=sid, message="Hello, Claude!", wait_for_response=True
        )
        assert sent["message_sent"] is True and sent["response"] == "OK: Hello, Claude!"

        # A decision on the way is asked by elicitation, and the reply still comes back.
        wrote = await call(
            c,
            "send_message",
            session_id=sid,
            message="[[write path=hello.txt content=hi]]",
            timeout_ms=60_000,
        )
        assert answers.asked and "Write" in answers.asked[0]
        assert wrote["response"] and (project_dir / "hello.txt").read_text().strip() == "hi"

        synced = await call(c, "sync_context", session_id=sid, context_type="git")
        assert synced["git_status_synced"] is False and synced["warnings"]
        await call(c, "wait_for_completion", session_id=sid)
        output = await call(c, "stream_output", session_id=sid, lines=5)
        assert output["lines"]

        killed = await call(c, "kill_session", session_id=sid)
        assert killed["status"] == "killed"
        assert (await call(c, "kill_session", session_id=sid))["status"] == "already_dead"

        resumed = await call(c, "resume_session", session_id=sid, message="Continue from here")
        assert resumed["status"] in ("ready", "resuming")
        assert resumed["previous_state"]["created_at"] == started["started_at"]
        again = await call(c, "wait_for_completion", session_id=sid)
        assert again["response"] == "OK: Continue from here"

        missing = await fails(c, "send_message", session_id="abc123", message="hi")
        assert missing.error.code == "SESSION_NOT_FOUND"
        gone = await call(c, "resume_session", session_id="8b1f2d3c-0000-4000-8000-000000000000")
        assert gone["status"] == "not_found"
        await call(c, "kill_session", session_id=sid)

    log = (project_dir / "logs" / "session.log").read_text()
    assert "> [[say text=Hello]]" in log and "OK: Continue from here" in log
    if name == "stdio":  # STATE_DIR and BACKUP_ENABLED, as the seed's env names them
        assert (tmp_path / "seed-state" / "sessions.json").exists()
        assert (tmp_path / "seed-state" / "sessions.json.bak").exists()


@pytest.mark.parametrize("transport", ["stdio", "http-2025-11-25"], indirect=True)
async def test_a_teammate_going_idle_sends_the_seed_idle_notice(
    transport: tuple[str, HttpService | None],
    claude_env: dict[str, str],
    project_dir: Path,
    tmp_path: Path,
) -> None:
    """Seed 004's ``notifyIdle(sessionId, reason)``: a team member whose turn ended, now
    waiting for work, is told to the client (a log message from logger ``teammates``, the
    notice as its data, in the seed's field names); a session in no team is not. Over the
    handshake-era transports, where the server can send between calls."""
    told: list[Any] = []
    arrived = anyio.Event()

    async def logged(params: Any) -> None:
        if params.logger == "teammates":
            told.append(params.data)
            arrived.set()

    name, http = transport
    answers = Answers("accept", {"decision": "allow"})
    async with connect(
        name, claude_env, project_dir, tmp_path, http, answers, logging_callback=logged
    ) as c:
        alone = await call(c, "start_session", cwd=str(project_dir), prompt="[[say text=solo]]")
        await call(c, "wait_for_completion", session_id=alone["session_id"])
        started = await call(
            c,
            "start_session",
            cwd=str(project_dir),
            team_name="code-review",
            teammate_name="reviewer-1",
            prompt="[[say text=Reviewed]]",
        )
        sid = started["session_id"]
        done = await call(c, "wait_for_completion", session_id=sid)
        assert done["final_state"] == "idle" and done["response"] == "Reviewed"
        with anyio.fail_after(60):  # only turns a hang into a failure
            await arrived.wait()
        await call(c, "kill_session", session_id=sid)
        await call(c, "kill_session", session_id=alone["session_id"])
    [notice] = told
    assert notice == {
        "type": "idle_notification",
        "session_id": sid,
        "team_name": "code-review",
        "teammate_name": "reviewer-1",
        "reason": "completed",
        "timestamp": notice["timestamp"],
    }
    assert notice["timestamp"].endswith("Z")


async def test_resume_in_another_directory_keeps_the_conversation(
    seed_http: HttpService,
    fake_api: FakeAnthropicAPI,
    claude_env: dict[str, str],
    project_dir: Path,
    tmp_path: Path,
) -> None:
    """resume_session's ``cwd`` override: the conversation goes on in the new directory."""
    other = (tmp_path / "other").resolve()
    other.mkdir()
    seed_claude_home(Path(claude_env["HOME"]), project_dir, other)
    answers = Answers("accept", {"decision": "allow"})
    async with connect(
        "http-2025-11-25", claude_env, project_dir, tmp_path, seed_http, answers
    ) as c:
        sid = (await call(c, "start_session", prompt="[[say text=first]]"))["session_id"]
        await call(c, "wait_for_completion", session_id=sid)
        await call(c, "kill_session", session_id=sid)
        resumed = await call(
            c,
            "resume_session",
            session_id=sid,
            cwd=str(other),
            message="[[bash cmd=pwd > where.txt]]",
        )
        assert resumed["status"] in ("ready", "resuming") and resumed["cwd"] == str(other)
        done = await call(c, "wait_for_completion", session_id=sid)
        assert done["completed"] is True, done
        # The CLI runs in the new directory, and the conversation is the same one.
        assert (other / "where.txt").read_text().strip() == str(other)
        last = fake_api.message_requests[-1].body
        assert "[[say text=first]]" in json.dumps(last["messages"])  # the same conversation
        rows = (await call(c, "list_sessions"))["sessions"]
        assert [r["cwd"] for r in rows if r["session_id"] == sid] == [str(other)]
