"""Mode, model and project rules over MCP: claude_set_permission_mode, claude_set_model,
claude_respond's allowForProject (gated), pendingInputs[].allowForProject,
claude_list_rules and claude_remove_rule. FakeDriver in memory; one test over HTTP with the
real CLI."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cctui.core import Decision, SessionManager
from cctui.core.decisions.grants import WRITE
from cctui.mcp_server.server import CctuiMCPServer, build_server
from cctui.mcp_server.transport.http import HttpService
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.fake_driver import FakeDriverFactory, text, tool
from tests.fakes.settings import make_settings
from tests.mcp.conftest import authed, call, client, error_body

RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
    "behavior": "allow",
    "destination": "localSettings",
}


async def started(c: Any) -> str:
    sid: str = (await call(c, "claude_create_session", prompt="hello"))["sessionId"]
    await call(c, "claude_wait", sessionId=sid, timeoutMs=5000)
    return sid


async def test_mode_and_model_over_mcp(server: CctuiMCPServer, factory: FakeDriverFactory) -> None:
    async with client(server) as c:
        sid = await started(c)
        out = await call(c, "claude_set_permission_mode", sessionId=sid, mode="plan")
        assert (out["value"], out["previous"], out["applies"]) == ("plan", "default", "now")
        assert out["session"]["permissionMode"] == "plan"
        out = await call(c, "claude_set_model", sessionId=sid, model="sonnet")
        assert out["applies"] == "now" and out["session"]["model"] == "sonnet"
        assert "sonnet" in [m["value"] for m in out["models"]]
        assert factory.drivers[-1].model_changes == ["sonnet"]
        status = await call(c, "claude_get_status", sessionId=sid)
        assert any(e["kind"] == "setting" and "plan" in e["text"] for e in status["events"])

        refused = error_body(
            await c.call_tool(
                "claude_set_permission_mode", {"sessionId": sid, "mode": "bypassPermissions"}
            )
        )
        assert refused["code"] == "setting_refused"
        assert refused["message"].startswith("Cannot set permission mode to bypassPermissions")
        assert "dangerouslySkipPermissions" in refused["suggestion"]
        bad = error_body(
            await c.call_tool("claude_set_permission_mode", {"sessionId": sid, "mode": "yolo"})
        )
        assert bad["code"] == "validation_error"

        await call(c, "claude_kill_session", sessionId=sid)
        out = await call(c, "claude_set_model", sessionId=sid, model=None)
        assert out["applies"] == "next_start" and out["value"] is None
        await call(c, "claude_send_message", sessionId=sid, message="back", wait=True)
        assert (factory.specs[-1].permission_mode, factory.specs[-1].model) == ("plan", None)


async def ask(c: Any, factory: FakeDriverFactory) -> tuple[str, dict[str, Any]]:
    factory.script = {"*": [tool("Bash", {"command": "npm test"}, suggestions=(RULE,)), text("ok")]}
    sid = (await call(c, "claude_create_session", prompt="run the tests"))["sessionId"]
    out = await call(c, "claude_wait", sessionId=sid, timeoutMs=5000)
    assert out["reason"] == "input_needed", out
    return sid, out["pendingInputs"][0]


async def test_pending_inputs_say_what_allow_for_project_would_write(
    server: CctuiMCPServer, factory: FakeDriverFactory, project: Path
) -> None:
    async with client(server, name="agent") as c:
        sid, item = await ask(c, factory)
        project_rule = item["allowForProject"]
        assert project_rule["rules"] == ["Bash(npm test *)"]
        assert project_rule["file"] == str(project / ".claude" / "settings.local.json")
        # No human at a TUI, no config: the agent cannot widen the allow list alone.
        out = await call(
            c,
            "claude_respond",
            sessionId=sid,
            inputId=item["inputId"],
            decision="allow",
            allowForProject=True,
        )
        assert out["project"]["status"] == "session_only"
        assert "mcp_may_persist_rules" in out["project"]["note"]
        await call(c, "claude_wait", sessionId=sid, timeoutMs=5000)
        assert factory.drivers[-1].answers[-1].persist == ()
        assert factory.drivers[-1].answers[-1].suggestions == (0,)


async def test_a_project_rule_from_mcp_waits_for_the_human(
    server: CctuiMCPServer, manager: SessionManager, factory: FakeDriverFactory, project: Path
) -> None:
    detach = manager.decisions.attach_human()
    try:
        async with client(server, name="agent") as c:
            sid, item = await ask(c, factory)
            out = await call(
                c,
                "claude_respond",
                sessionId=sid,
                inputId=item["inputId"],
                decision="allow",
                allowForProject=True,
            )
            assert out["project"]["status"] == "awaiting_confirmation"
            for _ in range(100):
                confirmations = [p for p in manager.pending() if p.kind == "confirmation"]
                if confirmations:
                    break
                await asyncio.sleep(0.01)
            manager.respond(confirmations[0].id, Decision(behavior="allow", choice=WRITE), "tui")
            file = project / ".claude" / "settings.local.json"
            for _ in range(100):
                if file.exists():
                    break
                await asyncio.sleep(0.01)
            assert json.loads(file.read_text())["permissions"]["allow"] == ["Bash(npm test *)"]
            rules = await call(c, "claude_list_rules", cwd=str(project))
            assert {"rule": "Bash(npm test *)", "behavior": "allow", "source": "local",
                    "file": str(file)} in rules["rules"]  # fmt: skip
            removed = await call(
                c, "claude_remove_rule", cwd=str(project), rule="Bash(npm test *)", source="local"
            )
            assert removed["backup"] == str(file) + ".bak"
            assert json.loads(file.read_text())["permissions"]["allow"] == []
            missing = error_body(
                await c.call_tool(
                    "claude_remove_rule",
                    {"cwd": str(project), "rule": "Bash(npm test *)", "source": "local"},
                )
            )
            assert missing["code"] == "rule_not_found"
    finally:
        detach()
    audit = [r for r in manager.audit.read() if r["event"] == "rule"]
    assert [(r["action"], r["by"]) for r in audit] == [("add", "tui"), ("remove", "mcp:agent")]


async def test_config_lets_clients_persist(
    tmp_path: Path, project: Path, factory: FakeDriverFactory
) -> None:
    settings = make_settings(tmp_path, default_cwd=project, mcp_may_persist_rules=True)
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    try:
        async with client(build_server(manager, settings), name="agent") as c:
            sid, item = await ask(c, factory)
            out = await call(
                c,
                "claude_respond",
                sessionId=sid,
                inputId=item["inputId"],
                decision="allow",
                allowForProject=True,
            )
            assert out["project"]["status"] == "sent"
            await call(c, "claude_wait", sessionId=sid, timeoutMs=5000)
            assert factory.drivers[-1].answers[-1].persist == (0,)
    finally:
        await manager.shutdown()


async def test_list_rules_by_project_id_and_argument_errors(
    server: CctuiMCPServer, project: Path
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(rm *)"]}})
    )
    async with client(server) as c:
        pid = (await call(c, "register_project", name="demo", rootPath=str(project)))["projectId"]
        rules = await call(c, "claude_list_rules", projectId=pid)
        assert [(r["rule"], r["behavior"], r["source"]) for r in rules["rules"]] == [
            ("Bash(rm *)", "deny", "project")
        ]
        both = error_body(
            await c.call_tool("claude_list_rules", {"projectId": pid, "cwd": str(project)})
        )
        assert both["code"] == "validation_error"
        neither = error_body(await c.call_tool("claude_list_rules", {}))
        assert neither["code"] == "validation_error"


@pytest.mark.e2e
async def test_plan_mode_and_model_over_http_with_the_real_cli(
    real_http: HttpService, fake_api: FakeAnthropicAPI
) -> None:
    async with client(authed(real_http), name="steer") as c:
        sid = (await call(c, "claude_create_session", prompt="[[say text=one]]"))["sessionId"]
        await call(c, "claude_wait", sessionId=sid, timeoutMs=30000)
        await call(c, "claude_set_permission_mode", sessionId=sid, mode="plan")
        await call(c, "claude_set_model", sessionId=sid, model="claude-haiku-4-5")
        out = await call(
            c, "claude_send_message", sessionId=sid, message="[[say text=two]]", wait=True,
            timeoutMs=30000,
        )  # fmt: skip
        assert out["reason"] == "turn_ended"
        [request] = [
            r.body
            for r in fake_api.message_requests
            if r.body and r.body.get("tools") and "two" in (r.summary.get("prompt") or "")
        ]
        assert request["model"] == "claude-haiku-4-5"
        assert "Plan mode is active" in json.dumps(request["messages"][-1])
