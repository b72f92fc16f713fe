"""Benchmark of the persisted history index against baselines measured in the same run.

    python -m tests.bench.bench_index [--home DIR | --sessions 2000 --mean-kb 425]
                                      [--ccusage PATH] [--json OUT]

On a generated ``~/.claude`` (``index_corpus``) or an existing one (``--home``, a copy of a
real ``~/.claude``), it measures, each next to its baseline:

- first build (in a child process, so its peak RSS is its own): MB/s, and the ratio to
  reading the same bytes in 1 MiB chunks;
- warm first frame: a fresh process opens the index and has every session's row
  (``load`` + ``sessions``); and ``cctui sessions --json`` end to end; baseline: a bare
  ``os.scandir`` + ``stat`` sweep of the transcripts;
- a line appended to a transcript is searchable (watcher running): latency;
- search p50/p95 over a mix of queries; baseline: ``grep -r -l -F`` over the same files;
- usage reports; baselines: a naive parse of every transcript (json.loads each assistant
  line, dedupe, sum per day) and ``ccusage daily --json --offline`` when given; token totals
  per day are compared with ccusage's;
- index size against the transcripts' bytes.

One transcript with a word in the middle of a 200 KB tool result is planted in the home first
(``--home`` too: use a copy). ``--index FILE`` reuses an index built before (of the same home,
e.g. by a previous run with ``--keep``) instead of measuring a first build.

Not part of the pytest run: timings vary by machine and load; ratios less so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
KINDS = {
    "rare word": ["kadenlo", "zanzibarquux"],  # the Zipf tail; the word planted in 200 KB
    "common words": ["session", "widget theme"],
    "phrase": ['"merge the branch"'],
    "prefix": ["migra*", "deplo*"],
    "identifier": ["Session._pump", "src/api/auth.ts", "error-401"],
    "sentence": ["how do I fix the timeout in the stream handler"],  # the looser pass
    "filters": ["role:user config", "project:project-7 retry", "since:30d cache token"],
}
"""The mixed query set, by kind (``zanzibarquux`` is planted in the middle of a 200 KB tool
result: ``tests.history.make_lines.plant``)."""
QUERIES = [q for qs in KINDS.values() for q in qs]


def _timed(fn: Callable[[], object], repeat: int = 5) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def _timed_cpu(fn: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each call (on a shared machine the CPU is the stable figure)."""
    wall, cpu = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return wall, cpu


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def _files(home: Path) -> list[Path]:
    return sorted((home / "projects").rglob("*.jsonl"))


def _read_bytes(files: list[Path]) -> int:
    n = 0
    for f in files:
        with f.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                n += len(chunk)
    return n


def _stat_sweep(home: Path) -> int:
    n = 0
    for d in os.scandir(home / "projects"):
        if d.is_dir():
            for f in os.scandir(d.path):
                if f.name.endswith(".jsonl"):
                    f.stat()
                    n += 1
    return n


def _child(code: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


_BUILD = """
import json, resource, sys, threading, time
from pathlib import Path
from cctui.history import HistoryIndex, prepare
out = {"writer_waited_s": 0.0, "writer_waits": 0}
spans = []  # per chunk handed to the worker: [submitted, done]
# Where each side waits: the writer in ``take`` for a chunk not done yet; the worker whenever
# no chunk is outstanding (between its last result and the next chunk handed to it).
_take, _submit = prepare.Prefetch.take, prepare.Prefetch._submit
def take(self, path):
    entry = self._ahead.get(path)
    t = time.perf_counter()
    got = _take(self, path)
    if entry is not None and got is not None:
        waited = time.perf_counter() - t
        if waited > 1e-3:
            out["writer_waited_s"] += waited
            out["writer_waits"] += 1
    return got
def submit(self, chunk):
    t = time.perf_counter()
    _submit(self, chunk)
    entry = self._ahead.get(chunk[0][0]) if chunk else None
    if entry is not None:
        span = [t, None]
        spans.append(span)
        entry[0].add_done_callback(lambda f, span=span: span.__setitem__(1, time.perf_counter()))
prepare.Prefetch.take, prepare.Prefetch._submit = take, submit
ix = HistoryIndex(Path(sys.argv[1]), index_file=Path(sys.argv[2]))
def build():
    # The TUI's steps (``HistoryIndex.build_steps``): 0.5 s, then 2 s each. A step ends in a
    # commit and its FTS segment, so shorter steps are slower (more, smaller segments).
    t = time.perf_counter()
    c = time.thread_time()
    plan = ix.plan()
    out["bytes"] = plan.bytes_total
    budget = 0.5
    while plan.jobs or plan.gone:
        ix.step(plan, seconds=budget)
        budget = 2.0
        out.setdefault("first_step", time.perf_counter() - t)
    out["seconds"] = time.perf_counter() - t
    out["writer_thread_cpu_s"] = time.thread_time() - c
# The build runs in a worker thread, as under the TUI; the main thread stands for the event
# loop: how late does a 10 ms timer fire while the build runs (GIL contention)?
worker = threading.Thread(target=build)
worker.start()
late = []
while worker.is_alive():
    t = time.perf_counter()
    time.sleep(0.01)
    late.append(time.perf_counter() - t - 0.01)
late.sort()
ix.close()
busy, prev = 0.0, 0.0
for start, done in spans:
    if done is not None:
        busy += max(0.0, done - max(start, prev))
        prev = max(prev, done)
out["worker_idle_s"] = (out["seconds"] - busy) if spans else None
ru = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the build's worker process
print(json.dumps(out | {"cpu_s": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024,
                        "worker_cpu_s": kids.ru_utime + kids.ru_stime,
                        "worker_rss_mb": kids.ru_maxrss / 1024,
                        "sessions": len(ix.sessions()),
                        "loop_late_p99_ms": late[int(len(late) * 0.99)] * 1e3,
                        "loop_late_max_ms": late[-1] * 1e3}))
"""

_FRAME = """
import json, sys, time
t0 = time.perf_counter()
c0 = time.process_time()
from pathlib import Path
from cctui.history import HistoryIndex
t1 = time.perf_counter()
ix = HistoryIndex(Path(sys.argv[1]), index_file=Path(sys.argv[2]))
c1 = time.process_time()
ix.load()
rows = ix.sessions()
t2 = time.perf_counter()
c2 = time.process_time()
plan = ix.plan()
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "load_cpu": c2 - c1, "rows": len(rows),
                  "sweep": t3 - t2,
                  "changed": len(plan.jobs)}))
"""


def _naive_usage(files: list[Path]) -> dict[str, list[int]]:
    """Parse every transcript, keep each reply once, sum tokens per local day."""
    seen: dict[tuple[str, str], tuple[str, list[int]]] = {}
    for f in files:
        with f.open("rb") as fh:
            for line in fh:
                if b'"type":"assistant"' not in line:
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                m = e.get("message") or {}
                u = m.get("usage")
                if not isinstance(u, dict) or "id" not in m:
                    continue
                day = (
                    datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00"))
                    .astimezone()
                    .strftime("%Y-%m-%d")
                )
                toks = [
                    u.get("input_tokens", 0),
                    u.get("output_tokens", 0),
                    u.get("cache_creation_input_tokens", 0),
                    u.get("cache_read_input_tokens", 0),
                ]
                key = (m["id"], e.get("requestId") or "")
                old = seen.get(key)
                if old is None or sum(toks) > sum(old[1]):
                    seen[key] = (day, toks)
    days: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for day, toks in seen.values():
        d = days[day]
        for i in range(4):
            d[i] += toks[i]
    return dict(days)


async def _append_latency(index: Any, target: Path, rounds: int = 5) -> list[float]:
    from tests.history import make_lines as mk

    stop = asyncio.Event()
    changes = index.watch(stop)
    await anext(changes)

    async def drain() -> None:
        async for _ in changes:
            pass

    task = asyncio.create_task(drain())
    await asyncio.sleep(1.5)  # the OS watch is up
    out = []
    for n in range(rounds):
        word = f"appendprobe{n}x{os.getpid()}"
        start = time.perf_counter()
        mk.append(target, mk.user(f"{word} appended", target.stem))
        while not index.search(word).hits:
            await asyncio.sleep(0.01)
            if time.perf_counter() - start > 10:
                break
        out.append(time.perf_counter() - start)
        await asyncio.sleep(0.3)
    stop.set()
    await task
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="an existing ~/.claude (else one is generated)")
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--mean-kb", type=float, default=425)
    parser.add_argument("--ccusage", help="a ccusage binary, for the usage baseline and equality")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the generated tree")
    parser.add_argument("--index", type=Path, help="an index file of this home, built before")
    parser.add_argument(
        "--no-naive", action="store_true", help="skip the naive usage parse (minutes at 20,000)"
    )
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="cctui-bench-index-"))
    figures: dict[str, Any] = {}
    try:
        home = args.home
        if home is None:
            from tests.bench.index_corpus import generate

            c = generate(tmp / "claude", args.sessions, mean_kb=args.mean_kb)
            home = c.home
            print(
                f"corpus: {c.transcripts} transcripts + {c.subagents} subagent files, "
                f"{c.bytes / 1e6:,.0f} MB, generated in {c.seconds:.0f} s"
            )
        from tests.history import make_lines as mk

        mk.plant(home)
        files = _files(home)
        index_file = args.index or tmp / "cache" / "index.sqlite"
        read_s = min(_timed(lambda: _read_bytes(files), repeat=2))
        tbytes = sum(f.stat().st_size for f in files)
        figures["transcripts"] = {"files": len(files), "mb": tbytes / 1e6}
        print(f"transcripts: {len(files):,} files, {tbytes / 1e6:,.0f} MB; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip

        if args.index is None:
            b = _child(_BUILD, str(home), str(index_file))
            figures["build"] = b | {
                "mb_s": b["bytes"] / 1e6 / b["seconds"],
                "read_bytes_s": read_s,
                "x_read": b["seconds"] / read_s,
                "cpu_mb_s": b["bytes"] / 1e6 / b["cpu_s"],
                "both_cpu_mb_s": b["bytes"] / 1e6 / (b["cpu_s"] + b["worker_cpu_s"]),
            }
            print(
                f"\nfirst build: {b['bytes'] / 1e6:,.0f} MB in {b['seconds']:.1f} s = "
                f"{figures['build']['mb_s']:.1f} MB/s ({figures['build']['x_read']:.1f} x reading "
                f"the bytes, {read_s:.2f} s); first step {b['first_step']:.2f} s; "
                f"peak RSS {b['rss_mb']:.0f} MB; {b['sessions']} sessions; a 10 ms timer on "
                f"the main thread fired late by p99 {b['loop_late_p99_ms']:.0f} ms, max "
                f"{b['loop_late_max_ms']:.0f} ms; CPU {b['cpu_s']:.0f} s "
                f"({figures['build']['cpu_mb_s']:.1f} MB per CPU second of the writer's "
                f"process) + the worker's {b['worker_cpu_s']:.0f} s (peak RSS "
                f"{b['worker_rss_mb']:.0f} MB): {figures['build']['both_cpu_mb_s']:.1f} MB per "
                f"CPU second of both; load average {os.getloadavg()[0]:.1f}"
            )

        sweep = statistics.median(_timed(lambda: _stat_sweep(home), repeat=5))
        frames = [_child(_FRAME, str(home), str(index_file)) for _ in range(5)]
        load = statistics.median(f["load"] for f in frames)
        env = dict(
            os.environ,
            CLAUDE_CONFIG_DIR=str(home),
            XDG_CACHE_HOME=str(tmp / "xdg"),
            XDG_STATE_HOME=str(tmp / "state"),
        )
        (tmp / "xdg" / "cctui").mkdir(parents=True)
        for suffix in ("", "-wal"):
            if Path(f"{index_file}{suffix}").exists():
                shutil.copy(
                    f"{index_file}{suffix}", tmp / "xdg" / "cctui" / f"index.sqlite{suffix}"
                )
        cli = [sys.executable, "-m", "cctui", "sessions", "--json"]

        def run_cli(*extra: str, argv: list[str] = cli) -> None:
            subprocess.run([*argv, *extra], env=env, cwd=REPO, capture_output=True, check=True)

        def cli_cpu(*extra: str, argv: list[str] = cli) -> float:
            """Median CPU seconds of the command, start-up included (its own process)."""
            out = []
            for _ in range(3):
                c = _child_cpu()
                run_cli(*extra, argv=argv)
                out.append(_child_cpu() - c)
            return statistics.median(out)

        run_cli()  # the first run sweeps the home into the copied index
        cli_s = statistics.median(_timed(run_cli, repeat=3))
        page_s = statistics.median(_timed(lambda: run_cli("--limit", "50"), repeat=3))
        usage_cli = [sys.executable, "-m", "cctui", "usage", "session"]
        cli_cpu_s = {
            "sessions_all": cli_cpu(),
            "sessions_page": cli_cpu("--limit", "50"),
            "usage_session": cli_cpu(argv=usage_cli),
            "usage_daily": cli_cpu(argv=usage_cli[:-1]),
        }
        figures["first_frame"] = {
            "load_s": load,
            "load_cpu_s": statistics.median(f["load_cpu"] for f in frames),
            "import_s": statistics.median(f["import"] for f in frames),
            "rows": frames[0]["rows"],
            "sweep_after_s": statistics.median(f["sweep"] for f in frames),
            "stat_sweep_s": sweep,
            "cli_sessions_json_s": cli_s,
            "cli_sessions_page_s": page_s,
            "cli_cpu_s": cli_cpu_s,
        }
        print(
            f"warm first frame: index load + every row {load * 1e3:.0f} ms "
            f"(CPU {figures['first_frame']['load_cpu_s'] * 1e3:.0f} ms) for "
            f"{frames[0]['rows']} sessions ({load / sweep:.1f} x a bare stat sweep of "
            f"{sweep * 1e3:.0f} ms); the sweep that follows "
            f"{figures['first_frame']['sweep_after_s'] * 1e3:.0f} ms; "
            f"`cctui sessions --json` every row {cli_s:.2f} s, `--limit 50` {page_s:.2f} s, "
            "end to end"
        )
        print(
            "CPU, start-up included: `cctui sessions --json` every row "
            f"{cli_cpu_s['sessions_all']:.2f} s, `--limit 50` {cli_cpu_s['sessions_page']:.2f} s; "
            f"`cctui usage session` {cli_cpu_s['usage_session']:.2f} s, `usage` (daily) "
            f"{cli_cpu_s['usage_daily']:.2f} s"
        )

        from cctui.history import HistoryIndex

        index = HistoryIndex(home, index_file=index_file)
        index.refresh()  # the planted transcript, when the index was built before (--index)
        lat: list[float] = []
        cpu0 = time.process_time()
        for q in QUERIES:
            index.search(q)  # warm
            lat += _timed(lambda q=q: index.search(q), repeat=10)  # type: ignore[misc]
        search_cpu = (time.process_time() - cpu0) / (11 * len(QUERIES))
        per_query = {
            q: statistics.median(_timed(lambda q=q: index.search(q), repeat=5))  # type: ignore[misc]
            for q in QUERIES
        }
        hits = {q: index.search(q).total for q in QUERIES}
        grep_s = []
        for word in ("kadenlo", "Session._pump", "error-401"):
            grep_s += _timed(
                lambda w=word: subprocess.run(  # type: ignore[misc]
                    ["grep", "-r", "-l", "-F", w, str(home / "projects")], capture_output=True
                ),
                repeat=2,
            )
        figures["search"] = {
            "p50_ms": _p(lat, 0.5) * 1e3,
            "p95_ms": _p(lat, 0.95) * 1e3,
            "mean_cpu_ms": search_cpu * 1e3,
            "load_avg": os.getloadavg()[0],
            "grep_median_s": statistics.median(grep_s),
            "per_query_ms": {q: t * 1e3 for q, t in per_query.items()},
            "sessions_found": hits,
        }
        print(
            f"search (load average {os.getloadavg()[0]:.0f}): mean CPU "
            f"{figures['search']['mean_cpu_ms']:.1f} ms; wall p50 "
            f"{figures['search']['p50_ms']:.1f} ms, p95 "
            f"{figures['search']['p95_ms']:.1f} ms over {len(QUERIES)} queries; grep -r "
            f"{figures['search']['grep_median_s']:.2f} s "
            f"({figures['search']['grep_median_s'] * 1e3 / figures['search']['p95_ms']:.0f} x p95)"
        )
        kinds = {}
        all_cpu: list[float] = []
        for kind, qs in KINDS.items():
            times: list[float] = []
            cpus: list[float] = []
            for q in qs:
                w, cpu_s = _timed_cpu(lambda q=q: index.search(q), repeat=10)  # type: ignore[misc]
                times += w
                cpus += cpu_s
            all_cpu += cpus
            kinds[kind] = {
                "p50_ms": _p(times, 0.5) * 1e3, "p95_ms": _p(times, 0.95) * 1e3,
                "cpu_p50_ms": _p(cpus, 0.5) * 1e3, "cpu_p95_ms": _p(cpus, 0.95) * 1e3,
            }  # fmt: skip
            print(f"  {kind:13} wall p50 {kinds[kind]['p50_ms']:6.1f} ms  p95 "
                  f"{kinds[kind]['p95_ms']:6.1f} ms; CPU p50 {kinds[kind]['cpu_p50_ms']:5.1f} ms "
                  f"p95 {kinds[kind]['cpu_p95_ms']:5.1f} ms")  # fmt: skip
        figures["search"]["by_kind"] = kinds
        figures["search"]["cpu_p50_ms"] = _p(all_cpu, 0.5) * 1e3
        figures["search"]["cpu_p95_ms"] = _p(all_cpu, 0.95) * 1e3
        print(
            f"  every query: CPU p50 {figures['search']['cpu_p50_ms']:.1f} ms, p95 "
            f"{figures['search']['cpu_p95_ms']:.1f} ms"
        )
        for q in QUERIES:
            print(f"    {per_query[q] * 1e3:7.1f} ms  {hits[q]:5} sessions  {q}")
        planted = index.search("zanzibarquux").hits
        figures["search"]["planted_found"] = bool(planted) and "zanzibarquux" in planted[0].snippet
        print(
            "  the word planted in a 200 KB tool result found:",
            figures["search"]["planted_found"],
        )

        usage_t = {
            p: statistics.median(_timed(lambda p=p: index.usage(p), repeat=5))  # type: ignore[misc]
            for p in ("daily", "weekly", "monthly", "session", "project", "model", "blocks")
        }
        naive_t = 0.0 if args.no_naive else min(_timed(lambda: _naive_usage(files), repeat=1))
        naive = None if args.no_naive else _naive_usage(files)
        ours = {
            r.key: [
                r.tokens.input,
                r.tokens.output,
                r.tokens.cache_write_5m + r.tokens.cache_write_1h,
                r.tokens.cache_read,
            ]
            for r in index.usage("daily").rows
        }
        figures["usage"] = {
            "ms": {p: t * 1e3 for p, t in usage_t.items()},
            "naive_parse_s": naive_t,
            "equal_to_naive": None if naive is None else ours == naive,
        }
        print(
            f"usage: daily {usage_t['daily'] * 1e3:.1f} ms, session "
            f"{usage_t['session'] * 1e3:.1f} ms, blocks {usage_t['blocks'] * 1e3:.1f} ms; "
            + (
                "naive parse skipped (--no-naive)"
                if naive is None
                else f"naive parse {naive_t:.1f} s ({naive_t / usage_t['daily']:.0f} x daily); "
                f"tokens per day equal to the naive dedup: {ours == naive}"
            )
        )
        if args.ccusage:
            cc_env = dict(os.environ, CLAUDE_CONFIG_DIR=str(home))
            cmd = [args.ccusage, "daily", "--json", "--offline"]
            cc_t = min(
                _timed(lambda: subprocess.run(cmd, env=cc_env, capture_output=True), repeat=2)
            )
            cc = json.loads(
                subprocess.run(cmd, env=cc_env, capture_output=True, text=True, check=True).stdout
            )
            theirs = {
                d["date"] if "date" in d else d["period"]: [
                    d["inputTokens"],
                    d["outputTokens"],
                    d["cacheCreationTokens"],
                    d["cacheReadTokens"],
                ]
                for d in cc["daily"]
            }
            diff = {
                k: (ours.get(k), theirs.get(k))
                for k in ours.keys() | theirs.keys()
                if ours.get(k) != theirs.get(k)
            }
            figures["ccusage"] = {
                "daily_s": cc_t,
                "equal": not diff,
                "days": len(theirs),
                "differences": dict(list(diff.items())[:5]),
                "total_cost": cc["totals"].get("totalCost"),
            }
            print(
                f"ccusage daily: {cc_t:.2f} s ({cc_t / usage_t['daily']:.0f} x ours); token "
                f"totals equal on all {len(theirs)} days: {not diff}"
                + (f"; first differences {dict(list(diff.items())[:3])}" if diff else "")
            )

        target = max(files, key=lambda f: f.stat().st_mtime_ns)
        if target.parent.name == "subagents":
            target = next(f for f in files if f.parent.parent == home / "projects")
        lat_append = asyncio.run(_append_latency(index, target))
        figures["append_to_searchable_s"] = lat_append
        print(
            f"append -> searchable (watcher running): median "
            f"{statistics.median(lat_append):.2f} s, max {max(lat_append):.2f} s"
        )

        st = index.stats()
        figures["index"] = {
            "mb": st.index_bytes / 1e6,
            "ratio": st.index_bytes / tbytes,
            "messages": st.messages,
            "replies": st.replies,
        }
        print(
            f"index: {st.index_bytes / 1e6:,.0f} MB = {st.index_bytes / tbytes:.1%} of the "
            f"transcripts; {st.messages:,} messages, {st.replies:,} replies"
        )
        index.close()
        figures["bench_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2, default=str))
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
