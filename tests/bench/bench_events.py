"""Benchmark of the event path (FakeDriver, no CLI), printed as ratios against in-run baselines.

    python -m tests.bench.bench_events [--deltas 20000] [--big-events 100000] [--small-events 1000]

Throughput: a chatty turn of ``--deltas`` text deltas goes FakeDriver -> Session ->
ring buffer -> ``SessionManager.publish`` -> one subscriber. Shapes: many short messages
(100 deltas each), one long message (every delta republishes the whole text so far), and
the many-message shape again with a ``SessionManager.wait`` running (what an MCP client
waiting on the session adds). Baselines: appending as many plain objects to a
``deque(maxlen=500)`` and calling a no-op callback (the least a ring plus one subscriber
can cost), and draining the FakeDriver's own frames with nothing behind it (so the ratio
to it is what the session and manager add).

Memory: tracemalloc peak of a session with EVENT_BUFFER_SIZE=500 that receives
``--big-events`` events versus ``--small-events``, spread over turns; ~1 means the memory
is bounded by the ring. Two shapes: text messages, and tool calls (no permission asks).
Not part of the pytest run: timings vary by machine; ratios mostly don't.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from cctui.claude.frames import AssistantText, Frame
from tests.fakes.fake_driver import FakeDriver, Step, emit, fake_driver_factory, text, tool

BUFFER_SIZE = 500
DELTA = "tok "
"""One delta: about one token of text."""
MESSAGE_DELTAS = 100
"""Deltas per message in the many-messages shape."""


@dataclass
class Workload:
    """One turn's steps, the frames the driver emits for it, the messages it completes."""

    steps: list[Step]
    events: int
    """Frames: each delta, each whole message, each tool call and outcome."""
    texts: int = 0
    """Assistant messages the turn completes (each published whole once at its end; the
    deltas before it are published at most every ``TEXT_PACE_S``, not one event each)."""
    chars: int = 0
    """The characters of those messages together."""


def many_messages(deltas: int) -> Workload:
    """``deltas`` deltas in messages of MESSAGE_DELTAS each (+1 final event per message)."""
    messages = max(1, deltas // MESSAGE_DELTAS)
    body = DELTA * MESSAGE_DELTAS
    return Workload(
        [text(body, chunk=len(DELTA)) for _ in range(messages)],
        messages * (MESSAGE_DELTAS + 1),
        messages,
        messages * len(body),
    )


def one_message(deltas: int) -> Workload:
    """One message of ``deltas`` deltas."""
    return Workload([text(DELTA * deltas, chunk=len(DELTA))], deltas + 1, 1, len(DELTA) * deltas)


def short_messages(count: int) -> Workload:
    """``count`` complete messages (no deltas): one event and one ring slot each."""
    return Workload(
        [emit(AssistantText(f"msg_bench_{i}", f"hello there {i}")) for i in range(count)],
        count,
        count,
    )


def tool_calls(count: int) -> Workload:
    """``count`` allowed tool calls: two events (call, outcome), two ring slots each."""
    return Workload(
        [
            tool("Read", {"file_path": f"/tmp/f{i}.txt"}, ask=False, output="x" * 200)
            for i in range(count)
        ],
        2 * count,
    )


# --------------------------------------------------------------------------- harness


@contextlib.asynccontextmanager
async def idle_session(steps: Sequence[Step]) -> AsyncIterator[tuple[Any, str]]:
    """A manager over the FakeDriver with one idle session whose every turn plays ``steps``."""
    from cctui.config import Settings
    from cctui.core import SessionManager

    with tempfile.TemporaryDirectory(prefix="cctui-bench-events-") as tmp:
        root = Path(tmp)
        (root / "proj").mkdir()
        settings = Settings(
            claude_config_dir=root / "claude",
            state_dir=root / "state",
            default_cwd=root / "proj",
            event_buffer_size=BUFFER_SIZE,
        )
        manager = SessionManager(settings, driver_factory=fake_driver_factory(lambda _m: steps))
        await manager.start()
        try:
            info = await manager.create(None, manager.default_config())
            yield manager, info.session_id
        finally:
            await manager.shutdown()


class Counter:
    """The one subscriber: counts events and whole messages (and their characters), resolves
    a future on each turn's result."""

    def __init__(self) -> None:
        self.events = 0
        self.texts = 0
        self.chars = 0
        self.done: asyncio.Future[None] | None = None

    def __call__(self, event: Any) -> None:
        self.events += 1
        if event.kind == "text" and event.complete:
            self.texts += 1
            self.chars += len(event.text)
        if event.kind == "result" and self.done is not None and not self.done.done():
            self.done.set_result(None)

    async def turn(self, manager: Any, sid: str, waiter: bool = False) -> None:
        self.done = asyncio.get_running_loop().create_future()
        await manager.send(sid, "go")
        if waiter:
            outcome = await manager.wait(sid, 600)
            assert outcome.reason == "turn_ended", outcome.reason
        await self.done


Timed = Callable[[], Awaitable[float]]
"""One timed run: returns its elapsed seconds."""


@contextlib.asynccontextmanager
async def session_runner(work: Workload, waiter: bool = False) -> AsyncIterator[Timed]:
    """Times one turn of ``work`` through the session and manager (after a warm-up turn)."""
    async with idle_session(work.steps) as (manager, sid):
        counter = Counter()
        manager.subscribe(counter)
        await counter.turn(manager, sid, waiter)

        async def timed() -> float:
            texts, chars = counter.texts, counter.chars
            start = time.perf_counter()
            await counter.turn(manager, sid, waiter)
            elapsed = time.perf_counter() - start
            # Every message arrived whole: all the deltas went through.
            assert counter.texts - texts == work.texts, (counter.texts - texts, work.texts)
            assert counter.chars - chars == work.chars, (counter.chars - chars, work.chars)
            return elapsed

        yield timed


@contextlib.asynccontextmanager
async def driver_runner(work: Workload) -> AsyncIterator[Timed]:
    """Times the FakeDriver playing the turn to a bare consumer (after a warm-up turn)."""
    from cctui.claude.frames import LaunchSpec, TurnResult

    async def deny(_ask: Any) -> Any:
        raise AssertionError("no asks in this workload")

    driver = FakeDriver(LaunchSpec(cwd=Path.cwd()), deny, lambda _m: work.steps)
    await driver.connect()
    frames = cast("AsyncGenerator[Frame, None]", driver.frames())

    async def timed() -> float:
        start = time.perf_counter()
        await driver.send("go")
        async for frame in frames:
            if isinstance(frame, TurnResult):
                break
        return time.perf_counter() - start

    try:
        await timed()
        yield timed
    finally:
        await driver.close()
        await frames.aclose()


def deque_runner(n: int) -> Timed:
    """Times appending ``n`` plain objects to a bounded deque + calling a no-op (3 runs, min)."""

    class Plain:
        __slots__ = ("seq", "text")

        def __init__(self, seq: int, text: str) -> None:
            self.seq, self.text = seq, text

    def noop(_obj: Plain) -> None:
        return None

    def once() -> float:
        ring: collections.deque[Plain] = collections.deque(maxlen=BUFFER_SIZE)
        start = time.perf_counter()
        for i in range(n):
            obj = Plain(i, DELTA)
            ring.append(obj)
            noop(obj)
        return time.perf_counter() - start

    async def timed() -> float:
        return min(once() for _ in range(3))

    return timed


async def interleaved(runners: dict[str, Timed], repeat: int) -> dict[str, float]:
    """``repeat`` rounds over every runner, the order rotating per round; medians."""
    names = list(runners)
    times: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    for i in range(repeat):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            times[name].append(await runners[name]())
    return {name: statistics.median(t) for name, t in times.items()}


async def memory_peak(work: Workload, turns: int) -> tuple[int, int, int]:
    """(peak, end, events): tracemalloc bytes over ``turns`` turns of ``work``, from a warm start.

    Traced from before the manager exists, so both runs count the same fixed costs.
    """
    gc.collect()
    tracemalloc.start()
    try:
        async with idle_session(work.steps) as (manager, sid):
            counter = Counter()
            manager.subscribe(counter)
            for _ in range(turns):
                await counter.turn(manager, sid)
            gc.collect()
            end, peak = tracemalloc.get_traced_memory()
            return peak, end, counter.events
    finally:
        tracemalloc.stop()


# --------------------------------------------------------------------------- the run


@dataclass
class Results:
    rows: list[tuple[str, float]]
    """(name, ratio) for the summary table."""


async def run(deltas: int, big: int, small: int, repeat: int = 7, quiet: bool = False) -> Results:
    def say(line: str = "") -> None:
        if not quiet:
            print(line)

    many, one = many_messages(deltas), one_message(deltas)
    async with contextlib.AsyncExitStack() as stack:
        enter = stack.enter_async_context
        runners = {
            "deque": deque_runner(many.events),
            "driver": await enter(driver_runner(many)),
            "driver_one": await enter(driver_runner(one)),
            "many": await enter(session_runner(many)),
            "wait": await enter(session_runner(many, waiter=True)),
            "one": await enter(session_runner(one)),
        }
        medians = await interleaved(runners, repeat)
    base, driver, driver_one = medians["deque"], medians["driver"], medians["driver_one"]
    t_many, t_wait, t_one = medians["many"], medians["wait"], medians["one"]

    say(
        f"\nthroughput: one turn of {deltas} text deltas, buffer {BUFFER_SIZE}, "
        f"one subscriber (median of {repeat} interleaved rounds)"
    )
    say(
        f"  baseline deque.append + no-op callback  {base * 1e3:8.1f} ms "
        f"({many.events / base / 1e6:.1f} M/s)"
    )
    say(f"{'':42} {'ms':>8} {'frames/s':>10} {'x deque':>8} {'x driver':>9}")
    rows: list[tuple[str, float]] = []
    for name, t, drv, events in (
        ("FakeDriver frames alone", driver, None, many.events),
        (f"session, {MESSAGE_DELTAS}-delta messages", t_many, driver, many.events),
        ("  same, with a wait() running", t_wait, driver, many.events),
        (f"session, one {deltas}-delta message", t_one, driver_one, one.events),
    ):
        x_drv = f"{t / drv:9.2f}" if drv else f"{'':9}"
        say(f"  {name:40} {t * 1e3:8.1f} {events / t:10.0f} {t / base:8.1f} {x_drv}")
        rows.append((f"events: {name.strip()} / deque", t / base))
    rows.append(
        (
            "events: one long message / many messages (per delta)",
            (t_one / one.events) / (t_many / many.events),
        )
    )

    say(f"\nmemory: tracemalloc peak, EVENT_BUFFER_SIZE={BUFFER_SIZE}, events spread over turns")
    say(f"  {'':28} {'events':>8} {'peak KB':>9} {'end KB':>8}")
    per_turn = 200  # steps per turn
    for label, make in (("text messages", short_messages), ("tool calls", tool_calls)):
        results = []
        for total in (small, big):
            work = make(min(per_turn, max(1, total // 4)))
            turns = max(1, total // work.events)
            peak, end, events = await memory_peak(work, turns)
            results.append(peak)
            say(f"  {label:28} {events:8} {peak / 1e3:9.0f} {end / 1e3:8.0f}")
        ratio = results[1] / results[0]
        say(f"  {'':28} peak ratio {big // 1000}k / {small // 1000}k events: {ratio:.2f}")
        rows.append((f"memory: {label} peak {big // 1000}k / {small // 1000}k events", ratio))
    return Results(rows)


def main(argv: list[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--big-events", type=int, default=100_000)
    parser.add_argument("--small-events", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    return asyncio.run(run(args.deltas, args.big_events, args.small_events, args.repeat))


if __name__ == "__main__":
    main()
