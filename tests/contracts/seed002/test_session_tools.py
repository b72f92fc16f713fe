"""Seed 002's six tools, called as its own client calls them (its argument names, no
cctui extras), against the real ``claude`` CLI: configuration the user already has keeps
working, interrupt says ``interrupted``, and every listed session is usable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from cctui.config import Settings, load_settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from tests.content import first_text
from tests.contracts.clients import over_http, over_stdio
from tests.contracts.seed002.test_flow_a import WRITE, poll
from tests.mcp.conftest import ok

pytestmark = pytest.mark.e2e

SEED_STATUSES = {"running", "waiting_for_input", "completed", "error", "interrupted"}


@pytest.mark.parametrize("word", ["warn", "WARN", "warning", "info", "debug", "error"])
def test_log_level_words_of_the_seed_configure_cctui(word: str) -> None:
    """Seed 002's configuration table: LOG_LEVEL is one of debug, info, warn, error."""
    assert load_settings(env={"LOG_LEVEL": word}).log_level in {"DEBUG", "INFO", "WARNING", "ERROR"}


async def test_cctui_starts_over_stdio_with_log_level_warn(
    claude_env: dict[str, str], project_dir: Path
) -> None:
    """The seed's client config, verbatim apart from the command: cctui must start."""
    env = {
        **claude_env,
        "PERMISSION_TIMEOUT_MS": "300000",
        "MAX_SESSIONS": "10",
        "LOG_LEVEL": "warn",
        "CLAUDE_CODE_DEFAULT_CWD": str(project_dir),
    }
    async with over_stdio(env, "seed002-stdio") as c:
        tools = {t.name for t in (await c.list_tools()).tools}
        assert {
            "claude_create_session",
            "claude_send_message",
            "claude_get_status",
            "claude_respond",
            "claude_interrupt",
            "claude_list_sessions",
        } <= tools
        created = await ok(c, "claude_create_session", {"prompt": "[[say text=hi]]"})
        done = await poll(c, created["sessionId"], lambda s: s["status"] == "completed")
        assert done["result"] == "hi"


def test_log_level_warn_on_the_command_line_starts(tmp_path: Path) -> None:
    """A command that loads the settings (the session list) runs with LOG_LEVEL=warn."""
    env = {
        **os.environ,
        "LOG_LEVEL": "warn",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
    }
    out = subprocess.run(
        [sys.executable, "-m", "cctui", "sessions", "--json"],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


async def test_no_permission_mode_keeps_the_users_default_mode(
    real_http: HttpService, claude_env: dict[str, str], project_dir: Path
) -> None:
    """settings.json says acceptEdits: a Write runs without asking (the CLI's configured
    mode applies; cctui passes no --permission-mode)."""
    config_dir = Path(claude_env["CLAUDE_CONFIG_DIR"])
    (config_dir / "settings.json").write_text(
        json.dumps({"permissions": {"defaultMode": "acceptEdits"}})
    )
    async with over_http(real_http, "seed002") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"}))["sessionId"]
        status = await poll(c, sid, lambda s: s["status"] != "running")
        assert status["status"] == "completed", status
        assert status["pendingInputs"] == []
    assert (project_dir / "hello.txt").read_text().strip() == "hi"


async def test_interrupt_says_interrupted_once_the_turn_stopped(real_http: HttpService) -> None:
    async with over_http(real_http, "seed002") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "[[slow seconds=30 chunks=60]]"}))[
            "sessionId"
        ]
        await poll(c, sid, lambda s: bool(s["recentOutput"]))
        out = await ok(c, "claude_interrupt", {"sessionId": sid})
        assert out["sessionId"] == sid and out["status"] == "interrupted", out
        assert out["wasRunning"] is True
        status = await ok(c, "claude_get_status", {"sessionId": sid})
        assert status["status"] in ("interrupted", "completed")  # the turn is over
        assert status["state"] != "running"
        idle = await ok(c, "claude_interrupt", {"sessionId": sid})  # nothing runs now
        assert idle["status"] == "interrupted" and idle["wasRunning"] is False
        assert "No turn was running" in idle["note"]
        # Seed 002: the session can be resumed afterwards.
        sent = await ok(
            c, "claude_send_message", {"sessionId": sid, "message": "[[say text=back]]"}
        )
        assert sent["status"] in SEED_STATUSES
        done = await poll(c, sid, lambda s: s["status"] == "completed" and s["result"] == "back")
        assert done["result"] == "back"


async def test_every_listed_session_works_with_every_session_tool(
    real_settings: Settings, claude_env: dict[str, str], project_dir: Path
) -> None:
    """A session from an earlier server lifetime (only Claude Code's files know it) is
    listed; get_status, wait, interrupt, kill and send_message all accept it."""
    first = SessionManager(real_settings)
    await first.start()
    past = str(uuid.uuid4())
    await first.create(
        "[[say text=first life]]", first.default_config(project_dir), session_id=past
    )
    await first.wait(past, 30)
    await first.shutdown()
    # cctui's own record is gone too: only Claude Code's transcript remains.
    (real_settings.state_dir / "sessions.json").unlink()
    manager = SessionManager(real_settings)
    await manager.start()
    service = HttpService(build_server(manager, real_settings), real_settings)
    await service.start()
    try:
        async with over_http(service, "seed002") as c:
            listed = await ok(c, "claude_list_sessions", {"projectDirectory": str(project_dir)})
            [row] = [r for r in listed["sessions"] if r["sessionId"] == past]
            assert row["isActive"] is False  # no process of this server
            status = await ok(c, "claude_get_status", {"sessionId": past})
            assert status["status"] == "completed" and status["isActive"] is False
            waited = await ok(c, "claude_wait", {"sessionId": past, "timeoutMs": 1000})
            assert waited["sessionId"] == past
            stopped = await ok(c, "claude_interrupt", {"sessionId": past})
            assert stopped["status"] == "interrupted" and stopped["wasRunning"] is False
            killed = await ok(c, "claude_kill_session", {"sessionId": past})
            assert killed["sessionId"] == past
            await ok(c, "claude_send_message", {"sessionId": past, "message": "[[say text=again]]"})
            done = await poll(c, past, lambda s: s["result"] == "again")
            assert done["isActive"] is True
            listed = await ok(c, "claude_list_sessions", {})
            [row] = [r for r in listed["sessions"] if r["sessionId"] == past]
            assert row["isActive"] is True
    finally:
        await service.stop()
        await manager.shutdown()


async def test_limits_the_seed_does_not_have_are_not_refused(real_http: HttpService) -> None:
    async with over_http(real_http, "seed002") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "[[say text=hi]]"}))["sessionId"]
        await poll(c, sid, lambda s: s["status"] == "completed")
        status = await ok(c, "claude_get_status", {"sessionId": sid, "outputLines": 5000})
        assert status["recentOutput"]
        listed = await ok(c, "claude_list_sessions", {"limit": 100000})
        assert sid in {r["sessionId"] for r in listed["sessions"]}
        page = await ok(c, "claude_list_sessions", {"limit": 1})
        assert len(page["sessions"]) == 1


async def test_an_id_nobody_knows_is_still_session_not_found(real_http: HttpService) -> None:
    """Unknown to cctui and without a transcript: nothing to read or resume."""
    async with over_http(real_http, "seed002") as c:
        r = await c.call_tool("claude_get_status", {"sessionId": str(uuid.uuid4())})
        assert r.is_error and "session_not_found" in first_text(r)
