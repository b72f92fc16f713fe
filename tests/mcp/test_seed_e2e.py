"""Seed 003's claude_query through the real ``claude`` CLI (fake Anthropic API): the CLI's
token usage comes back, and ``options.model`` reaches the model request."""

from __future__ import annotations

import pytest

from cctui.mcp_server.transport.http import HttpService
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.mcp.conftest import authed, client, ok

pytestmark = pytest.mark.e2e


async def test_query_returns_the_cli_usage_and_honours_options(
    real_http: HttpService, fake_api: FakeAnthropicAPI
) -> None:
    async with client(authed(real_http), name="seed003") as c:
        out = await ok(
            c,
            "claude_query",
            {"prompt": "[[say text=Hello]]", "options": {"model": "claude-haiku-4-5"}},
        )
    assert out["result"]["success"] is True and out["result"]["summary"] == "Hello"
    usage = out["usage"]
    assert usage is not None, out
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    models = {r.body.get("model") for r in fake_api.message_requests if r.body.get("tools")}
    assert models == {"claude-haiku-4-5"}, models
