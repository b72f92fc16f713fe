"""Benchmark: the cost of driving a real ``claude`` session through cctui, as ratios.

    python -m tests.bench.bench_turns [--turns 30] [--spawns 3] [--no-http]

Runs the real CLI (``$CLAUDE_CODE_PATH`` or the SDK's bundled one) offline against the fake
Anthropic API (a child process on 127.0.0.1) with a throwaway ``HOME``. Every turn is a
trivial prompt without directives, answered ``OK: ...``.

Baseline: ``claude_agent_sdk.ClaudeSDKClient`` on one warm process, ``query`` +
``receive_response`` per turn, with the options cctui's driver uses. Measured on warm
sessions of their own: (a) ``SessionManager.send`` + ``wait``; (b) an in-memory MCP client
calling ``claude_send_message`` with ``wait=true``; (c) the same over Streamable HTTP with
``HttpService`` and its bearer token; (d) over stdio to ``cctui serve --stdio`` in a child
process (its own core, same CLI and fake API). The variants take turns (baseline, a, b, c, baseline,
...) so drift and background load hit them alike; each reports its median per-turn time.
Spawn-to-first-result compares ``create()`` + ``wait`` (and ``claude_create_session`` +
``claude_wait`` over MCP) with SDK ``connect`` + ``query`` + the first result.
Not part of the pytest run: timings vary by machine; ratios mostly don't.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.plugin import find_claude, offline_env, seed_claude_home

REPO = Path(__file__).resolve().parents[2]
TARGET_MCP = 1.10
"""Research target: a turn through the MCP server costs at most 10 % over the bare SDK."""
TURN_TIMEOUT_S = 60.0

Turn = Callable[[str], Awaitable[None]]


@dataclass
class Variant:
    name: str
    turn: Turn
    times: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


# --------------------------------------------------------------------------- environment


@contextlib.contextmanager
def fake_api() -> Iterator[str]:
    """The fake Messages API in a child process (its threads stay off our GIL); yields the URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.anthropic_api", "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "LISTENING":
            raise RuntimeError(f"fake API did not start: {line!r}")
        yield f"http://127.0.0.1:{line[1]}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def patched_environ(env: dict[str, str]) -> Iterator[None]:
    """``os.environ`` is exactly ``env`` inside (the SDK passes it to the CLI); restored after."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@dataclass
class Offline:
    home: Path
    project: Path
    state: Path
    cli: Path


@contextlib.contextmanager
def offline() -> Iterator[Offline]:
    """Fake API + seeded temp HOME + a trusted project dir, patched into ``os.environ``."""
    cli = find_claude()
    if not cli.is_file():
        raise SystemExit(f"claude CLI not found at {cli} (set CLAUDE_CODE_PATH)")
    with tempfile.TemporaryDirectory(prefix="cctui-bench-turns-") as tmp, fake_api() as url:
        root = Path(tmp).resolve()
        home, project = root / "home", root / "proj"
        for sub in (".config", ".local/state", ".local/share", ".cache"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        project.mkdir()
        seed_claude_home(home, project)
        with patched_environ(offline_env(dict(os.environ), url, home)):
            yield Offline(home, project, root / "state", cli)


# --------------------------------------------------------------------------- the SDK baseline


def sdk_options(env: Offline) -> Any:
    """The options ``SdkDriver`` passes (partial messages, permission callback, preset prompt)."""
    from claude_agent_sdk import ClaudeAgentOptions, PermissionResultAllow

    async def allow(*_: Any) -> Any:
        return PermissionResultAllow()

    return ClaudeAgentOptions(
        cwd=env.project,
        cli_path=env.cli,
        permission_mode="default",
        system_prompt={"type": "preset", "preset": "claude_code"},
        include_partial_messages=True,
        can_use_tool=allow,
        stderr=lambda _line: None,
    )


async def sdk_turn(client: Any, prompt: str) -> None:
    from claude_agent_sdk import ResultMessage

    await client.query(prompt)
    result = None
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            result = message
    if result is None or result.is_error:
        raise RuntimeError(f"SDK turn failed: {result!r}")


@contextlib.asynccontextmanager
async def sdk_session(env: Offline) -> AsyncIterator[tuple[Any, float]]:
    """A connected client that has answered one prompt; yields it and spawn-to-result time."""
    from claude_agent_sdk import ClaudeSDKClient

    client = ClaudeSDKClient(sdk_options(env))
    start = time.perf_counter()
    await client.connect()
    try:
        await sdk_turn(client, "Warm up, please.")
        yield client, time.perf_counter() - start
    finally:
        await client.disconnect()


# --------------------------------------------------------------------------- cctui


def cctui_settings(env: Offline) -> Any:
    from cctui.config import Settings

    return Settings(
        claude_code_path=env.cli,
        claude_config_dir=env.home / ".claude",
        state_dir=env.state,
        default_cwd=env.project,
        http_port=0,
    )


def check_turn(reason: str, what: str) -> None:
    if reason != "turn_ended":
        raise RuntimeError(f"{what}: wait returned {reason!r}, expected 'turn_ended'")


async def manager_spawn(manager: Any) -> tuple[str, float]:
    """``create`` + ``wait``: a new session's id and its spawn-to-first-result time."""
    start = time.perf_counter()
    info = await manager.create("Warm up, please.", manager.default_config())
    outcome = await manager.wait(info.session_id, TURN_TIMEOUT_S)
    elapsed = time.perf_counter() - start
    check_turn(outcome.reason, "create")
    return info.session_id, elapsed


def manager_turn(manager: Any, sid: str) -> Turn:
    async def turn(prompt: str) -> None:
        await manager.send(sid, prompt)
        check_turn((await manager.wait(sid, TURN_TIMEOUT_S)).reason, "SessionManager")

    return turn


async def call(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool} failed: {result.structured_content or result.content}")
    out: dict[str, Any] = result.structured_content
    return out


async def mcp_spawn(client: Any) -> tuple[str, float]:
    """``claude_create_session`` + ``claude_wait``: the id and spawn-to-first-result time."""
    start = time.perf_counter()
    sid = (await call(client, "claude_create_session", {"prompt": "Warm up, please."}))["sessionId"]
    out = await call(client, "claude_wait", {"sessionId": sid, "timeoutMs": 55_000})
    elapsed = time.perf_counter() - start
    check_turn(out["reason"], "claude_wait")
    return sid, elapsed


def mcp_turn(client: Any, sid: str, what: str) -> Turn:
    async def turn(prompt: str) -> None:
        out = await call(
            client,
            "claude_send_message",
            {"sessionId": sid, "message": prompt, "wait": True, "timeoutMs": 55_000},
        )
        check_turn(out["reason"], what)

    return turn


def mcp_client(target: Any, mode: str = "auto") -> Any:
    from mcp import Client
    from mcp.types import Implementation

    return Client(target, client_info=Implementation(name="bench", version="1"), mode=mode)


def http_target(service: Any) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {service.token}"},
        timeout=httpx2.Timeout(30, read=TURN_TIMEOUT_S),
    )
    return streamable_http_client(service.url, http_client=http)


# --------------------------------------------------------------------------- the run

LABELS = {
    "sdk": "SDK ClaudeSDKClient (baseline)",
    "manager": "(a) SessionManager send + wait",
    "mcp": "(b) MCP in-memory",
    "http": "(c) MCP HTTP, 2026-07-28",
    "http-legacy": "(c') MCP HTTP, legacy handshake",
    "stdio": "(d) MCP stdio, cctui serve --stdio",
}


@dataclass
class Results:
    turns: dict[str, float]
    """Median seconds per turn, by variant (``sdk`` is the baseline)."""
    extra: dict[str, float]
    """Median of the per-round difference to the baseline turn, seconds, by variant."""
    spawn: dict[str, float]
    """Median spawn-to-first-result seconds, by variant."""
    fake: dict[str, float]
    """cctui's own cost per call with the FakeDriver (no CLI), seconds, by variant."""

    def ratios(self) -> list[tuple[str, float]]:
        """(name, ratio) rows for the summary table."""
        base = self.turns["sdk"]
        rows = [(f"turn {k} / SDK", v / base) for k, v in self.turns.items() if k != "sdk"]
        if self.spawn:
            sbase = self.spawn["sdk"]
            rows += [(f"spawn {k} / SDK", v / sbase) for k, v in self.spawn.items() if k != "sdk"]
        if self.fake:
            fbase = self.fake["manager"]
            rows += [
                (f"FakeDriver turn {k} / manager", v / fbase)
                for k, v in self.fake.items()
                if k != "manager"
            ]
        return rows


async def spawn_rounds(env: Offline, manager: Any, client: Any, rounds: int) -> dict[str, float]:
    """Spawn-to-first-result, interleaved: SDK, create(), claude_create_session; medians."""
    spawns: dict[str, list[float]] = {"sdk": [], "manager": [], "mcp": []}

    async def sdk() -> None:
        async with sdk_session(env) as (_client, elapsed):
            spawns["sdk"].append(elapsed)

    async def via(name: str, spawn: Callable[[], Awaitable[tuple[str, float]]]) -> None:
        sid, elapsed = await spawn()
        spawns[name].append(elapsed)
        await manager.kill(sid)

    order: list[Callable[[], Awaitable[None]]] = [
        sdk,
        lambda: via("manager", lambda: manager_spawn(manager)),
        lambda: via("mcp", lambda: mcp_spawn(client)),
    ]
    for i in range(rounds):
        for k in range(len(order)):
            await order[(i + k) % len(order)]()
    return {k: statistics.median(v) for k, v in spawns.items()}


async def interleaved(variants: list[Variant], turns: int) -> None:
    """One untimed warm-up turn each, then ``turns`` rounds, the order rotating per round."""
    for v in variants:
        await v.turn("One more warm-up.")
    for i in range(turns):
        for k in range(len(variants)):
            v = variants[(i + k) % len(variants)]
            start = time.perf_counter()
            await v.turn(f"Turn number {i}: say OK.")
            v.times.append(time.perf_counter() - start)


async def cctui_only(calls: int, http: bool) -> dict[str, float]:
    """cctui's own per-turn cost: the same paths over the FakeDriver (an instant echo turn)."""
    from cctui.config import Settings
    from cctui.core import SessionManager
    from cctui.mcp_server.server import build_server
    from cctui.mcp_server.transport.http import HttpService
    from tests.fakes.fake_driver import fake_driver_factory

    with tempfile.TemporaryDirectory(prefix="cctui-bench-fake-") as tmp:
        root = Path(tmp)
        (root / "proj").mkdir()
        settings = Settings(
            claude_config_dir=root / "claude",
            state_dir=root / "state",
            default_cwd=root / "proj",
            http_port=0,
        )
        manager = SessionManager(settings, driver_factory=fake_driver_factory())
        await manager.start()
        server = build_server(manager, settings)
        service = HttpService(server, settings) if http else None
        try:
            async with contextlib.AsyncExitStack() as stack:
                inmem = await stack.enter_async_context(mcp_client(server))
                sid, _ = await mcp_spawn(inmem)
                variants = [Variant("manager", manager_turn(manager, sid))]
                sid, _ = await mcp_spawn(inmem)
                variants.append(Variant("mcp", mcp_turn(inmem, sid, "in-memory MCP")))
                if service is not None:
                    await service.start()
                    stack.push_async_callback(service.stop)
                    for name, mode in (("http", "auto"), ("http-legacy", "legacy")):
                        remote = await stack.enter_async_context(
                            mcp_client(http_target(service), mode)
                        )
                        sid, _ = await mcp_spawn(remote)
                        variants.append(Variant(name, mcp_turn(remote, sid, f"{name} MCP")))
                await interleaved(variants, calls)
        finally:
            await manager.shutdown()
    return {v.name: v.median for v in variants}


def stdio_target(env: Offline) -> Any:
    """``cctui serve --stdio`` in a child process (its own core) on the same fake API."""
    from mcp import StdioServerParameters

    child = {
        **os.environ,
        "CLAUDE_CODE_PATH": str(env.cli),
        "CLAUDE_CODE_DEFAULT_CWD": str(env.project),
        "XDG_STATE_HOME": str(env.state / "stdio"),
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "cctui", "serve", "--stdio"], env=child, cwd=REPO
    )


async def run(
    turns: int,
    spawns: int,
    http: bool,
    fake_calls: int,
    quiet: bool = False,
    stdio: bool = True,
) -> Results:
    from cctui.core import SessionManager
    from cctui.mcp_server.server import build_server
    from cctui.mcp_server.transport.http import HttpService

    fake = await cctui_only(fake_calls, http) if fake_calls else {}
    with offline() as env:
        settings = cctui_settings(env)
        manager = SessionManager(settings)
        await manager.start()
        server = build_server(manager, settings)
        service = HttpService(server, settings) if http else None
        try:
            async with contextlib.AsyncExitStack() as stack:
                if service is not None:
                    await service.start()
                    stack.push_async_callback(service.stop)
                inmem = await stack.enter_async_context(mcp_client(server))
                sdk_client, _ = await stack.enter_async_context(sdk_session(env))
                variants = [Variant("sdk", lambda p: sdk_turn(sdk_client, p))]
                sid, _ = await manager_spawn(manager)
                variants.append(Variant("manager", manager_turn(manager, sid)))
                sid, _ = await mcp_spawn(inmem)
                variants.append(Variant("mcp", mcp_turn(inmem, sid, "in-memory MCP")))
                if service is not None:
                    for name, mode in (("http", "auto"), ("http-legacy", "legacy")):
                        remote = await stack.enter_async_context(
                            mcp_client(http_target(service), mode)
                        )
                        sid, _ = await mcp_spawn(remote)
                        variants.append(Variant(name, mcp_turn(remote, sid, f"{name} MCP")))
                if stdio:
                    remote = await stack.enter_async_context(mcp_client(stdio_target(env)))
                    sid, _ = await mcp_spawn(remote)
                    variants.append(Variant("stdio", mcp_turn(remote, sid, "stdio MCP")))
                await interleaved(variants, turns)
                spawn = await spawn_rounds(env, manager, inmem, spawns) if spawns else {}
        finally:
            await manager.shutdown()
    base = variants[0].times
    extra = {
        v.name: statistics.median(t - b for t, b in zip(v.times, base, strict=True))
        for v in variants[1:]
    }
    results = Results({v.name: v.median for v in variants}, extra, spawn, fake)
    if not quiet:
        report(results, turns, variants)
    return results


def report(results: Results, turns: int, variants: list[Variant]) -> None:
    base = results.turns["sdk"]
    print(
        f"\nper turn, real CLI + fake API, {turns} interleaved turns each "
        "(median / p90 ms; extra = median per-round difference to the baseline):"
    )
    for v in variants:
        p90 = statistics.quantiles(v.times, n=10)[-1] if len(v.times) > 1 else v.times[0]
        extra = results.extra.get(v.name)
        more = f"   extra {extra * 1e3:+6.1f} ms" if extra is not None else ""
        print(
            f"  {LABELS[v.name]:34} {v.median * 1e3:7.1f} / {p90 * 1e3:6.1f}"
            f"   x baseline {v.median / base:5.2f}{more}"
        )
    if results.spawn:
        sbase = results.spawn["sdk"]
        print("\nspawn to first result (median ms):")
        for name, label in (
            ("sdk", "SDK connect + query (baseline)"),
            ("manager", "(a) create + wait"),
            ("mcp", "(b) claude_create_session + wait"),
        ):
            print(
                f"  {label:34} {results.spawn[name] * 1e3:7.1f}"
                f"            x baseline {results.spawn[name] / sbase:5.2f}"
            )
    if results.fake:
        mbase = results.fake["manager"]
        print("\ncctui's own cost per turn, FakeDriver instead of the CLI (median ms):")
        for name, t in results.fake.items():
            print(f"  {LABELS[name]:34} {t * 1e3:7.2f}            x (a) {t / mbase:7.1f}")
    mcp = [results.turns[k] / base for k in ("mcp", "http", "stdio") if k in results.turns]
    worst = max(mcp)
    verdict = "meets" if worst <= TARGET_MCP else "MISSES"
    print(
        f"\nMCP path up to {worst:.2f}x the direct SDK: {verdict} the <= {TARGET_MCP:.2f}x target"
    )


def main(argv: list[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30, help="timed turns per variant")
    parser.add_argument(
        "--spawns", type=int, default=3, help="spawn-to-first-result rounds (0 skips)"
    )
    parser.add_argument(
        "--fake-calls",
        type=int,
        default=100,
        help="FakeDriver calls per variant for cctui's own cost (0 skips)",
    )
    parser.add_argument("--no-http", action="store_true", help="skip (c), Streamable HTTP")
    parser.add_argument("--no-stdio", action="store_true", help="skip (d), cctui serve --stdio")
    args = parser.parse_args(argv)
    return asyncio.run(
        run(
            args.turns,
            args.spawns,
            not args.no_http,
            args.fake_calls,
            stdio=not args.no_stdio,
        )
    )


if __name__ == "__main__":
    main()
