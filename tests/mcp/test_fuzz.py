"""Every tool fuzzed with malformed arguments (hypothesis) through an in-memory client:
only structured errors come back, and the server keeps serving.

One server and client live for the whole module on a loop in a background thread, so a
failure in one call would show in the next; examples are bounded to keep this quick.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cctui.core import SessionManager
from cctui.mcp_server.schemas import seed004
from cctui.mcp_server.server import build_server
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings
from tests.mcp.conftest import client

CALL_BOUND_S = 60.0
"""A call that takes longer than this hangs (every wait is clamped to 1 s below)."""

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


class Harness:
    """A manager, the MCP server and one in-memory client, on their own loop."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.tools: dict[str, dict[str, Any]] = {}
        self._stop: asyncio.Event | None = None
        self._done: Any = None

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(CALL_BOUND_S + 30)

    def start(self) -> None:
        self.thread.start()
        ready = threading.Event()
        self._done = asyncio.run_coroutine_threadsafe(self._serve(ready), self.loop)
        # Until it is ready or failed, however long that takes on a loaded machine (a hang
        # is pytest-timeout's to catch).
        while not ready.wait(0.1):
            if self._done.done():
                self._done.result()  # its exception
                raise AssertionError("the server ended before it was ready")

    async def _serve(self, ready: threading.Event) -> None:
        project = self.root / "proj"
        project.mkdir()
        cfg = make_settings(self.root, default_cwd=project, permission_timeout_ms=1_000)
        manager = SessionManager(cfg, driver_factory=fake_driver_factory())
        await manager.start()
        self._stop = asyncio.Event()
        try:
            async with client(build_server(manager, cfg)) as c:
                self.client = c
                listed = await c.list_tools()
                self.tools = {t.name: t.input_schema for t in listed.tools}
                ready.set()
                await self._stop.wait()
        finally:
            await manager.shutdown()

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        with anyio.fail_after(CALL_BOUND_S):
            return await self.client.call_tool(name, args)

    def stop(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        if self._done is not None:
            self._done.result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    root = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(root / "home"))  # whatever a tool writes stays in here
        mp.setenv("CLAUDE_CONFIG_DIR", str(root / "claude"))
        h = Harness(root)
        h.start()
        yield h
        h.stop()


def _clamp(key: str, value: Any) -> Any:
    """Waits stay short: any number under a key about time is at most 1000 (ms or s)."""
    lowered = key.lower()
    timed = any(w in lowered for w in ("time", "wait", "ms", "seconds"))
    if timed and isinstance(value, int | float) and not isinstance(value, bool):
        return min(value, 1000)
    return value


@st.composite
def arguments(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """Some of the tool's own keys with arbitrary JSON values, and maybe unknown keys."""
    keys = sorted(schema.get("properties", {}))
    chosen = draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []
    args = {k: draw(JSON) for k in chosen}
    args.update(draw(st.dictionaries(st.text(min_size=1, max_size=10), JSON, max_size=2)))
    return {k: _clamp(k, v) for k, v in args.items()}


def _check(name: str, result: Any) -> None:
    if result.is_error:
        assert result.content, name
        body = json.loads(result.content[0].text)
        if name in seed004.TOOLS:  # seed 004's tools answer in that seed's envelope
            body = body["error"]
            assert {"code", "message", "retryable"} <= set(body), (name, body)
            assert body["code"].isupper(), (name, body)  # the seed's codes: VALIDATION_ERROR
            assert "Traceback" not in body["message"], (name, body)
            return
        assert set(body) == {"code", "message", "retryable", "suggestion"}, (name, body)
        assert isinstance(body["code"], str) and body["code"], (name, body)
        assert "Traceback" not in body["message"], (name, body)
    else:
        assert result.structured_content is not None or result.content, name


@pytest.mark.slow
@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(data=st.data())
def test_every_tool_answers_malformed_arguments_with_structured_errors(
    harness: Harness, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(harness.tools)), label="tool")
    args = data.draw(arguments(harness.tools[name]), label="arguments")
    _check(name, harness.run(harness.call(name, args)))


def test_each_tool_is_fuzzed_and_the_server_still_serves(harness: Harness) -> None:
    """Each tool once with no arguments and once with a wrong type everywhere; then health."""
    for name, schema in sorted(harness.tools.items()):
        _check(name, harness.run(harness.call(name, {})))
        wrong = {k: [{"not": "this"}] for k in schema.get("properties", {})}
        _check(name, harness.run(harness.call(name, wrong)))
    health = harness.run(harness.call("claude_health", {}))
    assert not health.is_error and health.structured_content["available"] in (True, False)
