"""Fixtures for MCP tests: a FakeDriver-backed manager, the server, and client helpers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.session import ElicitationFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitRequestParams, ElicitRequestURLParams, ElicitResult, Implementation

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from cctui.mcp_server.transport.http import HttpService
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.helpers import bearer_http

# The SDK's protocol, not a Callable: it names the parameters a callback must take.
Elicitor = ElicitationFnT


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
"""A handshake-era ``initialize`` request, for tests that speak the wire themselves."""


@pytest.fixture
def settings(tmp_path: Path, project: Path) -> Settings:
    return make_settings(tmp_path, default_cwd=project, permission_timeout_ms=20_000)


@pytest.fixture
async def manager(settings: Settings, factory: FakeDriverFactory) -> AsyncIterator[SessionManager]:
    m = SessionManager(settings, driver_factory=factory)
    await m.start()
    yield m
    await m.shutdown()


@pytest.fixture
def server(manager: SessionManager, settings: Settings) -> CctuiMCPServer:
    return build_server(manager, settings)


class Answers:
    """A scripted elicitation callback that records what it was asked."""

    def __init__(self, action: str = "accept", content: dict[str, Any] | None = None) -> None:
        self.action = action
        self.content = content if content is not None else {"decision": "allow"}
        self.asked: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult:
        if isinstance(params, ElicitRequestURLParams):
            return ElicitResult(action="decline")
        self.asked.append(params.message)
        if self.action == "accept":
            return ElicitResult(action="accept", content=self.content)
        return ElicitResult(action=self.action)


def client(
    target: Any, name: str = "tester", elicit: Elicitor | None = None, **kwargs: Any
) -> Client:
    """An SDK client with a recognisable name (it becomes ``decided_by``)."""
    return Client(
        target,
        client_info=Implementation(name=name, version="1"),
        elicitation_callback=elicit,
        **kwargs,
    )


@pytest.fixture
def real_settings(tmp_path: Path, claude_env: dict[str, str], project_dir: Path) -> Settings:
    return make_settings(
        tmp_path,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=Path(claude_env["XDG_STATE_HOME"]) / "cctui",
        default_cwd=project_dir,
        permission_timeout_ms=20_000,
    )


@pytest.fixture
async def real_http(real_settings: Settings) -> AsyncIterator[HttpService]:
    manager = SessionManager(real_settings)
    await manager.start()
    service = HttpService(build_server(manager, real_settings), real_settings)
    await service.start()
    yield service
    await service.stop()
    await manager.shutdown()


def authed(service: HttpService) -> Any:
    """A Streamable HTTP transport to ``service`` carrying its bearer token."""
    return streamable_http_client(service.url, http_client=bearer_http(service.token))


async def ok(
    c: Any, tool: str, args: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """Call ``tool`` with ``args`` and return its structured result, failing the test on an
    error (``kwargs`` go to ``call_tool``: a progress callback, a timeout)."""
    result = await c.call_tool(tool, args or {}, **kwargs)
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None, result.content
    out: dict[str, Any] = result.structured_content
    return out


async def call(c: Any, tool: str, **args: Any) -> dict[str, Any]:
    """``ok`` with the arguments as keywords."""
    return await ok(c, tool, args)


def error_body(result: Any) -> dict[str, Any]:
    """The ``{code, message, retryable, suggestion}`` of an error result (sent as JSON text,
    with no ``structuredContent`` that would contradict the tool's output schema)."""
    assert result.is_error, result
    assert result.structured_content is None, result.structured_content
    body: dict[str, Any] = json.loads(result.content[0].text)
    assert set(body) == {"code", "message", "retryable", "suggestion"}, body
    return body
