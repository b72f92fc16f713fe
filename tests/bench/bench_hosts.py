"""What following a host costs both sides: polling (``claude_get_status`` per live session
every second, as a host whose cctui predates ``cctui_follow`` is followed) against push (one
``cctui_follow`` call held open), with N live sessions there.

    python -m tests.bench.bench_hosts [--sessions 20] [--seconds 20] [--streaming 0]

A second cctui runs under a temporary HOME (``serve --http``, its sessions on the real
``claude`` against the fake API), reached as a host through ``cctui bridge`` as over SSH.
It starts ``--sessions`` sessions there and waits until each is idle (a live ``claude``
each), then follows the host for ``--seconds`` each way, in this one run, and prints the CPU
seconds of the host's cctui, of its bridge and of this process (the follower), and the
ratio push / poll. ``--streaming K`` keeps K of the sessions replying slowly meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cctui.config import HostConfig
from cctui.remote import hosts as hosts_module
from cctui.remote.client import CctuiClient
from cctui.remote.hosts import Hosts
from cctui.remote.models import RemoteError
from tests.bench.bench_turns import fake_api, stop
from tests.fakes.plugin import offline_env
from tests.fakes.seed_home import seed_claude_home

TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


class Polling(CctuiClient):
    """The client as a host without ``cctui_follow`` makes it: followed by polling."""

    async def follow(self, *_: object, **__: object) -> list[object]:  # type: ignore[override]
        raise RemoteError(self.name, "no such tool", code="unknown_tool")


async def follow_for(
    kind: type[CctuiClient], argv: list[str], seconds: float, bridge_pid: list[int]
) -> tuple[float, float, dict[str, int]]:
    """Follow the host for ``seconds``: (this process's CPU s, its bridge's CPU s, calls)."""
    calls: dict[str, int] = {}

    class Counting(kind):  # type: ignore[valid-type,misc]
        async def call(self, tool: str, **arguments: object) -> dict[str, object]:
            calls[tool] = calls.get(tool, 0) + 1
            out: dict[str, object] = await super().call(tool, **arguments)
            return out

    hosts = Hosts(
        [HostConfig(name="box", command=tuple(argv))],
        lambda c: Counting(c.name, c.argv),
        me="mcp:bench",
    )
    box = hosts.get("box")
    hosts.start()
    try:
        while not box.online:  # noqa: ASYNC110 -- a bench's coarse wait
            await asyncio.sleep(0.1)
        await asyncio.sleep(3)  # past the first (whole) listing
        calls.clear()
        bridge = cpu_s(bridge_pid[0])
        mine = time.process_time()
        await asyncio.sleep(seconds)
        return time.process_time() - mine, cpu_s(bridge_pid[0]) - bridge, dict(calls)
    finally:
        await hosts.stop()


async def start_sessions(argv: list[str], n: int, project: Path) -> list[str]:
    async with CctuiClient("box", argv) as c:
        sids = [await c.create("Say hi.", cwd=str(project)) for _ in range(n)]
        deadline = time.monotonic() + 180
        while True:
            states = {e.session_id: e.status.value for e in await c.list_sessions(limit=500)}
            if all(states.get(s) == "idle" for s in sids):
                return sids
            if time.monotonic() > deadline:
                raise RuntimeError(f"sessions did not become idle: {states}")
            await asyncio.sleep(1)


async def stream(argv: list[str], sids: list[str], seconds: float) -> None:
    async with CctuiClient("box", argv) as c:
        for sid in sids:
            await c.send(sid, f"[[slow seconds={int(seconds * 2)} chunks={int(seconds * 20)}]]")


async def main(n: int, seconds: float, streaming: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-hosts-"))
    home, project = root / "home", root / "proj"
    project.mkdir()
    for sub in (".config", ".local/state", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True)
    seed_claude_home(home, project)
    with fake_api() as url:
        env = offline_env(dict(os.environ), url, home)
        owner = subprocess.Popen(
            [sys.executable, "-m", "cctui", "serve", "--http", "--port", "0"],
            env=env,
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        pidfile = root / "bridge.pid"
        assigns = [f"{k}={v}" for k, v in env.items() if k not in ("PWD", "OLDPWD")]
        inner = f"echo $$ > {pidfile}; exec env -i " + " ".join(
            f"'{a}'" for a in [*assigns, sys.executable, "-m", "cctui", "bridge"]
        )
        argv = ["sh", "-c", inner]
        try:
            while not (home / ".local/state/cctui/server.json").exists():  # noqa: ASYNC110
                await asyncio.sleep(0.1)
            sids = await start_sessions(argv, n, project)
            print(f"{n} sessions idle on the host; following for {seconds:.0f} s each way")
            rows = []
            for label, kind in (("poll", Polling), ("push", CctuiClient)):
                if streaming:
                    await stream(argv, sids[:streaming], seconds)
                pid: list[int] = [0]

                async def bridge_pid(pid: list[int] = pid) -> None:
                    while not pidfile.exists():  # noqa: ASYNC110 -- a file
                        await asyncio.sleep(0.05)
                    pid[0] = int(pidfile.read_text())

                pidfile.unlink(missing_ok=True)
                waiter = asyncio.create_task(bridge_pid())
                owner_before = cpu_s(owner.pid)
                task = asyncio.create_task(follow_for(kind, argv, seconds, pid))
                await waiter
                mine, bridge, calls = await task
                host = cpu_s(owner.pid) - owner_before
                rows.append((label, host, bridge, mine, calls))
                if streaming:
                    await asyncio.sleep(seconds)  # the slow replies end before the next run
            print(f"{'':6}{'host cctui':>12}{'bridge':>10}{'follower':>10}   calls")
            for label, host, bridge, mine, calls in rows:
                print(f"{label:6}{host:12.2f}{bridge:10.2f}{mine:10.2f}   {calls}")
            (_, h0, b0, m0, _), (_, h1, b1, m1, _) = rows
            print(
                f"push/poll{h1 / max(h0, 0.01):9.2f}{b1 / max(b0, 0.01):10.2f}"
                f"{m1 / max(m0, 0.01):10.2f}"
            )
        finally:
            subprocess.run(
                [sys.executable, "-m", "cctui", "stop"], env=env, capture_output=True, timeout=60
            )
            stop(owner, 20)
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--streaming", type=int, default=0)
    args = parser.parse_args()
    hosts_module.FIRST_RETRY_S = 0.2
    asyncio.run(main(args.sessions, args.seconds, args.streaming))
