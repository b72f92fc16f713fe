"""Benchmark: the cost of driving a real ``claude`` session through cctui, as ratios.

    python -m tests.bench.bench_turns [--turns 30] [--spawns 3] [--no-http] [--ts-client DIR]

Runs the real CLI (``$CLAUDE_CODE_PATH`` or the SDK's bundled one) offline against the fake
Anthropic API (a child process on 127.0.0.1) with a throwaway ``HOME``. Every turn is a
trivial prompt without directives, answered ``OK: ...``.

Baseline: ``claude_agent_sdk.ClaudeSDKClient`` on one warm process, ``query`` +
``receive_response`` per turn, with the options cctui's driver builds for a default session
(file checkpoints and ``--replay-user-messages`` included). Measured on warm
sessions of their own: (a) ``SessionManager.send`` + ``wait``; (b) an in-memory MCP client
calling ``claude_send_message`` with ``wait=true``; (c) the same over Streamable HTTP with
``HttpService`` and its bearer token; (d) over stdio to ``cctui serve --stdio`` in a child
process (its own core, same CLI and fake API); (e) over Streamable HTTP to ``cctui serve
--http`` in a child process. (d) and (e) are cctui as it is used, beside its caller; (b) and
(c) run client and server on one event loop, so each call's client work (``httpx``, the
result's JSON-schema check) is counted too. The variants take turns (baseline, a, b, c, baseline,
...) so drift and background load hit them alike; each reports its median per-turn time.
Spawn-to-first-result compares ``create()`` + ``wait`` (and ``claude_create_session`` +
``claude_wait`` over MCP) with SDK ``connect`` + ``query`` + the first result.
Not part of the pytest run: timings vary by machine; ratios mostly don't.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.plugin import find_claude, offline_env
from tests.fakes.seed_home import seed_claude_home

REPO = Path(__file__).resolve().parents[2]
TARGET_MCP = 1.10
"""Research target: a turn through the MCP server costs at most 10 % over the bare SDK."""
TURN_TIMEOUT_S = 60.0
DEPLOYED = ("stdio", "http-child", "ts-stdio", "ts-http")
"""The variants as cctui is used: its server in a process of its own, the caller in another
(the target is judged on these; the in-process ones show what each layer costs)."""

Turn = Callable[[str], Awaitable[object]]


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
        stop(proc, 5)


def stop(proc: subprocess.Popen[Any], grace_s: float) -> None:
    """SIGTERM, then SIGKILL if it is still there after ``grace_s``."""
    proc.terminate()
    try:
        proc.wait(grace_s)
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
    """The options ``SdkDriver`` builds for a default cctui session in ``env`` (the same flags,
    environment and file checkpoints), with an allow-all permission callback: the same CLI
    doing the same turn, so the ratio is what cctui adds, not what the CLI's options cost."""
    from dataclasses import replace

    from claude_agent_sdk import PermissionResultAllow

    from cctui.claude.sdk_driver import SdkDriver
    from cctui.core.launch import default_config, launch_spec

    async def allow(*_: Any) -> Any:
        return PermissionResultAllow()

    settings = cctui_settings(env)
    spec = launch_spec(settings, default_config(settings))
    options = SdkDriver(spec, allow)._options()
    return replace(options, can_use_tool=allow, stderr=lambda _line: None)


async def sdk_turn(client: Any, prompt: str) -> str | None:
    """One turn on a connected ``ClaudeSDKClient``; its result text.

    Raises:
        RuntimeError: the turn ended without a result, or with an error.
    """
    from claude_agent_sdk import ResultMessage

    await client.query(prompt)
    result = None
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            result = message
    if result is None or result.is_error:
        raise RuntimeError(f"SDK turn failed: {result!r}")
    text: str | None = result.result
    return text


@contextlib.asynccontextmanager
async def sdk_session(env: Offline) -> AsyncIterator[tuple[Any, float]]:
    """A connected client that has answered one prompt; yields it and spawn-to-result time."""
    from claude_agent_sdk import ClaudeSDKClient

    options = sdk_options(env)
    client = ClaudeSDKClient(options)
    start = time.perf_counter()
    try:
        await client.connect()
        try:
            await sdk_turn(client, "Warm up, please.")
            yield client, time.perf_counter() - start
        finally:
            await client.disconnect()
    finally:  # the launcher cctui's driver wrote for it (the driver removes its own on close)
        shutil.rmtree(Path(options.cli_path).parent, ignore_errors=True)


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
    "sdk-aa": "A/A: the same, a second process",
    "manager": "(a) SessionManager send + wait",
    "mcp": "(b) MCP in-memory",
    "http": "(c) MCP HTTP, 2026-07-28",
    "http-legacy": "(c') MCP HTTP, legacy handshake",
    "stdio": "(d) MCP stdio, cctui serve --stdio",
    "http-child": "(e) MCP HTTP, cctui serve --http",
    "ts-http": "(e') (e), TypeScript SDK client",
    "ts-stdio": "(d') (d), TypeScript SDK client",
    "floor-stdio": "(f) bare mcp SDK server, stdio",
    "floor-http": "(f') bare mcp SDK server, HTTP",
}
FLOORS = {"stdio": "floor-stdio", "http-child": "floor-http"}
"""Each deployed variant beside the bare mcp SDK server over the same transport."""


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


@contextlib.asynccontextmanager
async def http_child(env: Offline) -> AsyncIterator[tuple[str, str]]:
    """``cctui serve --http --port 0`` in a child process (its own core, same CLI and fake
    API), as a person runs cctui beside the agent that calls it; yields its URL and token."""
    state = env.state / "http-child"
    child = {
        **os.environ,
        "CLAUDE_CODE_PATH": str(env.cli),
        "CLAUDE_CODE_DEFAULT_CWD": str(env.project),
        "XDG_STATE_HOME": str(state),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "cctui", "serve", "--http", "--port", "0"],
        cwd=REPO,
        env=child,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        server_file = state / "cctui" / "server.json"
        for _ in range(300):
            if server_file.exists() or proc.poll() is not None:
                break
            await asyncio.sleep(0.05)
        if not server_file.exists():
            raise RuntimeError(f"cctui serve --http did not start (exit code {proc.poll()})")
        info = json.loads(server_file.read_text())
        yield info["url"], info["token"]
    finally:
        stop(proc, 10)


def floor_argv(env: Offline, how: list[str]) -> list[str]:
    """``mcp_floor``'s command line: the SDK baseline's session behind a bare mcp server."""
    paths = (env.cli, env.home, env.project, env.state / "floor")
    return [sys.executable, "-m", "tests.bench.mcp_floor", *how, *map(str, paths)]


def floor_stdio(env: Offline) -> Any:
    from mcp import StdioServerParameters

    command, *args = floor_argv(env, ["--stdio"])
    return StdioServerParameters(command=command, args=args, env=dict(os.environ), cwd=REPO)


@contextlib.asynccontextmanager
async def floor_http(env: Offline) -> AsyncIterator[str]:
    """``mcp_floor --http`` in a child process; yields its URL once it accepts connections."""
    with socket.socket() as probe:  # a free port (the bare server cannot report one it chose)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        floor_argv(env, ["--http", str(port)]),
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            if proc.poll() is not None:
                break
            await asyncio.sleep(0.05)
        else:
            raise RuntimeError("mcp_floor --http did not start")
        if proc.poll() is not None:
            raise RuntimeError(f"mcp_floor --http exited with {proc.returncode}")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        # uvicorn shuts down on SIGINT, so the floor's CLI and its launcher go too.
        proc.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        stop(proc, 5)


def floor_turn(client: Any) -> Turn:
    async def turn(prompt: str) -> None:
        check_turn((await call(client, "turn", {"prompt": prompt}))["reason"], "bare mcp server")

    return turn


class TsClient:
    """The TypeScript SDK's MCP client (``mcp_client.mjs`` in node), one call per line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    @contextlib.asynccontextmanager
    async def run(cls, modules: Path, *argv: str) -> AsyncIterator[TsClient]:
        """The client connected (``argv``: ``http <url> <token>`` or ``stdio <json>``), with
        ``modules`` the directory holding ``node_modules/@modelcontextprotocol/sdk``."""
        script = modules / "mcp_client.mjs"
        shutil.copyfile(Path(__file__).with_name("mcp_client.mjs"), script)  # ESM looks beside it
        proc = await asyncio.create_subprocess_exec(
            "node",
            str(script),
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 24,
        )
        try:
            assert proc.stdout is not None
            ready = await asyncio.wait_for(proc.stdout.readline(), 60)
            if b'"ready"' not in ready:
                raise RuntimeError(f"the TypeScript client did not connect: {ready!r}")
            yield cls(proc)
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps({"tool": tool, "args": args}) + "\n").encode())
        await self.proc.stdin.drain()
        answer = json.loads(await self.proc.stdout.readline())
        if answer.get("isError") or not answer.get("out"):
            raise RuntimeError(f"{tool} failed in the TypeScript client: {answer}")
        out: dict[str, Any] = answer["out"]
        return out

    async def turn(self) -> Turn:
        """A new session (answered), and a turn on it through ``claude_send_message``."""
        sid = (await self.call("claude_create_session", {"prompt": "Warm up, please."}))[
            "sessionId"
        ]
        check_turn(
            (await self.call("claude_wait", {"sessionId": sid, "timeoutMs": 55_000}))["reason"],
            "TypeScript claude_wait",
        )

        async def turn(prompt: str) -> None:
            args = {"sessionId": sid, "message": prompt, "wait": True, "timeoutMs": 55_000}
            check_turn((await self.call("claude_send_message", args))["reason"], "TypeScript")

        return turn


async def run(
    turns: int,
    spawns: int,
    http: bool,
    fake_calls: int,
    quiet: bool = False,
    stdio: bool = True,
    ts_modules: Path | None = None,
    floor: bool = True,
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
                # The baseline twice: how far two identical sessions' medians differ here is
                # the noise every ratio below carries (0.79x-1.13x in five runs on two cores).
                sdk_twin, _ = await stack.enter_async_context(sdk_session(env))
                variants.append(Variant("sdk-aa", lambda p: sdk_turn(sdk_twin, p)))
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
                if http:
                    url, token = await stack.enter_async_context(http_child(env))
                    target = http_target(argparse.Namespace(url=url, token=token))
                    remote = await stack.enter_async_context(mcp_client(target))
                    sid, _ = await mcp_spawn(remote)
                    variants.append(Variant("http-child", mcp_turn(remote, sid, "HTTP child")))
                    if ts_modules is not None:
                        ts = await stack.enter_async_context(
                            TsClient.run(ts_modules, "http", url, token)
                        )
                        variants.append(Variant("ts-http", await ts.turn()))
                if stdio:
                    remote = await stack.enter_async_context(mcp_client(stdio_target(env)))
                    sid, _ = await mcp_spawn(remote)
                    variants.append(Variant("stdio", mcp_turn(remote, sid, "stdio MCP")))
                    if ts_modules is not None:
                        spec = stdio_target(env)
                        child = {"command": spec.command, "args": spec.args, "env": spec.env}
                        child["cwd"] = str(REPO)
                        ts = await stack.enter_async_context(
                            TsClient.run(ts_modules, "stdio", json.dumps(child))
                        )
                        variants.append(Variant("ts-stdio", await ts.turn()))
                if floor:
                    from mcp.client.streamable_http import streamable_http_client

                    if stdio:
                        remote = await stack.enter_async_context(mcp_client(floor_stdio(env)))
                        variants.append(Variant("floor-stdio", floor_turn(remote)))
                    if http:
                        url = await stack.enter_async_context(floor_http(env))
                        target = streamable_http_client(url)
                        remote = await stack.enter_async_context(mcp_client(target))
                        variants.append(Variant("floor-http", floor_turn(remote)))
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
    floors = [(k, f) for k, f in FLOORS.items() if k in results.turns and f in results.turns]
    if floors:
        print("\ncctui in its own process over the bare mcp SDK server, same transport and client:")
        for k, f in floors:
            over = results.turns[k] / results.turns[f]
            floor = results.turns[f] / base
            print(f"  {LABELS[k]:34} x floor {over:5.2f}   (the floor itself: x SDK {floor:5.2f})")
    if "sdk-aa" in results.turns:
        twin = results.turns["sdk-aa"] / base
        print(
            f"\nA/A: the baseline on a second process measured x{twin:.2f} of the first: "
            "the noise a ratio of two sessions carries in this run"
        )
    for what, keys in (
        ("MCP to cctui in its own process", DEPLOYED),
        ("MCP in the caller's process", ("mcp", "http")),
    ):
        ratios = [results.turns[k] / base for k in keys if k in results.turns]
        if ratios:
            worst = max(ratios)
            verdict = "meets" if worst <= TARGET_MCP else "MISSES"
            print(f"\n{what}: up to {worst:.2f}x the direct SDK ({verdict} <= {TARGET_MCP:.2f}x)")


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
    parser.add_argument("--no-floor", action="store_true", help="skip (f), the bare mcp SDK server")
    parser.add_argument(
        "--ts-client",
        type=Path,
        metavar="DIR",
        help="also drive (d) and (e) with the TypeScript SDK's client, installed in DIR by "
        "`npm install --prefix DIR @modelcontextprotocol/sdk@1.32.2` (needs node)",
    )
    args = parser.parse_args(argv)
    return asyncio.run(
        run(
            args.turns,
            args.spawns,
            not args.no_http,
            args.fake_calls,
            stdio=not args.no_stdio,
            ts_modules=args.ts_client.resolve() if args.ts_client else None,
            floor=not args.no_floor,
        )
    )


if __name__ == "__main__":
    main()
