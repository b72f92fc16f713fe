"""Benchmark of the TUI at real scale (issue 7), as ratios against the bare CLI or an in-run
baseline, headless (``CctuiApp.run_test``) and once under tmux (``bench_tui_tmux``).

    python -m tests.bench.bench_tui [--skip reply,tools,chatty,past,first,tmux]

- *reply*: the real ``claude`` against the fake API streams a 50 KB markdown reply in 5,000
  deltas. Bare ``claude -p`` (time to exit) vs cctui with the session in the pane: when the
  core has the whole reply (the CLI's final text) and when the pane shows all of it. Target:
  the end of the reply on screen <= 0.5 s after the CLI has it.
- *tools*: one turn with 100 Read calls (one model call each), bare ``claude -p`` vs cctui
  with the session in the pane until its result line is drawn. Target <= 1.2x.
- *chatty*: 10 sessions (fake driver) each streaming about 1,000 deltas/s for 10 s (100
  messages of 100 deltas). Key-to-screen, measured to the next paint: the list cursor
  (``down``/``up``, the commonest key) and ``?`` (help up), idle and while they stream, p95
  target <= 50 ms; ``?`` also against a bare Textual app pushing a one-line modal. Every
  message's text checked in the core and, for the session in the pane, on screen (no event
  lost); the process's peak RSS, target <= 200 MB. ``CCTUI_BENCH_GC=0`` runs it without the
  GC pacer (``cctui.tui.gc_pause``) for comparison.
- *past*: a transcript with 2,000 tool calls opened from the list vs one with 20 (time until
  the pane shows its newest page).
- *first*: first frame, and the list filled, with 2,000 transcripts on disk vs none. Target:
  first frame <= 1 s.
Not part of the pytest run: timings vary by machine; ratios mostly don't.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tests.bench.bench_turns import Offline, patched_environ
from tests.fakes.plugin import find_claude, offline_env
from tests.fakes.seed_home import seed_claude_home

REPO = Path(__file__).resolve().parents[2]
SIZE = (130, 40)
REPLY_MARK = "BENCH-REPLY"
END = "That is the whole reply: END-OF-REPLY."
"""The last line of ``reply_markdown()`` (see ``end_line``)."""
DELTAS = 5_000
TOOLS = 100


def end_line(tag: str = "") -> str:
    """The reply's last line (``tag`` tells one run's from another's)."""
    return f"That is the whole reply: END-OF-REPLY{tag}."


def reply_markdown(kb: int = 50, tag: str = "") -> str:
    """About ``kb`` KB of what a long answer looks like: headings, prose, lists, code."""
    parts: list[str] = []
    size, i = 0, 0
    while size < kb * 1000:
        section = (
            f"## Step {i}: looking at `module_{i}.py`\n\n"
            f"The function `handle_{i}` reads the **config** and passes it on; nothing here "
            f"touches the network, so the change is local to this file and its tests.\n\n"
            f"- keep `handle_{i}` pure\n- move the parsing into `parse_{i}`\n\n"
            f"```python\ndef parse_{i}(raw: str) -> dict[str, int]:\n"
            f"    return {{k: int(v) for k, v in (p.split('=') for p in raw.split(','))}}\n"
            f"```\n\n"
        )
        parts.append(section)
        size += len(section)
        i += 1
    return "".join(parts) + end_line(tag)


STREAM_MARK = "BENCH-STREAM"
"""A prompt with this gets the same 50 KB reply at a reading pace: ``STREAM_S`` seconds."""
STREAM_S = 60.0
TOOLS_MARK = "BENCH-TOOLS"
"""A prompt with this makes ``TOOLS`` Read calls (of the project's ``f<i>.txt``), one per
model call, then says ``TOOLS-DONE`` (and the prompt's tag)."""
_TAG = re.compile(r"BENCH-\w+?(-\w+)?\b")


def tag_of(prompt: str) -> str:
    """``BENCH-REPLY-r3 please`` -> ``-r3``: what makes each run's last line its own."""
    match = _TAG.search(prompt)
    return (match.group(1) or "") if match else ""


def serve_fake() -> int:
    """Child mode: the fake API with the long reply, the slow stream and the tool-call turn
    as rules (keeps its threads off our GIL)."""
    from tests.fakes.anthropic_api import FakeAnthropicAPI, Reply, text, tool_use
    from tests.fakes.api_request import ParsedRequest

    chunk = max(1, len(reply_markdown()) // DELTAS)

    def reply(req: ParsedRequest) -> Reply:
        return Reply(content=[text(reply_markdown(tag=tag_of(req.prompt)))], chunk_size=chunk)

    def stream(req: ParsedRequest) -> Reply:
        return Reply(
            content=[text(reply_markdown(tag=tag_of(req.prompt)))],
            chunk_size=chunk,
            chunk_delay=STREAM_S / DELTAS,
        )

    def tools(req: ParsedRequest) -> Reply:
        step = len(req.tool_uses_since_prompt) if req.is_tool_result else 0
        if step < TOOLS:
            return Reply(content=[tool_use("Read", {"file_path": f"{req.cwd}/f{step}.txt"})])
        return Reply(content=[text(f"Read all {TOOLS}: TOOLS-DONE{tag_of(req.prompt)}.")])

    api = FakeAnthropicAPI().start()
    api.add_rule(contains=REPLY_MARK, kind="main", reply=reply)
    api.add_rule(contains=STREAM_MARK, kind="main", reply=stream)
    api.add_rule(contains=TOOLS_MARK, kind="main", reply=tools)
    print(f"LISTENING {api.port}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        while True:
            time.sleep(3600)
    return 0


@contextlib.contextmanager
def fake_api() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.bench_tui", "--serve-fake"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "LISTENING":
            raise RuntimeError(f"fake API did not start: {line!r}")
        yield f"http://127.0.0.1:{line[1]}", proc
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def offline() -> Iterator[Offline]:
    """The fake API (child) + a seeded temp HOME + a trusted project, in ``os.environ``."""
    cli = find_claude()
    with tempfile.TemporaryDirectory(prefix="cctui-bench-tui-") as tmp, fake_api() as (url, _):
        root = Path(tmp).resolve()
        home, project = root / "home", root / "proj"
        for sub in (".config", ".local/state", ".local/share", ".cache"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        project.mkdir()
        for i in range(TOOLS):
            (project / f"f{i}.txt").write_text(f"file {i}\n")
        seed_claude_home(home, project)
        with patched_environ(offline_env(dict(os.environ), url, home)):
            yield Offline(home, project, root / "state", cli)


def tools_prompt(project: Path) -> str:
    calls = " ".join(
        f'[[tool name=Read input={{"file_path": "{project}/f{i}.txt"}}]]' for i in range(TOOLS)
    )
    return f"Read every file. {calls}"


async def bare_cli(env: Offline, prompt: str) -> float:
    """``claude -p`` on the same prompt: seconds until it exits with the answer printed."""
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        str(env.cli),
        "-p",
        prompt,
        "--allowedTools",
        "Read",
        cwd=env.project,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 300)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"claude -p failed ({proc.returncode}): {out[-300:]!r}")
    return elapsed


async def until(check: Callable[[], bool], wait_s: float, step: float = 0.005) -> bool:
    deadline = time.perf_counter() + wait_s
    while not check():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(step)
    return True


@contextlib.asynccontextmanager
async def app_for(manager: Any, settings: Any) -> AsyncIterator[tuple[Any, Any]]:
    from cctui.services import Services
    from cctui.tui.app import CctuiApp

    app = CctuiApp(
        settings,
        Services.build(settings, manager),
        pace_gc=os.environ.get("CCTUI_BENCH_GC", "1") == "1",
    )
    try:
        async with app.run_test(size=SIZE) as pilot:
            yield app, pilot
    finally:
        await manager.shutdown()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


@dataclass
class Results:
    rows: list[tuple[str, float]] = field(default_factory=list)
    """(name, ratio) for the summary table."""
    table: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(what, measured, baseline or target, verdict) for the README."""

    def add(self, what: str, measured: str, against: str, ok: bool | None) -> None:
        verdict = "" if ok is None else ("met" if ok else "MISSED")
        self.table.append((what, measured, against, verdict))
        print(f"  {what:48} {measured:>16} {against:>22} {verdict}")


async def real_cli_runs(res: Results, *, reply: bool, tools: bool) -> None:
    """The reply and the tool-call run: bare ``claude -p`` vs cctui headless, same prompts."""
    from cctui.config import load_settings
    from cctui.core import AssistantTextEvent, ResultEvent, SessionManager
    from cctui.tui.widgets.transcript import ResultBlock, Transcript

    body = reply_markdown()
    with offline() as env:
        settings = load_settings(env=dict(os.environ), overrides={"default_cwd": env.project})
        manager = SessionManager(settings)
        await manager.start()
        async with app_for(manager, settings) as (app, _pilot):
            config = manager.default_config(allowed_tools=("Read",))
            info = await manager.create("hello", config)
            await manager.wait(info.session_id, 120)
            app.main.open_session(info.session_id)
            transcript = app.main.pane.query_one(Transcript)
            marks: dict[str, float] = {}

            def on_event(event: Any) -> None:
                if event.session_id != info.session_id:
                    return
                if isinstance(event, AssistantTextEvent) and event.text.endswith(END):
                    marks.setdefault("cli_has_it", time.perf_counter())
                if isinstance(event, ResultEvent):
                    marks.setdefault("result", time.perf_counter())

            manager.subscribe(on_event)

            def reply_drawn() -> bool:
                return any(b.text.endswith(END) for b in transcript.blocks[-1:])

            if reply:
                bare = await bare_cli(env, f"{REPLY_MARK} please")
                marks.clear()
                start = time.perf_counter()
                await manager.send(info.session_id, f"{REPLY_MARK} please")
                drawn = await until(reply_drawn, 180)
                end = time.perf_counter()
                lag = end - marks.get("cli_has_it", end)
                print(f"\n  reply {len(body) / 1000:.0f} KB in ~{DELTAS} deltas")
                res.add("reply: bare claude -p (s)", f"{bare:.2f}", "", None)
                res.add("reply: cctui, all on screen (s)", f"{end - start:.2f}", "", drawn)
                res.add(
                    "reply: on screen after the CLI has it (s)", f"{lag:.2f}", "<= 0.5", lag <= 0.5
                )
                res.rows.append(
                    ("tui: 50 KB reply on screen / bare claude -p", (end - start) / bare)
                )
                await manager.wait(info.session_id, 60)
            if tools:
                prompt = tools_prompt(env.project)
                bare = await bare_cli(env, prompt)
                marks.clear()
                before = transcript.children[-1] if transcript.children else None
                start = time.perf_counter()
                await manager.send(info.session_id, prompt)

                def result_drawn() -> bool:
                    # Older output folds away, so count nothing: the newest line is this
                    # turn's result.
                    last = transcript.children[-1] if transcript.children else None
                    return (
                        "result" in marks and isinstance(last, ResultBlock) and last is not before
                    )

                drawn = await until(result_drawn, 300)
                end = time.perf_counter()
                ratio = (end - start) / bare
                print(f"\n  one turn with {TOOLS} Read calls")
                res.add("tools: bare claude -p (s)", f"{bare:.2f}", "", None)
                res.add("tools: cctui, result on screen (s)", f"{end - start:.2f}", "", drawn)
                res.add("tools: cctui / bare", f"{ratio:.2f}x", "<= 1.2x", ratio <= 1.2)
                res.rows.append(("tui: 100 tool calls / bare claude -p", ratio))


def _send_key(app: Any, key: str, char: str | None) -> None:
    """A key through the driver, as a terminal would deliver it."""
    from textual import events

    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def _painted(app: Any) -> None:
    """Until the compositor has drawn what is pending (one refresh after now)."""
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await asyncio.wait_for(done.wait(), 30)


async def press_help(app: Any) -> float:
    """``?`` until the help page is up and painted; ``escape``; the latency."""
    from cctui.tui.screens.help import HelpScreen
    from cctui.tui.screens.main import MainScreen

    start = time.perf_counter()
    _send_key(app, "question_mark", "?")
    ok = await until(
        lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted, 30, 0.001
    )
    await _painted(app)
    latency = time.perf_counter() - start
    _send_key(app, "escape", None)
    await until(lambda: isinstance(app.screen, MainScreen), 30, 0.001)
    await _painted(app)
    return latency if ok else float("inf")


async def press_cursor(app: Any) -> float:
    """``down`` (``up`` on the last row) in the session list until the moved cursor is
    painted."""
    table = app.main.sessions
    before = table.cursor_row
    key = "up" if before >= len(table.shown) - 1 else "down"
    start = time.perf_counter()
    _send_key(app, key, None)
    ok = await until(lambda: table.cursor_row != before, 30, 0.001)
    await _painted(app)
    return time.perf_counter() - start if ok else float("inf")


async def bare_textual_help() -> list[float]:
    """The in-run baseline for ``?``: a bare Textual app (a table, a footer) pushing a
    one-Static modal, measured the same way."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding, BindingType
    from textual.screen import ModalScreen, Screen
    from textual.widgets import DataTable, Footer, Static

    class Modal(ModalScreen[None]):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Close")]

        def compose(self) -> ComposeResult:
            yield Static("help\n" * 20)

    class Bare(App[None]):
        BINDINGS: ClassVar[list[BindingType]] = [
            Binding("question_mark", "push_screen('modal')", "Help")
        ]
        SCREENS: ClassVar[dict[str, Callable[[], Screen[Any]]]] = {"modal": Modal}

        def compose(self) -> ComposeResult:
            table: DataTable[str] = DataTable()
            table.add_columns("status", "project", "title")
            for i in range(20):
                table.add_row(str(i), "proj", "title " * 5)
            yield table
            yield Static("output\n" * 30)
            yield Footer()

    app = Bare()
    latencies = []
    async with app.run_test(size=SIZE):
        for _ in range(10):
            start = time.perf_counter()
            _send_key(app, "question_mark", "?")
            await until(lambda: isinstance(app.screen, Modal) and app.screen.is_mounted, 30, 0.001)
            await _painted(app)
            latencies.append(time.perf_counter() - start)
            _send_key(app, "escape", None)
            await until(
                lambda: isinstance(app.screen, Screen) and not isinstance(app.screen, Modal),
                30,
                0.001,
            )
            await _painted(app)
    return latencies


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def chatty(res: Results, sessions: int = 10, seconds: float = 10.0) -> None:
    """10 fake sessions streaming ~1,000 deltas/s each; keys while they stream vs idle."""
    from cctui.config import load_settings
    from cctui.core import AssistantTextEvent, SessionManager
    from cctui.tui.widgets.transcript import Transcript
    from tests.fakes.fake_driver import fake_driver_factory, text

    messages, chunk = 100, 8
    per_message = int(1000 * seconds / messages)  # deltas per message at 1,000/s
    bodies = [
        f"Message {m}: " + "lorem ipsum " * (per_message * chunk // 12) for m in range(messages)
    ]

    def script(message: str) -> list[Any]:
        if message != "go":
            return [text("Ready.")]
        return [text(b, chunk=chunk, delay=0.001) for b in bodies]

    with tempfile.TemporaryDirectory(prefix="cctui-bench-chatty-") as tmp:
        root = Path(tmp)
        (root / "proj").mkdir()
        settings = load_settings(
            env={"HOME": str(root / "home")},
            config_path=root / "none.toml",
            overrides={
                "default_cwd": root / "proj",
                "max_sessions": sessions + 1,
                "event_buffer_size": 5000,
            },
        )
        manager = SessionManager(settings, driver_factory=fake_driver_factory(script))
        await manager.start()
        async with app_for(manager, settings) as (app, pilot):
            ids = []
            for _ in range(sessions):
                info = await manager.create("hello", manager.default_config())
                ids.append(info.session_id)
            for sid in ids:
                await manager.wait(sid, 10)
            app.main.open_session(ids[0])
            await pilot.pause(0.3)
            idle_keys = [await press_cursor(app) for _ in range(10)]
            idle = [await press_help(app) for _ in range(10)]
            deltas = 0

            def count(event: Any) -> None:
                nonlocal deltas
                if isinstance(event, AssistantTextEvent):
                    deltas += 1

            manager.subscribe(count)
            start = time.perf_counter()
            for sid in ids:
                await manager.send(sid, "go")
            keys: list[float] = []
            streaming: list[float] = []
            peak = rss_mb()
            while any(manager.get(s).status.value != "idle" for s in ids):
                # Mostly moving through the list (the commonest key), now and then the help.
                keys.append(await press_cursor(app))
                if len(keys) % 5 == 0:
                    streaming.append(await press_help(app))
                peak = max(peak, rss_mb())
                await asyncio.sleep(0.3)
                if time.perf_counter() - start > 120:
                    break
            elapsed = time.perf_counter() - start
            app.main.open_session(ids[0])
            await app.settle()
            transcript = app.main.pane.query_one(Transcript)
            shown_texts = [transcript.text_of(m) for m in transcript_ids(manager, ids[0])]
            core_ok = all(core_texts(manager, s) == ["Ready.", *bodies] for s in ids)
            screen_ok = shown_texts[-messages:] == bodies
        gc.collect()  # the app's heap is garbage now: not on the baseline's clock
        bare = await bare_textual_help()
        rate = deltas / elapsed / sessions
        print(
            f"\n  {sessions} sessions x {messages} messages, "
            f"~{rate:.0f} deltas/s each for {elapsed:.1f}s"
        )
        res.add(
            "chatty: list cursor key-to-screen idle p95 (ms)",
            f"{p95(idle_keys) * 1e3:.1f}",
            "",
            None,
        )
        res.add(
            "chatty: list cursor key-to-screen streaming p95 (ms)",
            f"{p95(keys) * 1e3:.1f}",
            "<= 50",
            p95(keys) <= 0.05,
        )
        res.add("chatty: ? (help) bare Textual p95 (ms)", f"{p95(bare) * 1e3:.1f}", "", None)
        res.add("chatty: ? (help) idle p95 (ms)", f"{p95(idle) * 1e3:.1f}", "", None)
        res.add(
            "chatty: ? (help) streaming p95 (ms)",
            f"{p95(streaming) * 1e3:.1f}",
            "<= 50",
            p95(streaming) <= 0.05,
        )
        res.add("chatty: key samples while streaming", f"{len(keys)} + {len(streaming)}", "", None)
        res.add(
            "chatty: no event lost (core and screen)",
            f"{core_ok and screen_ok}",
            "",
            core_ok and screen_ok,
        )
        res.add("chatty: peak RSS, 10 live sessions (MB)", f"{peak:.0f}", "<= 200", peak <= 200)
        res.rows.append(
            ("tui: list key p95 streaming / idle", p95(keys) / max(p95(idle_keys), 1e-3))
        )


def transcript_ids(manager: Any, session_id: str) -> list[str]:
    from cctui.core import AssistantTextEvent

    page = manager.events(session_id, since=0)
    return list(
        dict.fromkeys(e.message_id for e in page.events if isinstance(e, AssistantTextEvent))
    )


def core_texts(manager: Any, session_id: str) -> list[str]:
    from cctui.core import AssistantTextEvent

    page = manager.events(session_id, since=0)
    texts: dict[str, str] = {}
    for e in page.events:
        if isinstance(e, AssistantTextEvent):
            texts[e.message_id] = e.text
    return list(texts.values())


async def run(skip: frozenset[str] = frozenset()) -> Results:
    """Every part not in ``skip``; prints a table as it goes."""
    from tests.bench import bench_tui_disk, bench_tui_tmux

    res = Results()
    print(f"  {'what':48} {'measured':>16} {'target/baseline':>22}")
    if not {"reply", "tools"} <= skip:
        await real_cli_runs(res, reply="reply" not in skip, tools="tools" not in skip)
    if "chatty" not in skip:
        await chatty(res)
    if "past" not in skip:
        await bench_tui_disk.past(res)
    if "first" not in skip:
        await bench_tui_disk.first_frame(res)
    if "tmux" not in skip:
        await bench_tui_tmux.tmux(res)
    print("\n| what | measured | target | |\n|---|---|---|---|")
    for what, measured, against, verdict in res.table:
        print(f"| {what} | {measured} | {against} | {verdict} |")
    return res


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip", default="", help="comma-separated: reply,tools,chatty,past,first,tmux"
    )
    parser.add_argument("--serve-fake", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_fake:
        return serve_fake()
    asyncio.run(run(frozenset(s.strip() for s in args.skip.split(",") if s.strip())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
