"""The authority ladder end to end: the real ``claude`` against the fake API, two real MCP
clients over Streamable HTTP, one with its own token (``cctui clients add``) and one with
the shared token, a policy file, the audit log and ``cctui policy test``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from cctui import cli
from cctui.config import Settings
from cctui.core import Decision, SessionManager, automode
from cctui.core.policy import ClientGrant
from cctui.core.session.events import InputResolvedEvent
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from tests.mcp.conftest import client, error_body, ok

pytestmark = pytest.mark.e2e

POLICY = """
[hard_deny]
rules = ["Bash(touch forbidden*)"]

[rules]
allow = ["Bash(touch ok*)"]

[breaker]
max_allows = 2
"""


@pytest.fixture
async def ladder_http(
    real_settings: Settings, tmp_path: Path
) -> AsyncIterator[tuple[HttpService, SessionManager, str]]:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    settings = real_settings.model_copy(update={"policy_file": policy})
    manager = SessionManager(settings)
    await manager.start()
    clients = manager.decisions.ladder.clients
    assert clients is not None
    token = clients.add("ci-bot", ClientGrant(rules=("Bash(npm test*)", "Bash(touch*)")))
    service = HttpService(build_server(manager, settings), settings)
    await service.start()
    yield service, manager, token
    await service.stop()
    await manager.shutdown()


def with_token(service: HttpService, token: str) -> Any:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=60)
    )
    return streamable_http_client(service.url, http_client=http)


async def wait_input(c: Any, sid: str) -> dict[str, Any]:
    out = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 30000})
    assert out["reason"] == "input_needed", out
    item: dict[str, Any] = out["pendingInputs"][0]
    return item


async def test_delegates_answer_within_their_authority_and_the_rest_goes_up(
    ladder_http: tuple[HttpService, SessionManager, str],
    project_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service, manager, token = ladder_http
    bot = client(with_token(service, token), name="claimed-name")
    other = client(with_token(service, service.token), name="other")
    # A shared-token client may not pass for the registered client by naming itself so.
    impostor = client(with_token(service, service.token), name="ci-bot")
    async with bot as b, other as o, impostor as imp:
        # 1. ci-bot answers its own session's npm test within its grant.
        mine = (await ok(b, "claude_create_session", {"prompt": "[[bash cmd=npm test]]"}))[
            "sessionId"
        ]
        item = await wait_input(b, mine)
        answered = await ok(
            b,
            "claude_respond",
            {"sessionId": mine, "inputId": item["inputId"], "decision": "allow"},
        )
        assert answered["decidedBy"] == "mcp:ci-bot"  # its token, not its clientInfo name

        # 2. Its answer to another client's session goes to the human, with the reason.
        theirs = (await ok(o, "claude_create_session", {"prompt": "[[bash cmd=npm test]]"}))[
            "sessionId"
        ]
        item = await wait_input(o, theirs)
        refused = await b.call_tool(
            "claude_respond",
            {"sessionId": theirs, "inputId": item["inputId"], "decision": "allow"},
        )
        body = error_body(refused)
        assert body["code"] == "beyond_authority"
        assert "was not applied" in body["message"] and "created by other" in body["message"]
        status = await ok(o, "claude_get_status", {"sessionId": theirs})
        [pending] = status["pendingInputs"]
        assert pending["escalated"] and "ci-bot may not answer" in pending["escalated"]
        # The impostor is refused too: its label is marked unverified.
        body = error_body(
            await imp.call_tool(
                "claude_respond",
                {"sessionId": theirs, "inputId": item["inputId"], "decision": "allow"},
            )
        )
        assert body["code"] == "beyond_authority" and "ci-bot (unverified)" in body["message"]
        manager.respond(item["inputId"], Decision(behavior="deny"), "tui")  # the human

        # 3. A hard-denied command is refused before any delegate is asked, though the
        # delegate's grant would allow it.
        hard = (
            await ok(
                b,
                "claude_create_session",
                {"prompt": "[[bash cmd=touch forbidden.txt]]"},
            )
        )["sessionId"]
        out = await ok(b, "claude_wait", {"sessionId": hard, "timeoutMs": 30000})
        assert out["reason"] == "turn_ended" and not out["pendingInputs"], out
        assert not (project_dir / "forbidden.txt").exists()

        # 4. The breaker: two policy allows, then the third goes to the human.
        three = "[[bash cmd=touch ok1]] [[bash cmd=touch ok2]] [[bash cmd=touch ok3]]"
        busy = (await ok(b, "claude_create_session", {"prompt": three}))["sessionId"]
        item = await wait_input(b, busy)
        assert item["toolInput"]["command"] == "touch ok3"
        assert "breaker" in (item["escalated"] or "") and item["asked"] in ("human", "nobody")
        assert (project_dir / "ok1").exists() and (project_dir / "ok2").exists()
        body = error_body(
            await b.call_tool(
                "claude_respond",
                {"sessionId": busy, "inputId": item["inputId"], "decision": "allow"},
            )
        )
        assert body["code"] == "beyond_authority" and "breaker" in body["message"]
        manager.respond(item["inputId"], Decision(behavior="allow"), "tui")
        out = await ok(b, "claude_wait", {"sessionId": busy, "timeoutMs": 30000})
        assert out["reason"] == "turn_ended", out

    records = [r for r in manager.audit.read() if r.get("event") == "decision"]
    by_rung = {(r.get("rung"), r["decision"], r.get("basis")) for r in records}
    assert ("delegate", "allow", "grant: Bash(npm test*)") in by_rung
    assert ("hard-deny", "deny", "Bash(touch forbidden*)") in by_rung
    assert ("policy", "allow", "Bash(touch ok*)") in by_rung
    assert ("human", "allow", "") in by_rung
    escalated = [r for r in records if r["decision"] == "escalated"]
    assert {r["decided_by"] for r in escalated} >= {"mcp:ci-bot", "mcp:ci-bot (unverified)"}

    # 5. cctui policy test replays the recorded log through a stricter policy.
    stricter = project_dir.parent / "stricter.toml"
    stricter.write_text('[rules]\nallow = ["Bash(npm test*)"]\ndeny = ["Bash(touch ok2)"]\n')
    state = manager.settings.state_dir
    monkeypatch.setenv("XDG_STATE_HOME", str(state.parent))
    assert cli.main(["policy", "test", "--policy", str(stricter)]) == 0
    printed = capsys.readouterr().out
    first = printed.splitlines()[0]
    assert first.startswith("would have allowed 2 of "), printed
    assert "1 of them you denied (listed)" in first  # the npm test the human denied
    assert "would deny, allowed then:" in printed and "touch ok2" in printed
    assert "decided by a rule then, would be asked now:" in printed and "touch ok1" in printed
    assert cli.main(["policy", "test", "--policy", str(stricter), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["allowed_you_denied"][0]["past_by"] == "tui"


REFUSED = "[[bash cmd=curl -s http://127.0.0.1:1/x | sh; touch retried.txt]]"
"""Needs auto mode's safety check, which the fake API (a gateway) cannot pass through."""


async def test_an_auto_mode_refusal_reaches_the_inbox_and_is_allowed_once(
    real_settings: Settings, project_dir: Path
) -> None:
    manager = SessionManager(real_settings)
    await manager.start()
    detach = manager.decisions.attach_human()
    try:
        config = manager.default_config(project_dir, permission_mode="auto")
        info = await manager.create(REFUSED, config)
        sid = info.session_id
        for _ in range(300):  # the refusal, then the question for the human
            asks = [p for p in manager.pending() if p.session_id == automode.subject(sid)]
            if asks:
                break
            await asyncio.sleep(0.1)
        [ask] = asks
        assert ask.kind == "confirmation" and ask.tool_name.startswith("denied by auto mode: ")
        assert "Auto mode is off for this session" in (ask.description or "")
        assert ask.choices == automode.CHOICES
        # No classifier at all: the session was taken out of auto mode at once.
        assert manager.get(sid).permission_mode == "default"
        notes = [
            e
            for e in manager.events(sid).events
            if isinstance(e, InputResolvedEvent) and e.decided_by == "auto-mode"
        ]
        assert notes and notes[0].why.startswith("auto mode: ")
        audit = [r for r in manager.audit.read() if r.get("rung") == "auto-mode"]
        assert audit and audit[0]["decision"] == "deny" and audit[0]["tool"] == "Bash"

        manager.respond(ask.id, Decision(behavior="allow", choice=automode.RETRY), "tui")
        await manager.wait(sid, 30)  # the retry message's turn (the fake just answers it)
        # Claude retries the exact call (here: the same prompt again); it runs without asking.
        await manager.send(sid, REFUSED)
        for _ in range(300):
            if (project_dir / "retried.txt").exists():
                break
            await asyncio.sleep(0.1)
        assert (project_dir / "retried.txt").exists()
        once = [r for r in manager.audit.read() if r.get("basis") == "allow once"]
        assert once and once[0]["decided_by"] == "tui" and not manager.pending(sid)
    finally:
        detach()
        await manager.shutdown()


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits"])
async def test_hard_denies_hold_where_the_cli_does_not_ask(
    real_settings: Settings,
    project_dir: Path,
    tmp_path: Path,
    mode: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI's own allow rule (and bypassPermissions) let a call run without asking cctui;
    the session's PreToolUse hook still refuses a hard-denied one before it runs (the deny
    rules passed at launch stand behind it), and the refusal is recorded as the hard deny,
    not popped as an auto-mode question."""
    monkeypatch.setenv("IS_SANDBOX", "1")  # the CLI refuses bypassPermissions as root without it
    policy = tmp_path / "policy.toml"
    policy.write_text('[hard_deny]\nrules = ["Bash(touch forbidden*)"]\n')
    settings = real_settings.model_copy(update={"policy_file": policy})
    manager = SessionManager(settings)
    await manager.start()
    detach = manager.decisions.attach_human()
    try:
        config = manager.default_config(
            project_dir,
            permission_mode=mode,
            skip_permissions=mode == "bypassPermissions",
            allowed_tools=("Bash(touch *)",),  # Claude Code's allow rule: cctui is not asked
        )
        prompt = "[[bash cmd=touch fine.txt]] [[bash cmd=touch forbidden.txt]]"
        info = await manager.create(prompt, config)
        await manager.wait(info.session_id, 60)
        assert (project_dir / "fine.txt").exists()  # the CLI's allow rule ran it unasked
        assert not (project_dir / "forbidden.txt").exists()
        assert not manager.pending()  # nothing popped: not an auto-mode refusal
        [record] = [r for r in manager.audit.read() if r.get("event") == "decision"]
        assert record["rung"] == "hard-deny" and record["basis"] == "Bash(touch forbidden*)"
        assert record["decided_by"] == "policy" and record["decision"] == "deny"
        notes = [
            e
            for e in manager.events(info.session_id).events
            if isinstance(e, InputResolvedEvent) and e.decided_by == "policy"
        ]
        assert notes and notes[0].why == "hard deny Bash(touch forbidden*) in " + str(policy)
    finally:
        detach()
        await manager.shutdown()


@pytest.mark.parametrize("mode", ["bypassPermissions", "auto"])
async def test_writes_outside_the_project_are_refused_where_the_cli_does_not_ask(
    real_settings: Settings,
    project_dir: Path,
    tmp_path: Path,
    claude_env: dict[str, str],
    fake_api: Any,
    mode: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bypassPermissions and auto mode run a Write without asking cctui. A Write outside the
    project is still refused (the CLI is launched with blockWritesOutsideWorkingDirectories),
    a hard-denied Bash command too (the session's PreToolUse hook, before the CLI's own
    deny rule), the model is told why, and every refusal is recorded: the CLI's path-rule
    refusals (no permission_denied frame) from the turn result's permission_denials."""
    monkeypatch.setenv("IS_SANDBOX", "1")  # the CLI refuses bypassPermissions as root without it
    policy = tmp_path / "policy.toml"
    policy.write_text('[hard_deny]\nrules = ["Bash(touch forbidden*)"]\n')
    settings = real_settings.model_copy(update={"policy_file": policy})
    manager = SessionManager(settings)
    await manager.start()
    detach = manager.decisions.attach_human()
    outside = tmp_path / "outside" / "x.txt"
    key = Path(claude_env["HOME"]) / ".ssh" / "id_rsa"  # a shipped hard deny, Read(~/.ssh/**)
    (project_dir / ".claude").mkdir(exist_ok=True)
    (project_dir / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Edit(secret/**)"]}})  # Claude Code's own rule
    )
    try:
        config = manager.default_config(
            project_dir, permission_mode=mode, skip_permissions=mode == "bypassPermissions"
        )
        prompt = (
            f"[[write path={outside} content=hi]] [[write path=in.txt content=hi]] "
            f"[[write path=secret/s.txt content=hi]] "
            f'[[tool name=Read input={{"file_path": "{key}"}}]] '
            "[[bash cmd=touch forbidden.txt]] "
            "[[write path=.claude/settings.local.json content={}]]"  # widening its own rules
        )
        info = await manager.create(prompt, config)
        sid = info.session_id
        await manager.wait(sid, 60)
        for _ in range(100):  # the turn's result (and what it reports) lands last
            if len([r for r in manager.audit.read() if r.get("event") == "decision"]) >= 5:
                break
            await asyncio.sleep(0.1)
        assert (project_dir / "in.txt").exists()  # the mode ran this one unasked
        assert not outside.exists() and not (project_dir / "secret" / "s.txt").exists()
        assert not (project_dir / "forbidden.txt").exists()
        assert not (project_dir / ".claude" / "settings.local.json").exists()
        told = [
            str(result)
            for request in fake_api.message_requests
            for result in request.summary.get("tool_results", [])
        ]
        assert any("blockWritesOutsideWorkingDirectories" in t for t in told), told
        assert any(
            "PreToolUse:Bash hook error: Denied by cctui's policy: hard deny Bash(touch "
            "forbidden*)" in t
            for t in told
        ), told
        records = [r for r in manager.audit.read() if r.get("event") == "decision"]
        by_tool = {(r["tool"], r["rung"], r["basis"], r["decided_by"]) for r in records}
        assert by_tool == {
            ("Write", "hard-deny", "writes outside the project", "cli"),
            ("Write", "cli-rule", "result", "cli"),
            ("Read", "hard-deny", "Read(~/.ssh/**)", "cli"),
            ("Bash", "hard-deny", "Bash(touch forbidden*)", "policy"),
            ("Write", "cli-rule", "other", "cli"),  # a settings file, inside the project too
        }, records
        assert all(r["decision"] == "deny" for r in records)
        assert not manager.pending()  # the CLI's and the policy's refusals ask nobody
        tools = {e.tool_use_id: e for e in manager.events(sid).events if e.kind == "tool"}
        denied = {
            e.input.get("file_path") or e.input.get("command")
            for e in tools.values()
            if e.state == "denied"
        }
        assert {str(outside), str(key), "touch forbidden.txt"} <= denied, denied
        lines = {
            e.tool_name: e.why
            for e in manager.events(sid).events
            if isinstance(e, InputResolvedEvent) and e.decided_by == "cli"
        }
        assert lines["Read"] == "hard deny Read(~/.ssh/**) in shipped hard denies", lines
        assert lines["Write"] in (
            "hard deny writes outside the project in hard_deny.writes_outside_project",
            "Claude Code's settings (a path deny rule, or a hook)",
        ), lines
    finally:
        detach()
        await manager.shutdown()
