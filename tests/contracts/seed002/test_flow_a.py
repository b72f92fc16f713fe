"""Seed 002, Flow A: a client that created a session and then only polls
``claude_get_status`` is asked by elicitation when the session needs a decision; when it
cannot decide, the input falls back (human, else ``claude_respond``, else the timeout
denies) and ``pendingInputs[].asked`` says who is being asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from cctui.mcp_server.transport.http import HttpService
from tests.contracts.clients import over_http, over_stdio
from tests.mcp.conftest import Answers, ok

pytestmark = pytest.mark.e2e

WRITE = "[[write path=hello.txt content=hi]]"


async def poll(c: Any, sid: str, done: Any, limit_s: float = 40.0) -> dict[str, Any]:
    """Poll claude_get_status the way seed 002's client does, until ``done(status)``."""
    with anyio.fail_after(limit_s):
        while True:
            status = await ok(c, "claude_get_status", {"sessionId": sid})
            if done(status):
                return status
            await anyio.sleep(0.3)


async def test_polling_client_is_asked_by_elicitation_over_http(
    real_http: HttpService, project_dir: Path
) -> None:
    answers = Answers("accept", {"decision": "allow"})
    async with over_http(real_http, "flow-a", elicitation_callback=answers) as c:
        created = await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"})
        sid = created["sessionId"]
        assert created["status"] == "running"
        status = await poll(c, sid, lambda s: s["status"] == "completed")
    assert answers.asked and "Write" in answers.asked[0], answers.asked
    assert (project_dir / "hello.txt").read_text().strip() == "hi"
    assert status["pendingInputs"] == []


async def test_polling_client_is_asked_over_stdio(
    claude_env: dict[str, str], project_dir: Path
) -> None:
    answers = Answers("accept", {"decision": "allow"})
    env = {**claude_env, "CLAUDE_CODE_DEFAULT_CWD": str(project_dir)}
    async with over_stdio(env, "flow-a-stdio", elicitation_callback=answers) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"}))["sessionId"]
        await poll(c, sid, lambda s: s["status"] == "completed")
    assert answers.asked and "Write" in answers.asked[0]
    assert (project_dir / "hello.txt").read_text().strip() == "hi"


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_client_that_cannot_decide_leaves_it_to_claude_respond(
    real_http: HttpService, project_dir: Path, action: str
) -> None:
    """No TUI is attached (cctui serve): after the decline nobody is asked, and
    ``asked`` says so (never ``human``); claude_respond still answers."""
    answers = Answers(action)
    async with over_http(real_http, "decliner", elicitation_callback=answers) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"}))["sessionId"]
        status = await poll(
            c,
            sid,
            lambda s: s["pendingInputs"] and s["pendingInputs"][0]["asked"] != "client",
        )
        assert len(answers.asked) == 1
        [item] = status["pendingInputs"]
        assert item["asked"] == "nobody", item
        await ok(
            c,
            "claude_respond",
            {"sessionId": sid, "inputId": item["inputId"], "decision": "allow"},
        )
        await poll(c, sid, lambda s: s["status"] == "completed")
    assert (project_dir / "hello.txt").exists()


async def test_a_client_without_elicitation_is_never_asked_and_reads_nobody(
    real_http: HttpService,
) -> None:
    async with over_http(real_http, "plain") as c:
        sid = (await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"}))["sessionId"]
        status = await poll(c, sid, lambda s: s["status"] == "waiting_for_input")
        [item] = status["pendingInputs"]
        assert item["asked"] == "nobody"
        assert {"inputId", "type", "toolName", "toolInput", "description"} <= set(item)


async def test_a_2026_client_cannot_be_asked_between_calls_and_reads_nobody(
    real_http: HttpService,
) -> None:
    """2026-07-28 forbids server-initiated requests: the polling client is not asked."""
    answers = Answers("accept", {"decision": "allow"})
    async with over_http(real_http, "modern", "2026-07-28", elicitation_callback=answers) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"}))["sessionId"]
        status = await poll(c, sid, lambda s: s["status"] == "waiting_for_input")
        assert status["pendingInputs"][0]["asked"] == "nobody"
    assert answers.asked == []


class _NoGetStream(httpx2.AsyncBaseTransport):
    """A client whose standalone GET stream never opens (the server says 405)."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return httpx2.Response(405, request=request)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def test_a_client_that_cannot_be_reached_falls_back_at_once(
    real_http: HttpService,
) -> None:
    """It declares elicitation but has no channel for a request outside a call: the
    reachability ping fails within seconds, and the input says nobody is asked."""
    answers = Answers("accept", {"decision": "allow"})
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {real_http.token}"},
        timeout=httpx2.Timeout(30, read=60),
        transport=_NoGetStream(),
    )
    async with Client(
        streamable_http_client(real_http.url, http_client=http),
        client_info=Implementation(name="no-get", version="1"),
        mode="legacy",
        elicitation_callback=answers,
    ) as c:
        sid = (await ok(c, "claude_create_session", {"prompt": f"Write it. {WRITE}"}))["sessionId"]
        status = await poll(
            c,
            sid,
            lambda s: s["pendingInputs"] and s["pendingInputs"][0]["asked"] == "nobody",
            limit_s=30,
        )
        assert status["status"] == "waiting_for_input"
    assert answers.asked == []
