"""A client nobody here wrote: the real ``claude`` CLI calling cctui's tools over HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cctui.mcp_server.transport.http import HttpService
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.api_script import Rule

pytestmark = pytest.mark.e2e


async def test_claude_cli_calls_claude_health_over_http(
    real_http: HttpService,
    fake_api: FakeAnthropicAPI,
    claude_env: dict[str, str],
    claude_bin: Path,
    project_dir: Path,
) -> None:
    fake_api.add_rule(
        Rule(
            kind="main",
            tool_result=False,
            once=True,
            reply=[
                {
                    "type": "tool_use",
                    "id": "toolu_health1",
                    "name": "mcp__cctui__claude_health",
                    "input": {},
                }
            ],
        )
    )
    fake_api.add_rule(
        Rule(
            kind="main",
            tool_result=True,
            once=True,
            reply=lambda req: (
                "health said: " + (req.last_tool_result.content if req.last_tool_result else "")
            ),
        )
    )
    config = {
        "mcpServers": {
            "cctui": {
                "type": "http",
                "url": real_http.url,
                "headers": {"Authorization": f"Bearer {real_http.token}"},
            }
        }
    }
    proc = await asyncio.create_subprocess_exec(
        str(claude_bin),
        "-p",
        "Check cctui health.",
        "--output-format",
        "json",
        "--mcp-config",
        json.dumps(config),
        "--strict-mcp-config",
        "--allowedTools",
        "mcp__cctui__*",
        cwd=project_dir,
        env=claude_env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()
    result = json.loads(out)["result"]
    assert "health said:" in result and '"ok":true' in result.replace(" ", ""), result
