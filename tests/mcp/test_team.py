"""Teams, templates, launch prefixes, sync_context, metrics and the per-call audit, through
an in-memory MCP client over a FakeDriver-backed manager."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from cctui.config import SessionTemplate
from cctui.core import SessionManager, UserMessageEvent
from cctui.mcp_server.server import build_server
from tests.content import first_text
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.helpers import git
from tests.mcp.conftest import Answers, client, error_body, ok
from tests.snapshot_apps.history import write_transcript


@pytest.fixture
async def make(tmp_path: Path, project: Path, factory: FakeDriverFactory) -> Any:
    managers: list[SessionManager] = []

    async def build(**overrides: Any) -> tuple[SessionManager, Any]:
        settings = make_settings(tmp_path, default_cwd=project, **overrides)
        manager = SessionManager(settings, driver_factory=factory)
        await manager.start()
        managers.append(manager)
        return manager, build_server(manager, settings)

    yield build
    for m in managers:
        await m.shutdown()


async def test_broadcast_reaches_a_team_of_three_and_resumes_the_ended_one(
    make: Any, factory: FakeDriverFactory
) -> None:
    _manager, server = await make()
    async with client(server) as c:
        ids = {}
        for name in ("alice", "bob", "carol"):
            s = await ok(
                c,
                "claude_create_session",
                {"prompt": f"hi {name}", "team": "red", "teammate": name},
            )
            ids[name] = s["sessionId"]
            await ok(c, "claude_wait", {"sessionId": s["sessionId"], "timeoutMs": 5000})
        other = await ok(c, "claude_create_session", {"prompt": "not in the team", "team": "blue"})
        await ok(c, "claude_kill_session", {"sessionId": ids["bob"]})

        out = await ok(c, "claude_broadcast", {"team": "Red", "message": "Release at 5pm"})
        assert out["team"] == "Red" and out["delivered"] == 3 and out["failed"] == 0
        assert [r["teammate"] for r in out["results"]] == ["alice", "bob", "carol"]
        assert {r["sessionId"] for r in out["results"]} == set(ids.values())
        assert all(r["delivered"] and r["error"] is None for r in out["results"])

        for name, sid in ids.items():
            w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
            assert w["reason"] == "turn_ended", (name, w)
        got = {d.session_id: d.sent for d in factory.drivers if "Release at 5pm" in d.sent}
        assert set(got) == set(ids.values())
        assert got[ids["bob"]] == ["Release at 5pm"]  # a resumed process got bob's copy
        [blue] = [d for d in factory.drivers if d.session_id == other["sessionId"]]
        assert blue.sent == ["not in the team"]
        listed = await ok(c, "claude_list_sessions", {"team": "red"})
        assert {s["sessionId"] for s in listed["sessions"]} == set(ids.values())
        row = next(s for s in listed["sessions"] if s["sessionId"] == ids["carol"])
        assert row["team_name"] == row["team"] == "red"  # seed 004's names and cctui's
        assert row["teammate_name"] == row["teammate"] == "carol"


async def test_broadcast_reports_members_it_could_not_reach(make: Any) -> None:
    _manager, server = await make(max_sessions=2)
    async with client(server) as c:
        a = await ok(c, "claude_create_session", {"prompt": "a", "team": "t", "teammate": "a"})
        b = await ok(c, "claude_create_session", {"prompt": "b", "team": "t", "teammate": "b"})
        for s in (a, b):
            await ok(c, "claude_wait", {"sessionId": s["sessionId"], "timeoutMs": 5000})
        await ok(c, "claude_kill_session", {"sessionId": b["sessionId"]})
        await ok(c, "claude_create_session", {"prompt": "fills the last slot"})

        out = await ok(c, "claude_broadcast", {"team": "t", "message": "ping"})
        assert out["delivered"] == 1 and out["failed"] == 1
        by = {r["teammate"]: r for r in out["results"]}
        assert by["a"]["delivered"] and by["a"]["errorCode"] is None
        assert not by["b"]["delivered"] and by["b"]["errorCode"] == "session_limit"
        assert "MAX_SESSIONS" in by["b"]["error"]

        body = error_body(await c.call_tool("claude_broadcast", {"team": "nope", "message": "x"}))
        assert body["code"] == "team_not_found" and "t" in body["message"]


async def test_sync_context_sends_git_status_files_and_env_names(
    make: Any, project: Path, factory: FakeDriverFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CCTUI_TEST_SECRET_TOKEN", "hunter2-value")
    git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("# Demo\n")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hello from app')\n")
    git(project, "add", ".")
    git(project, "commit", "-qm", "init")
    (project / "README.md").write_text("# Demo, changed\n")
    (project / "notes.txt").write_text("untracked\n")
    (project.parent / "outside.txt").write_text("do not read me")
    (project / "link.txt").symlink_to(project.parent / "outside.txt")
    _manager, server = await make()
    async with client(server) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "start"}))["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})

        for bad in ("../outside.txt", str(project.parent / "outside.txt"), "link.txt"):
            body = error_body(
                await c.call_tool(
                    "claude_sync_context",
                    {"sessionId": sid, "context_type": "files", "paths": ["src/app.py", bad]},
                )
            )
            assert body["code"] == "validation_error" and "outside" in body["message"]
        assert factory.drivers[-1].sent == ["start"]  # a refused sync sends nothing

        out = await ok(
            c,
            "claude_sync_context",
            {"sessionId": sid, "context_type": "all", "paths": ["src/app.py", "src"]},
        )
        assert out["session_id"] == out["sessionId"] == sid
        assert out["context_type"] == "all" and out["git_status_synced"] is True
        assert out["files_synced"] == 1 and out["env_vars_synced"] > 0 and out["synced_at"]
        sent = factory.drivers[-1].sent[-1]
        assert len(sent) == out["message_chars"]
        assert "branch main" in sent and " M README.md" in sent and "?? notes.txt" in sent
        assert "print('hello from app')" in sent and "- src/app.py" in sent
        assert "CCTUI_TEST_SECRET_TOKEN" in sent and "hunter2-value" not in sent
        assert "do not read me" not in sent

        git_only = await ok(c, "claude_sync_context", {"sessionId": sid, "context_type": "git"})
        assert git_only["files_synced"] == 0 and git_only["env_vars_synced"] == 0
        assert "CCTUI_TEST_SECRET_TOKEN" not in factory.drivers[-1].sent[-1]


async def test_template_on_create_and_its_errors(make: Any, factory: FakeDriverFactory) -> None:
    review = SessionTemplate(
        prompt="Review the diff",
        model="opus",
        permission_mode="plan",
        allowed_tools=("Read",),
        max_turns=3,
        system_prompt="Be terse.",
    )
    manager, server = await make(templates={"review": review, "fix": SessionTemplate()})
    async with client(server) as c:
        s = await ok(c, "claude_create_session", {"template": "review", "model": "haiku"})
        spec = factory.drivers[-1].spec
        assert factory.drivers[-1].sent == ["Review the diff"]
        assert spec.model == "haiku"  # explicit wins
        assert spec.permission_mode == "plan" and spec.max_turns == 3
        assert spec.allowed_tools == ("Read",) and spec.append_system_prompt == "Be terse."
        assert manager.get(s["sessionId"]).config.template == "review"
        await ok(c, "claude_create_session", {"template": "review", "prompt": "Only main.py"})
        assert factory.drivers[-1].sent == ["Only main.py"]

        body = error_body(await c.call_tool("claude_create_session", {"template": "reveiw"}))
        assert body["code"] == "template_not_found"
        assert "fix, review" in body["message"] and body["suggestion"]


async def test_launch_prefix_on_create(
    make: Any, factory: FakeDriverFactory, tmp_path: Path
) -> None:
    manager, server = await make(launch_prefix=("env", "A=1"))
    async with client(server) as c:
        before = len(factory.drivers)
        body = error_body(
            await c.call_tool(
                "claude_create_session",
                {"prompt": "x", "launchPrefix": ["doppler-missing-xyz", "run", "--"]},
            )
        )
        assert (
            body["code"] == "launch_prefix_not_found" and "doppler-missing-xyz" in body["message"]
        )
        assert len(factory.drivers) == before and manager.list() == []
        body = error_body(
            await c.call_tool("claude_create_session", {"prompt": "x", "launchPrefix": "env A=1"})
        )
        assert body["code"] == "validation_error"  # a shell string is not a list

        def launch_prefix() -> tuple[str, ...]:
            # A call, not an attribute: mypy would keep each assert's narrowing for the next.
            return factory.drivers[-1].spec.launch_prefix

        await ok(c, "claude_create_session", {"prompt": "x"})
        assert launch_prefix() == ("env", "A=1")  # config default
        await ok(c, "claude_create_session", {"prompt": "x", "launchPrefix": []})
        assert launch_prefix() == ()
        await ok(c, "claude_create_session", {"prompt": "x", "launchPrefix": ["nice", "-n", "5"]})
        assert launch_prefix() == ("nice", "-n", "5")
        await ok(
            c,
            "claude_create_session",
            {"prompt": "x", "launchPrefix": ["env", "--token", "tok-123-secret", "--"]},
        )
        line = manager.audit.read()[-1]
        assert line["arguments"]["launchPrefix"] == ["env", "--token", "[REDACTED]", "--"]
        assert "tok-123-secret" not in json.dumps(manager.audit.read())
        await ok(c, "claude_query", {"prompt": "one shot"})
        assert launch_prefix() == ("env", "A=1")  # claude_query too


async def test_every_call_is_audited_and_counted(make: Any) -> None:
    manager, server = await make()
    async with client(server, name="auditor") as c:
        s = await ok(
            c,
            "claude_create_session",
            {"prompt": "use ANTHROPIC_API_KEY=sk-ant-abcdefghijklmnop please"},
        )
        await ok(c, "claude_wait", {"sessionId": s["sessionId"], "timeoutMs": 5000})
        error_body(await c.call_tool("claude_get_status", {"sessionId": "nope"}))
        listed = {str(r.uri): r for r in (await c.list_resources()).resources}
        assert listed["cctui://metrics"].mime_type == "application/json"
        resource = await c.read_resource("cctui://metrics")
    records = [r for r in manager.audit.read() if r["event"] == "tool_call"]
    assert [r["tool"] for r in records] == [
        "claude_create_session",
        "claude_wait",
        "claude_get_status",
    ]
    create, wait, status = records
    assert create["client"] == "mcp:auditor" and create["outcome"] == "ok"
    assert "sk-ant-abcdefghijklmnop" not in json.dumps(create)
    assert "please" in create["arguments"]["prompt"]
    assert wait["duration_ms"] >= 0 and status["outcome"] == "session_not_found"
    snap = json.loads(first_text(resource))
    tools = {t["tool"]: t for t in snap["tools"]}
    assert tools["claude_get_status"]["errors"] == 1 and tools["claude_wait"]["calls"] == 1
    assert snap["tool_calls"] == 3 and snap["latency"]["p50_ms"] is not None
    assert snap["sessions_started"] == 1
    [session] = snap["sessions"]
    assert session["session_id"] == s["sessionId"] and session["replies"] == 1


async def test_an_elicitation_retry_is_audited_as_the_same_call(make: Any) -> None:
    manager, server = await make()
    answers = Answers(content={"decision": "allow"})
    async with client(server, name="modern", elicit=answers, mode="auto") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": "please write"}))["sessionId"]
        w = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 5000})
        assert answers.asked and w["answered"], w
    waits = [r for r in manager.audit.read() if r["tool"] == "claude_wait"]
    assert [(r["event"], r["outcome"]) for r in waits] == [
        ("tool_call", "input_required"),
        ("tool_call_retry", "ok"),
    ]
    [wait] = [t for t in manager.metrics_snapshot().tools if t.tool == "claude_wait"]
    assert wait.calls == 1 and wait.errors == 0 and wait.latency.count == 1


async def test_sync_context_reaches_a_session_known_only_from_its_transcript(
    make: Any, project: Path, tmp_path: Path, factory: FakeDriverFactory
) -> None:
    sid = "0a1b2c3d-0000-4000-8000-00000000c0de"
    write_transcript(
        tmp_path / "claude",
        sid,
        str(project.resolve()),
        datetime.now(UTC) - timedelta(hours=1),
        [("Earlier work", [{"type": "text", "text": "done"}])],
    )
    (project / "todo.txt").write_text("ship it\n")
    _manager, server = await make()
    async with client(server) as c:
        out = await ok(
            c,
            "claude_sync_context",
            {"sessionId": sid, "context_type": "files", "paths": ["todo.txt"]},
        )
        assert out["files_synced"] == 1 and not out["git_status_synced"]
        [driver] = factory.drivers
        assert driver.spec.resume == sid and "ship it" in driver.sent[0]
        body = error_body(
            await c.call_tool(
                "claude_sync_context", {"sessionId": "0a1b2c3d-0000-4000-8000-00000000dead"}
            )
        )
        assert body["code"] == "session_not_found"


async def test_a_cancelled_call_is_audited_as_cancelled(
    make: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager, server = await make()
    started, recorded = anyio.Event(), anyio.Event()
    manager.subscribe(lambda ev: started.set() if isinstance(ev, UserMessageEvent) else None)
    record = manager.record_tool_call

    def spy(*args: Any, **kwargs: Any) -> None:
        record(*args, **kwargs)
        recorded.set()

    monkeypatch.setattr(manager, "record_tool_call", spy)
    async with client(server, name="impatient") as c:
        async with anyio.create_task_group() as tg:
            tg.start_soon(c.call_tool, "claude_query", {"prompt": "slow please"})
            with anyio.fail_after(20):
                await started.wait()
            tg.cancel_scope.cancel()
        with anyio.fail_after(20):
            await recorded.wait()
    [line] = [r for r in manager.audit.read() if r["tool"] == "claude_query"]
    assert line["outcome"] == "cancelled" and line["client"] == "mcp:impatient"
    [query] = [t for t in manager.metrics_snapshot().tools if t.tool == "claude_query"]
    assert query.calls == 1 and query.errors == 1
