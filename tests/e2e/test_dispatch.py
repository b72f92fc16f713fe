"""The dispatcher end to end: an MCP client, the real ``claude`` CLI and the fake Messages
API. Five sessions at ``max_sessions = 2``, a permission that holds no slot, ``after``, a
schedule, and the plan's usage limit as Anthropic's API answers it (``docs/dispatch.md``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import Decision, SessionManager, SessionStatus
from cctui.mcp_server.server import build_server
from cctui.pids import pid_running
from cctui.timestamps import iso_z
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.clock import FakeClock
from tests.mcp.conftest import client, ok

pytestmark = pytest.mark.e2e
S = SessionStatus


@pytest.fixture
def make(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path, project_dir: Path
) -> Callable[..., Settings]:
    def settings(**kw: Any) -> Settings:
        return Settings(
            claude_code_path=claude_bin,
            claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
            state_dir=tmp_path / "state",
            default_cwd=project_dir,
            permission_timeout_ms=30_000,
            **kw,
        )

    return settings


@pytest.fixture
async def managers() -> AsyncIterator[list[SessionManager]]:
    made: list[SessionManager] = []
    yield made
    for m in made:
        await m.shutdown()


async def start(
    made: list[SessionManager], settings: Settings, clock: FakeClock | None = None
) -> SessionManager:
    manager = SessionManager(settings)
    if clock is not None:
        manager.dispatch.clock = clock
    await manager.start()
    made.append(manager)
    return manager


async def until(check: Callable[[], bool], wait_s: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + wait_s
    while not check():
        assert loop.time() < end, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_five_sessions_over_mcp_run_two_at_a_time_in_order(
    make: Callable[..., Settings], managers: list[SessionManager], fake_api: FakeAnthropicAPI
) -> None:
    manager = await start(managers, make(max_sessions=2))
    started: list[str] = []
    queues: list[list[str]] = []  # the queue as every event found it

    def seen(e: Any) -> None:
        queues.append([q.session_id for q in manager.dispatch.queued()])
        if e.kind == "status" and getattr(e, "status", None) == S.STARTING:
            started.append(e.session_id)

    manager.subscribe(seen)
    async with client(build_server(manager, manager.settings)) as c:
        made = await asyncio.gather(
            *(
                ok(
                    c,
                    "claude_create_session",
                    {"prompt": f"[[stall seconds=2]] run {n}", "queue": True},
                )
                for n in range(5)
            )
        )
        ids = [m["sessionId"] for m in made]
        assert [m["status"] for m in made] == ["running"] * 2 + ["queued"] * 3
        assert [m.get("queuePosition") for m in made[2:]] == [1, 2, 3]
        queue = await ok(c, "claude_queue", {})
        assert [q["sessionId"] for q in queue["queued"]] == ids[2:]
        assert queue["queued"][2]["note"] == "queued 3rd" and queue["working"] == 2
        for sid in ids:  # a wait on a queued session waits for it to start and finish
            w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 40_000})
            assert w["reason"] == "turn_ended", w
        # First in, first out: the queue only ever loses its head. Sessions taken in one
        # pass (two slots freed together) are spawned side by side, each reading its diff
        # base in a thread first, so their STARTING events may come in either order.
        assert set(started[:2]) == set(ids[:2]) and sorted(started[2:]) == sorted(ids[2:])
        heads = [ids.index(q[0]) for q in queues if q]
        assert all(q == ids[ids.index(q[0]) :][: len(q)] for q in queues if q), queues
        assert heads == sorted(heads) and heads[0] == 2, queues
        assert ids[2:] in queues and queues[-1] == []
        results = [(await ok(c, "claude_get_status", {"sessionId": s}))["result"] for s in ids]
        assert results == [f"OK: [[stall seconds=2]] run {n}" for n in range(5)]


async def test_a_permission_wait_holds_no_slot_and_a_seed_client_reads_starting(
    make: Callable[..., Settings], managers: list[SessionManager]
) -> None:
    manager = await start(managers, make(max_sessions=1))
    async with client(build_server(manager, manager.settings)) as c:
        asking = await ok(c, "claude_create_session", {"prompt": "[[write path=a.txt content=x]]"})
        # Full while the first one starts: a seed client's call gets an id and its word.
        second = await ok(c, "claude_create_session", {"prompt": "[[say text=second]]"})
        assert second["status"] == "running" and second["state"] == "queued"
        w = await ok(c, "claude_wait", {"sessionId": asking["sessionId"], "timeoutMs": 30_000})
        assert w["reason"] == "input_needed"
        w = await ok(c, "claude_wait", {"sessionId": second["sessionId"], "timeoutMs": 30_000})
        assert w["reason"] == "turn_ended" and w["reply"] == "second"
        [pending] = manager.pending(asking["sessionId"])
        manager.respond(pending.id, Decision(behavior="allow"), "tui")


async def test_after_two_runs_with_their_replies_and_not_after_a_kill(
    make: Callable[..., Settings], managers: list[SessionManager], fake_api: FakeAnthropicAPI
) -> None:
    manager = await start(managers, make())
    async with client(build_server(manager, manager.settings)) as c:
        a = await ok(c, "claude_create_session", {"prompt": "[[say text=alpha result]]"})
        b = await ok(c, "claude_create_session", {"prompt": "[[stall seconds=2]] beta"})
        child = await ok(
            c,
            "claude_create_session",
            {
                "prompt": "combine them",
                "after": [a["sessionId"], b["sessionId"]],
                "includeParentResults": "reply",
            },
        )
        assert child["status"] == "queued" and child["dispatchNote"].startswith("waits for")
        w = await ok(c, "claude_wait", {"sessionId": child["sessionId"], "timeoutMs": 40_000})
        assert w["reason"] == "turn_ended"
        prompts = [r.prompt for r in fake_api.requests if r.is_messages]
        sent = next(p for p in prompts if p.startswith("combine them"))
        assert "alpha result" in sent and "OK: [[stall seconds=2]] beta" in sent

        slow = await ok(c, "claude_create_session", {"prompt": "[[stall seconds=20]] slow"})
        fine = await ok(c, "claude_create_session", {"prompt": "[[say text=fine]]"})
        waiting = await ok(
            c,
            "claude_create_session",
            {"prompt": "never", "after": [slow["sessionId"], fine["sessionId"]]},
        )
        await ok(c, "claude_kill_session", {"sessionId": slow["sessionId"]})
        await until(lambda: manager.get(waiting["sessionId"]).status == S.CANCELLED)
        status = await ok(c, "claude_get_status", {"sessionId": waiting["sessionId"]})
        assert status["state"] == "cancelled" and status["status"] == "error"
        assert slow["sessionId"][:8] in status["error"] and "killed" in status["error"]
        refused = await c.call_tool(
            "claude_create_session", {"prompt": "x", "after": [slow["sessionId"]]}
        )
        assert refused.is_error


async def test_a_schedule_over_mcp_fires_once_across_a_restart(
    make: Callable[..., Settings], managers: list[SessionManager]
) -> None:
    clock = FakeClock()
    first = await start(managers, make(), clock)
    async with client(build_server(first, first.settings)) as c:
        made = await ok(
            c,
            "claude_schedule",
            {"name": "soon", "when": "in 2 minutes", "prompt": "[[say text=scheduled]]"},
        )
        assert made["nextRun"] and made["missed"] == "once"
    await first.shutdown()
    clock.advance(minutes=2, seconds=30)
    again = await start(managers, make(), clock)
    await again.dispatch.tick()
    await again.dispatch.tick()
    async with client(build_server(again, again.settings)) as c:
        listed = await ok(c, "claude_list_schedules", {})
        [schedule] = listed["schedules"]
        [run] = schedule["lastRuns"]
        w = await ok(c, "claude_wait", {"sessionId": run["sessionId"], "timeoutMs": 30_000})
        assert w["reply"] == "scheduled"
        pid = again.get(run["sessionId"]).pid
        assert pid is not None
        # Nobody waits at a run for a next message: its claude ends with its turn.
        await until(lambda: again.get(run["sessionId"]).status == SessionStatus.COMPLETED)
        status = await ok(c, "claude_get_status", {"sessionId": run["sessionId"]})
        assert status["session"]["schedule"] == "soon"
        assert status["session"]["state"] == "completed" and status["session"]["pid"] is None
        await until(lambda: not pid_running(pid))
        gone = await ok(c, "claude_cancel_schedule", {"schedule": "soon"})
        assert gone["name"] == "soon"
        assert (await ok(c, "claude_list_schedules", {}))["schedules"] == []


async def test_the_usage_limit_pauses_and_resumes_at_the_reset(
    make: Callable[..., Settings],
    managers: list[SessionManager],
    fake_api: FakeAnthropicAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The CLI reads the unified rate-limit headers only for a claude.ai sign-in.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-fake")
    reset = int(time.time()) + 3600  # the fake clock gets there, not the test
    clock = FakeClock(datetime.now(UTC))
    manager = await start(managers, make(), clock)
    async with client(build_server(manager, manager.settings)) as c:
        # Refused twice at the same reset: the first continue at the reset is refused too.
        hit = await ok(
            c, "claude_create_session", {"prompt": f"hit [[usage-limit at={reset} times=2]]"}
        )
        sid = hit["sessionId"]
        await until(lambda: manager.get(sid).status == S.PAUSED)
        status = await ok(c, "claude_get_status", {"sessionId": sid})
        assert status["state"] == "paused_usage_limit" and status["status"] == "running"
        assert status["resumesAt"] == iso_z(datetime.fromtimestamp(reset, UTC))
        assert status["dispatchNote"].startswith("paused until")
        held = await ok(c, "claude_create_session", {"prompt": "[[say text=later]]"})
        assert held["state"] == "queued" and "usage limit" in held["dispatchNote"]
        clock.set(datetime.fromtimestamp(reset + 1, UTC))
        await manager.dispatch.tick()
        # The CLI reports the window only when it changes: this refusal brings no
        # rate_limit_event, only its 429 result. Paused again, not failed.
        await until(lambda: len(fake_api.message_requests) >= 3)
        await until(lambda: manager.get(sid).status == S.PAUSED)
        hold = manager.dispatch.hold
        assert hold is not None and hold.until > clock.now()
        clock.set(hold.until + timedelta(seconds=1))
        await manager.dispatch.tick()
        w = await ok(c, "claude_wait", {"sessionId": held["sessionId"], "timeoutMs": 40_000})
        assert w["reply"] == "later"
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 40_000})
        assert w["state"] == "idle", w
        assert w["reply"].startswith("OK: hit") and "Your usage limit" in w["reply"]
