"""Benchmark of the TUI under a chatty session (FakeDriver, headless), as ratios.

    python -m tests.bench.bench_tui [--kb 200] [--deltas 20000] [--tools 400] [--timeout 60]

One turn streams a long markdown-ish reply (``--kb`` KB in ``--deltas`` deltas, no delay),
then ``--tools`` tool calls with results, then a short closing message. It runs through a
real ``CctuiApp`` (``app.run_test``) in two variants, each in a fresh app:

- *shown*: the chatty session is open in the pane;
- *hidden* (baseline): a quiet session is open in the pane instead, so the app does the same
  bridge, list and status work but the pane draws nothing of the stream.

(a) Drawing cost: wall time from the first text delta until the UI is done with the turn
(hidden: the list shows the session idle again; shown: the same, plus the pane showing the
whole long message, every tool line and the result). Ratio shown / hidden.

(b) Responsiveness, in the same app run: a 20 ms ``set_interval`` timer's lateness and the
latency of ``?`` (key sent through the driver, until the help screen is up; ``escape``
closes it), sampled while the turn streams versus while the app is idle before it. Ratios
stream / idle (p95 timer lateness, median and max key latency).
Not part of the pytest run: timings vary by machine; ratios mostly don't.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.fake_driver import Step, fake_driver_factory, text, tool

SIZE = (130, 36)
TICK_S = 0.02
"""The probe timer's interval."""
KEY_EVERY_S = 0.5
"""Pause between two key probes."""
IDLE_KEYS = 8
"""Key probes while idle (the baseline)."""
CLOSING = "All done: every file was read."


def long_reply(kb: int) -> str:
    """About ``kb`` KB of what a long answer looks like: headings, prose, lists, code."""
    parts: list[str] = []
    size, i = 0, 0
    while size < kb * 1000:
        section = (
            f"## Step {i}: looking at `module_{i}.py`\n\n"
            f"The function `handle_{i}` reads the **config** and passes it on; nothing here "
            f"touches the network, so the change is local to this file and its tests. "
            f"See item {i} below.\n\n"
            f"- keep `handle_{i}` pure\n- move the parsing into `parse_{i}`\n"
            f"- add a test for the empty case\n\n"
            f"```python\ndef parse_{i}(raw: str) -> dict[str, int]:\n"
            f"    return {{k: int(v) for k, v in (p.split('=') for p in raw.split(','))}}\n"
            f"```\n\n"
        )
        parts.append(section)
        size += len(section)
        i += 1
    return "".join(parts).rstrip() + "\n"


@dataclass
class Workload:
    reply: str
    chunk: int
    tools: int

    def steps(self, message: str) -> list[Step]:
        if message != "go":
            return [text("Ready.")]
        calls = [
            tool(
                "Read",
                {"file_path": f"/src/module_{i}.py"},
                ask=False,
                output=f"def handle_{i}():\n    return {i}\n" * 3,
            )
            for i in range(self.tools)
        ]
        return [text(self.reply, chunk=self.chunk), *calls, text(CLOSING)]


@dataclass
class RunResult:
    shown: bool
    stream_s: float
    """First delta until the UI is done with the turn."""
    timer_idle: list[float] = field(default_factory=list)
    timer_stream: list[float] = field(default_factory=list)
    keys_idle: list[float] = field(default_factory=list)
    keys_stream: list[float] = field(default_factory=list)
    timed_out: bool = False


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


class TimerProbe:
    """A ``set_interval`` callback that records how late each tick ran."""

    def __init__(self) -> None:
        self.last: float | None = None
        self.into: list[float] | None = None

    def __call__(self) -> None:
        now = time.perf_counter()
        if self.last is not None and self.into is not None:
            self.into.append(max(0.0, now - self.last - TICK_S))
        self.last = now


async def until(check: Callable[[], bool], wait_s: float, step: float = 0.001) -> bool:
    deadline = time.perf_counter() + wait_s
    while not check():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(step)
    return True


async def press_help(app: Any) -> float:
    """Send ``?``, time until the help screen is up, close it again; the latency in seconds."""
    from textual import events

    from cctui.tui.screens.help import HelpScreen
    from cctui.tui.screens.main import MainScreen

    def send(key: str, char: str | None) -> None:
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)

    start = time.perf_counter()
    send("question_mark", "?")
    ok = await until(lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted, 30)
    latency = time.perf_counter() - start
    assert ok, "help screen never showed"
    send("escape", None)
    assert await until(lambda: isinstance(app.screen, MainScreen), 30), "help never closed"
    return latency


@contextlib.asynccontextmanager
async def running_app(work: Workload) -> AsyncIterator[tuple[Any, Any]]:
    from cctui.config import load_settings
    from cctui.core import SessionManager
    from cctui.tui.app import CctuiApp

    with tempfile.TemporaryDirectory(prefix="cctui-bench-tui-") as tmp:
        root = Path(tmp)
        (root / "proj").mkdir()
        settings = load_settings(
            env={"HOME": str(root / "home")},
            config_path=root / "none.toml",
            overrides={"default_cwd": root / "proj"},
        )
        manager = SessionManager(settings, driver_factory=fake_driver_factory(work.steps))
        await manager.start()
        app = CctuiApp(settings, manager)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause(0.05)
                yield app, pilot
        finally:
            await manager.shutdown()


async def one_run(work: Workload, shown: bool, wait_s: float) -> RunResult:
    from cctui.core import AssistantTextEvent, ResultEvent
    from cctui.tui.widgets.transcript import (
        AssistantBlock,
        ResultBlock,
        Transcript,
        Trimmed,
    )

    async with running_app(work) as (app, pilot):
        manager = app.manager
        quiet = (await manager.create("hello", manager.default_config())).session_id
        chatty = (await manager.create("hello", manager.default_config())).session_id
        await manager.wait(quiet, 5)
        await manager.wait(chatty, 5)
        await pilot.pause(0.2)
        app.main.open_session(chatty if shown else quiet)
        await pilot.pause(0.3)

        probe = TimerProbe()
        app.set_interval(TICK_S, probe)
        await pilot.pause(0.1)
        result = RunResult(shown, 0.0)

        # Idle baseline: the timer for a while, then a few key presses.
        probe.into = result.timer_idle
        await asyncio.sleep(1.0)
        probe.into = None
        for _ in range(IDLE_KEYS):
            result.keys_idle.append(await press_help(app))
            await asyncio.sleep(KEY_EVERY_S)

        first: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        ended: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        def on_event(event: Any) -> None:
            if event.session_id != chatty:
                return
            if isinstance(event, AssistantTextEvent) and not first.done():
                first.set_result(time.perf_counter())
            if isinstance(event, ResultEvent) and not ended.done():
                ended.set_result(time.perf_counter())

        unsubscribe = manager.subscribe(on_event)

        def ui_done() -> bool:
            if not ended.done():
                return False
            row = app.main.sessions.row(chatty)
            if row is None or row.status != "idle":
                return False
            if not shown:
                return True
            transcript = app.main.pane.query_one(Transcript)
            blocks = list(transcript.query(AssistantBlock))
            # The long reply is on screen, or gave way to newer lines (Transcript.MAX_ITEMS).
            if not any(b.source == work.reply for b in blocks) and not transcript.query(Trimmed):
                return False
            if not all(b.settled for b in blocks):
                return False
            return (
                bool(blocks)
                and blocks[-1].source == CLOSING
                and bool(transcript.query(ResultBlock))
            )

        async def keys_while_streaming() -> None:
            while not ui_done():
                result.keys_stream.append(await press_help(app))
                await asyncio.sleep(KEY_EVERY_S)

        await manager.send(chatty, "go")
        probe.into = result.timer_stream
        keys = asyncio.create_task(keys_while_streaming())
        done = await until(ui_done, wait_s, step=0.005)
        end = time.perf_counter()
        probe.into = None
        keys.cancel()
        with contextlib.suppress(asyncio.CancelledError, AssertionError):
            await keys
        unsubscribe()
        result.timed_out = not done
        result.stream_s = end - (first.result() if first.done() else end)
        assert app.main.pane.session_id == (chatty if shown else quiet)
        return result


@dataclass
class Results:
    rows: list[tuple[str, float]]


async def run(
    kb: int, deltas: int, tools: int, wait_s: float = 60.0, quiet: bool = False
) -> Results:
    def say(line: str = "") -> None:
        if not quiet:
            print(line)

    reply = long_reply(kb)
    work = Workload(reply, max(1, len(reply) // deltas), tools)
    say(
        f"\none turn: {len(reply) / 1000:.0f} KB reply in {len(reply) // work.chunk} deltas, "
        f"then {tools} tool calls; app {SIZE[0]}x{SIZE[1]} headless"
    )
    hidden = await one_run(work, shown=False, wait_s=wait_s)
    shown = await one_run(work, shown=True, wait_s=wait_s)

    rows: list[tuple[str, float]] = []
    say(f"\n  {'':34} {'hidden':>10} {'shown':>10}")
    for label, h, s in (
        ("first delta -> UI done (s)", hidden.stream_s, shown.stream_s),
        ("timer lateness idle p95 (ms)", p95(hidden.timer_idle) * 1e3, p95(shown.timer_idle) * 1e3),
        (
            "timer lateness stream p95 (ms)",
            p95(hidden.timer_stream) * 1e3,
            p95(shown.timer_stream) * 1e3,
        ),
        (
            "timer lateness stream max (ms)",
            max(hidden.timer_stream, default=0) * 1e3,
            max(shown.timer_stream, default=0) * 1e3,
        ),
        (
            "key '?' idle median (ms)",
            statistics.median(hidden.keys_idle) * 1e3,
            statistics.median(shown.keys_idle) * 1e3,
        ),
        (
            "key '?' stream median (ms)",
            _median(hidden.keys_stream) * 1e3,
            _median(shown.keys_stream) * 1e3,
        ),
        (
            "key '?' stream max (ms)",
            max(hidden.keys_stream, default=0) * 1e3,
            max(shown.keys_stream, default=0) * 1e3,
        ),
        ("key samples while streaming", len(hidden.keys_stream), len(shown.keys_stream)),
    ):
        say(f"  {label:34} {h:10.1f} {s:10.1f}")
    if shown.timed_out or hidden.timed_out:
        say(f"  (timed out after {wait_s:.0f}s: the ratios below are lower bounds)")

    rows.append(("tui: stream drawn, shown / hidden", shown.stream_s / hidden.stream_s))
    for res in (hidden, shown):
        name = "shown" if res.shown else "hidden"
        idle_t = max(p95(res.timer_idle), 1e-3)  # a 1 ms floor: idle lateness is ~0
        rows.append(
            (f"tui: timer lateness p95, stream / idle ({name})", p95(res.timer_stream) / idle_t)
        )
        idle_k = statistics.median(res.keys_idle)
        rows.append(
            (f"tui: key latency median, stream / idle ({name})", _median(res.keys_stream) / idle_k)
        )
        rows.append(
            (
                f"tui: key latency max, stream / idle median ({name})",
                max(res.keys_stream, default=0) / idle_k,
            )
        )
    say("")
    for name, ratio in rows:
        say(f"  {name:58} {ratio:8.2f}")
    return Results(rows)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=200)
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--tools", type=int, default=400)
    parser.add_argument("--timeout", type=float, default=60.0, help="per variant, seconds")
    args = parser.parse_args(argv)
    return asyncio.run(run(args.kb, args.deltas, args.tools, args.timeout))


if __name__ == "__main__":
    main()
