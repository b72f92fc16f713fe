"""Teams, launch prefixes, templates and sync_context with the real ``claude`` CLI against
the fake Anthropic API, through a real MCP client over Streamable HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from cctui.config import SessionTemplate, Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.helpers import git
from tests.mcp.conftest import authed, client, error_body, ok

pytestmark = pytest.mark.e2e

WAIT = {"timeoutMs": 50_000}

# A launch prefix: takes its own arguments, then runs the command it wraps with a variable
# the CLI turns into a request header, so the fake API can see the CLI ran under it.
WRAPPER = """#!/bin/sh
[ "$1" = "--tag" ] || exit 64
tag="$2"
shift 2
export ANTHROPIC_CUSTOM_HEADERS="x-cctui-prefix: $tag"
export PREFIX_INJECTED_SECRET="doppler-like-value"
exec "$@"
"""

Serve = Callable[..., Any]


@pytest.fixture
async def serve(real_settings: Settings) -> AsyncIterator[Serve]:
    """Start cctui's HTTP server over a real-CLI manager with extra settings."""
    started: list[tuple[SessionManager, HttpService]] = []

    async def start(**overrides: Any) -> HttpService:
        settings = real_settings.model_copy(update=overrides)
        manager = SessionManager(settings)
        await manager.start()
        service = HttpService(build_server(manager, settings), settings)
        await service.start()
        started.append((manager, service))
        return service

    yield start
    for manager, service in started:
        await service.stop()
        await manager.shutdown()


async def test_prefix_and_template_wrap_the_real_cli(
    serve: Serve, fake_api: FakeAnthropicAPI, project_dir: Path, tmp_path: Path
) -> None:
    wrapper = tmp_path / "bin" / "with-secrets"
    wrapper.parent.mkdir()
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    review = SessionTemplate(
        prompt="Template task. [[say text=template reply]]",
        model="claude-haiku-4-5",
        system_prompt="TEMPLATE-SYSTEM-MARKER",
        max_turns=3,
    )
    service = await serve(
        project_launch_prefixes={project_dir: (str(wrapper), "--tag", "from-project")},
        templates={"review": review},
    )
    async with client(authed(service), name="e2e") as c:
        # The project's prefix, a template's prompt, model and system prompt.
        sid = (await ok(c, "claude_create_session", {"template": "review"}))["sessionId"]
        out = await ok(c, "claude_wait", {"sessionId": sid, **WAIT})
        assert out["reason"] == "turn_ended" and "template reply" in out["reply"], out
        req = fake_api.wait_for(lambda r: r.is_messages and "Template task" in r.prompt)
        assert req.headers.get("x-cctui-prefix") == "from-project"
        assert req.body["model"] == "claude-haiku-4-5"
        assert "TEMPLATE-SYSTEM-MARKER" in str(req.body["system"])

        # A resume runs under the same prefix.
        await ok(c, "claude_kill_session", {"sessionId": sid})
        out = await ok(
            c,
            "claude_send_message",
            {"sessionId": sid, "message": "Resumed. [[say text=again]]", "wait": True, **WAIT},
        )
        assert out["reason"] == "turn_ended", out
        req = fake_api.wait_for(lambda r: r.is_messages and "Resumed." in r.prompt)
        assert req.headers.get("x-cctui-prefix") == "from-project"

        # A per-session prefix wins; a missing one fails the create before anything runs.
        sid2 = (
            await ok(
                c,
                "claude_create_session",
                {
                    "prompt": "Own prefix. [[say text=mine]]",
                    "launchPrefix": [str(wrapper), "--tag", "per-session"],
                },
            )
        )["sessionId"]
        await ok(c, "claude_wait", {"sessionId": sid2, **WAIT})
        req = fake_api.wait_for(lambda r: r.is_messages and "Own prefix." in r.prompt)
        assert req.headers.get("x-cctui-prefix") == "per-session"
        # sync_context names the live process's variables, the prefix's included.
        fake_api.add_rule(contains="cctui context sync", reply="env noted")
        await ok(c, "claude_sync_context", {"sessionId": sid2, "context_type": "env"})
        await ok(c, "claude_wait", {"sessionId": sid2, **WAIT})
        req = fake_api.wait_for(lambda r: r.is_messages and "cctui context sync" in r.prompt)
        assert "PREFIX_INJECTED_SECRET" in req.prompt and "of the session" in req.prompt
        assert "doppler-like-value" not in str(req.body)
        seen = len(fake_api.requests)
        body = error_body(
            await c.call_tool(
                "claude_create_session",
                {"prompt": "never sent", "launchPrefix": ["doppler-not-installed", "run", "--"]},
            )
        )
        assert body["code"] == "launch_prefix_not_found"
        listed = await ok(c, "claude_list_sessions", {"projectDirectory": str(project_dir)})
        assert len(listed["sessions"]) == 2
    assert not any("never sent" in r.prompt for r in fake_api.requests[seen:])


async def test_broadcast_to_a_team_of_three_and_sync_context(
    serve: Serve,
    fake_api: FakeAnthropicAPI,
    project_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CCTUI_E2E_DEPLOY_TOKEN", "value-never-sent")
    git(project_dir, "init", "-q", "-b", "trunk")
    (project_dir / "app.py").write_text("VERSION = 1\n")
    git(project_dir, "add", ".")
    git(project_dir, "commit", "-qm", "init")
    (project_dir / "app.py").write_text("VERSION = 2  # bumped\n")
    fake_api.add_rule(contains="Standup", reply="ack")
    fake_api.add_rule(contains="cctui context sync", reply="context noted")
    service = await serve()
    async with client(authed(service), name="lead") as c:
        ids: dict[str, str] = {}
        for name in ("ann", "ben", "cat"):
            s = await ok(
                c,
                "claude_create_session",
                {"prompt": f"I am {name}.", "team": "core", "teammate": name},
            )
            ids[name] = s["sessionId"]
        for sid in ids.values():
            assert (await ok(c, "claude_wait", {"sessionId": sid, **WAIT}))[
                "reason"
            ] == "turn_ended"
        await ok(c, "claude_kill_session", {"sessionId": ids["ben"]})

        out = await ok(c, "claude_broadcast", {"team": "core", "message": "Standup in 5."})
        assert out["delivered"] == 3 and out["failed"] == 0, out
        assert {r["sessionId"]: r["teammate"] for r in out["results"]} == {
            v: k for k, v in ids.items()
        }
        for sid in ids.values():
            w = await ok(c, "claude_wait", {"sessionId": sid, **WAIT})
            assert w["reason"] == "turn_ended" and w["reply"] == "ack", w
        standups = [r for r in fake_api.message_requests if "Standup in 5." in r.prompt]
        assert len(standups) >= 3  # one model call per member at least

        synced = await ok(
            c,
            "claude_sync_context",
            {"sessionId": ids["ann"], "context_type": "all", "paths": ["app.py"]},
        )
        assert synced["git_status_synced"] and synced["files_synced"] == 1
        w = await ok(c, "claude_wait", {"sessionId": ids["ann"], **WAIT})
        assert w["reply"] == "context noted", w
        req = fake_api.wait_for(lambda r: r.is_messages and "cctui context sync" in r.prompt)
        assert "branch trunk" in req.prompt and " M app.py" in req.prompt
        assert "VERSION = 2  # bumped" in req.prompt
        assert "CCTUI_E2E_DEPLOY_TOKEN" in req.prompt
        assert "value-never-sent" not in str(req.body)

        body = error_body(
            await c.call_tool(
                "claude_sync_context", {"sessionId": ids["ann"], "paths": ["../../etc/passwd"]}
            )
        )
        assert body["code"] == "validation_error"
