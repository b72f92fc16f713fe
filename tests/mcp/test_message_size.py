"""Seed 004's ``MAX_MESSAGE_SIZE``: a prompt or message over 100,000 characters is refused
whole, on every tool that sends Claude text, before anything starts."""

from __future__ import annotations

import json
from pathlib import Path

from mcp.types import TextContent

from cctui.config import load_settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer
from tests.fakes.fake_driver import FakeDriverFactory
from tests.mcp.conftest import call, client, error_body

LIMIT = 100_000


async def test_a_message_one_over_the_limit_is_refused_and_nothing_starts(
    server: CctuiMCPServer, manager: SessionManager, factory: FakeDriverFactory
) -> None:
    too_long = "x" * (LIMIT + 1)
    async with client(server) as c:
        for tool, args in [
            ("claude_create_session", {"prompt": too_long}),
            ("claude_query", {"prompt": too_long}),
            ("claude_broadcast", {"team": "t", "message": too_long}),
            ("invoke_claude_code", {"projectId": "p", "task": too_long}),
        ]:
            body = error_body(await c.call_tool(tool, args))
            assert body["code"] == "validation_error", (tool, body)
            assert "100,001 characters" in body["message"] and "100,000" in body["message"]
            assert too_long not in json.dumps(body)  # the text is not echoed back
        # Seed 004's own tools answer in its envelope.
        seed = await c.call_tool("start_session", {"prompt": too_long})
        assert seed.is_error and isinstance(seed.content[0], TextContent)
        assert json.loads(seed.content[0].text)["error"]["code"] == "VALIDATION_ERROR"
    assert factory.drivers == []  # no process was started for any of them
    assert manager.list() == []


async def test_a_message_at_the_limit_is_sent(server: CctuiMCPServer) -> None:
    async with client(server) as c:
        started = await call(c, "claude_create_session", prompt="y" * LIMIT)
    assert started["sessionId"]


def test_the_limit_is_seed_004s_variable(tmp_path: Path) -> None:
    none = tmp_path / "config.toml"
    assert load_settings(env={}, config_path=none).max_message_chars == LIMIT
    sized = load_settings(env={"MAX_MESSAGE_SIZE": "500"}, config_path=none)
    assert sized.max_message_chars == 500
