"""Benchmark of the history index, printed as ratios against baselines from the same run.

    python -m tests.bench.bench_history [--sessions 500] [--big-mb 200] [--history-lines 20000]

Builds a fake ``~/.claude`` in a temp dir: ``--sessions`` transcripts (copies of the real
samples) across 25 project directories, one big transcript of ``--big-mb`` MB of real lines,
and a ``history.jsonl``. Baselines: one bare ``os.scandir`` + ``stat`` sweep of the transcripts
(the least any listing must do) and claude-agent-sdk's ``list_sessions()`` (stat + head/tail of
every file, no cache). Not part of the pytest run: timings vary by machine; ratios mostly don't.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "history" / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("transcript-*.jsonl"))


def _timed(fn: Callable[[], object], repeat: int = 5) -> float:
    """Median wall time of ``fn`` over ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _build_tree(home: Path, sessions: int, big_mb: int, history_lines: int) -> Path:
    projects = home / "projects"
    samples = [p.read_bytes() for p in SAMPLE_FILES]
    for i in range(sessions):
        d = projects / f"-work-project-{i % 25}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{uuid.uuid4()}.jsonl").write_bytes(samples[i % len(samples)])
    big = projects / "-work-big" / f"{uuid.uuid4()}.jsonl"
    big.parent.mkdir(parents=True)
    lines = samples[0].splitlines(keepends=True)
    head, body = b"".join(lines[:12]), b"".join(lines[12:])
    with big.open("wb") as fh:
        fh.write(head)
        written = len(head)
        while written < big_mb * 1_000_000:
            fh.write(body)
            written += len(body)
    with (home / "history.jsonl").open("w") as fh:
        for n in range(history_lines):
            fh.write(
                json.dumps(
                    {
                        "display": f"prompt {n}",
                        "pastedContents": {},
                        "timestamp": 1795332222333 + n,
                        "project": "/work/project-1",
                        "sessionId": str(uuid.UUID(int=n % 400)),
                    }
                )
                + "\n"
            )
    return big


def _stat_sweep(projects: Path) -> int:
    n = 0
    for d in os.scandir(projects):
        for f in os.scandir(d.path):
            if f.name.endswith(".jsonl"):
                f.stat()
                n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--big-mb", type=int, default=200)
    parser.add_argument("--history-lines", type=int, default=20_000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cctui-bench-") as tmp:
        home = Path(tmp) / "claude"
        t0 = time.perf_counter()
        big = _build_tree(home, args.sessions, args.big_mb, args.history_lines)
        print(
            f"tree: {args.sessions + 1} transcripts (one of {big.stat().st_size / 1e6:.0f} MB), "
            f"{args.history_lines} history lines, built in {time.perf_counter() - t0:.1f}s"
        )

        # The SDK reads CLAUDE_CONFIG_DIR from the environment; the index takes it as an argument.
        os.environ["CLAUDE_CONFIG_DIR"] = str(home)
        from claude_agent_sdk import list_sessions

        from cctui.history import HistoryIndex, read_transcript
        from cctui.history.prompts import HistoryFileReader

        sweep = _timed(lambda: _stat_sweep(home / "projects"))
        sdk_list = _timed(list_sessions, repeat=3)

        def cold() -> HistoryIndex:
            index = HistoryIndex(home)
            index.refresh()
            return index

        cold_t = _timed(cold, repeat=3)
        hist_only_t = _timed(lambda: HistoryFileReader(home / "history.jsonl").read_new(), repeat=3)
        index = cold()
        warm_t = _timed(index.refresh)

        extra = b'{"type":"last-prompt","lastPrompt":"appended","sessionId":"x"}\n'

        def append_and_refresh() -> None:
            with big.open("ab") as fh:
                fh.write(extra)
            index.refresh()

        before = index.read_stats.bytes_read
        append_t = _timed(append_and_refresh)
        append_bytes = (index.read_stats.bytes_read - before) // 5

        hist_line = (
            json.dumps(
                {
                    "display": "new",
                    "timestamp": 1795400000000,
                    "project": "/work/x",
                    "sessionId": str(uuid.uuid4()),
                }
            )
            + "\n"
        )

        def history_append_and_refresh() -> None:
            with (home / "history.jsonl").open("a") as fh:
                fh.write(hist_line)
            index.refresh()

        hist_before = index.history.bytes_read
        hist_t = _timed(history_append_and_refresh)
        hist_bytes = (index.history.bytes_read - hist_before) // 5

        big_id = big.stem
        page_t = _timed(lambda: read_transcript(home, big_id, offset=0, limit=50), repeat=1)
        page_cached_t = _timed(lambda: read_transcript(home, big_id, offset=50, limit=50))

        print(
            f"\nbaselines: stat sweep {sweep * 1e3:.1f} ms, SDK list_sessions "
            f"{sdk_list * 1e3:.1f} ms\n"
        )
        rows = [
            ("cold index build", cold_t),
            ("  of which history.jsonl alone", hist_only_t),
            ("warm refresh, nothing changed", warm_t),
            ("refresh after 1 append to the big transcript", append_t),
            ("refresh after 1 history.jsonl line", hist_t),
        ]
        print(f"{'':48} {'x stat sweep':>13} {'x SDK list':>11}")
        for name, t in rows:
            print(f"{name:48} {t / sweep:13.2f} {t / sdk_list:11.3f}")
        print(
            f"\nbytes read by the append refresh: {append_bytes} "
            f"(head+tail window of the changed file; file is {big.stat().st_size} bytes)"
        )
        print(f"bytes read by the history refresh: {hist_bytes} (the line is {len(hist_line)})")
        print(
            f"\ntranscript page of the big file: first {page_t / sdk_list:.1f} x SDK list, "
            f"next page (cached) {page_cached_t / sweep:.3f} x stat sweep"
        )


if __name__ == "__main__":
    main()
