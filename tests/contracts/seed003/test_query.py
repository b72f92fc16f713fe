"""Seed 003's ``query`` tool, called as its client calls it (``prompt`` plus ``options``),
with the real ``claude`` CLI against the fake API, over Streamable HTTP in both protocol
eras and over stdio. The client reads the SDK's own message objects in ``messages`` and in
each ``claude-code/messages`` notification, branches on ``timedOut``, and sees the API
retries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.types import LoggingMessageNotificationParams

from cctui.mcp_server.transport.http import HttpService
from tests.contracts.clients import over_http, over_stdio
from tests.mcp.conftest import ok

pytestmark = pytest.mark.e2e

SDK_TYPES = {"assistant", "user", "result", "system"}


def check_sdk_message(m: dict[str, Any]) -> None:
    """Seed 003's ``SDKMessage``, as the SDK defines its variants."""
    assert m["type"] in SDK_TYPES, m
    assert m["session_id"]
    if m["type"] in ("assistant", "user"):
        assert m["message"]["role"] == m["type"]
        assert isinstance(m["message"]["content"], list) and m["message"]["content"]
        for block in m["message"]["content"]:
            assert block["type"] in ("text", "tool_use", "tool_result"), block
    if m["type"] == "result":
        assert m["subtype"] in ("success", "error_during_execution", "error_max_turns")
        assert isinstance(m["is_error"], bool) and isinstance(m["num_turns"], int)
        assert isinstance(m["duration_ms"], int)
    if m["type"] == "system":
        assert m["subtype"]


class Notes:
    def __init__(self) -> None:
        self.logs: list[LoggingMessageNotificationParams] = []

    async def __call__(self, params: LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [p.data for p in self.logs if p.logger == "claude-code/messages"]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_messages_are_the_sdks_message_objects(real_http: HttpService, era: str) -> None:
    notes = Notes()
    async with over_http(real_http, "seed003", era, logging_callback=notes, log_level="debug") as c:
        out = await ok(c, "claude_query", {"prompt": "[[say text=Hello there]]"})
    assert out["result"] == {"success": True, "summary": "Hello there", "error": None}
    assert isinstance(out["executionTime"], int) and out["usage"]
    for m in out["messages"]:
        check_sdk_message(m)
    types = [m["type"] for m in out["messages"]]
    assert types[0] == "system" and out["messages"][0]["subtype"] == "init"
    assert "assistant" in types and types[-1] == "result"
    said = [m for m in out["messages"] if m["type"] == "assistant"]
    assert said[-1]["message"]["content"] == [{"type": "text", "text": "Hello there"}]
    final = out["messages"][-1]
    assert final["subtype"] == "success" and final["result"] == "Hello there"
    assert out["timedOut"] is False
    # ClaudeCodeNotification: {type, sessionId, message: SDKMessage, timestamp, sequence}
    notified = notes.messages
    assert [n["message"] for n in notified] == out["messages"]
    for n in notified:
        assert n["type"] == "claude_code_message" and n["sessionId"] == out["sessionId"]
        assert isinstance(n["sequence"], int) and n["timestamp"].endswith("Z")
        check_sdk_message(n["message"])


async def test_tool_calls_are_assistant_tool_use_and_user_tool_result(
    real_http: HttpService, project_dir: Path
) -> None:
    async with over_http(real_http, "seed003") as c:
        out = await ok(
            c,
            "claude_query",
            {
                "prompt": "[[bash cmd=echo hi]]",
                "options": {"cwd": str(project_dir), "allowedTools": ["Bash"]},
            },
        )
    blocks = [
        (m["type"], b["type"])
        for m in out["messages"]
        if m["type"] in ("assistant", "user")
        for b in m["message"]["content"]
    ]
    assert blocks.count(("assistant", "tool_use")) == 1, blocks
    assert blocks.count(("user", "tool_result")) == 1, blocks
    [use] = [
        b
        for m in out["messages"]
        if m["type"] == "assistant"
        for b in m["message"]["content"]
        if b["type"] == "tool_use"
    ]
    assert use["name"] == "Bash" and use["input"]["command"] == "echo hi"


async def test_include_system_messages_filters_the_sdks_system_messages(
    real_http: HttpService,
) -> None:
    async with over_http(real_http, "seed003") as c:
        full = await ok(c, "claude_query", {"prompt": "[[say text=hi]]"})
        bare = await ok(
            c,
            "claude_query",
            {"prompt": "[[say text=hi]]", "options": {"includeSystemMessages": False}},
        )
    assert any(m["type"] == "system" for m in full["messages"])
    assert bare["messages"] and all(m["type"] != "system" for m in bare["messages"])


async def test_a_timeout_is_machine_readable_with_the_partial_result(
    real_http: HttpService,
) -> None:
    async with over_http(real_http, "seed003") as c:
        out = await ok(
            c, "claude_query", {"prompt": "[[slow seconds=30 chunks=60]]", "maxTimeMs": 3000}
        )
    assert out["timedOut"] is True, out
    assert out["result"]["success"] is False and out["result"]["error"]
    assert out["messages"] and out["messages"][0]["subtype"] == "init"


async def test_transient_api_failures_are_retried_with_backoff_and_visible(
    real_http: HttpService,
) -> None:
    async with over_http(real_http, "seed003") as c:
        out = await ok(
            c, "claude_query", {"prompt": "[[error status=529 times=2]] [[say text=after]]"}
        )
    assert out["result"]["success"] is True and out["result"]["summary"] == "after"
    retries = [m for m in out["messages"] if m.get("subtype") == "api_retry"]
    assert out["apiRetries"] == len(retries) == 2, out["messages"]
    assert [r["attempt"] for r in retries] == [1, 2]
    assert all(r["error_status"] == 529 for r in retries)
    delays = [r["retry_delay_ms"] for r in retries]
    assert delays[1] > delays[0] > 0  # exponential back-off


async def test_query_over_stdio(claude_env: dict[str, str], project_dir: Path) -> None:
    notes = Notes()
    env = {**claude_env, "CLAUDE_CODE_DEFAULT_CWD": str(project_dir)}
    async with over_stdio(env, "seed003-stdio", logging_callback=notes) as c:
        out = await ok(
            c, "claude_query", {"prompt": "[[say text=stdio]]", "options": {"maxTurns": 3}}
        )
    assert out["result"]["summary"] == "stdio"
    for m in out["messages"]:
        check_sdk_message(m)
    assert [n["message"] for n in notes.messages] == out["messages"]
