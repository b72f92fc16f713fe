"""Run every benchmark with quick defaults and print one table of ratios.

    python -m tests.bench [--skip history,turns,events,tui,projects] [--turns 30]
                          [--files 100000]

Each module prints its own report first; every number in the summary is a ratio against a
baseline measured in the same run (see each module's docstring for what it compares).
``bench_history`` runs in a child process (it sets ``CLAUDE_CONFIG_DIR`` for itself) with
``--sessions 200 --big-mb 50``; its table is read back from its output.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HISTORY_ARGS = ["--sessions", "200", "--big-mb", "50"]
_ROW = re.compile(r"^(?P<name>\S.*?)\s+(?P<a>\d+\.\d+)\s+(?P<b>\d+\.\d+)$")


def history() -> list[tuple[str, float]]:
    """Run bench_history in a child process; its ratio table as rows."""
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench.bench_history", *HISTORY_ARGS],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(out, end="")
    rows: list[tuple[str, float]] = []
    in_table = False
    for line in out.splitlines():
        if "x stat sweep" in line:
            in_table = True
            continue
        if in_table and not line.strip():
            break
        match = _ROW.match(line.strip()) if in_table else None
        if match:
            name = match["name"].strip()
            rows.append((f"history: {name} / stat sweep", float(match["a"])))
            rows.append((f"history: {name} / SDK list_sessions", float(match["b"])))
    return rows


def turns(n: int) -> list[tuple[str, float]]:
    from tests.bench import bench_turns

    results = asyncio.run(bench_turns.run(n, spawns=3, http=True, fake_calls=100))
    return results.ratios()


def events() -> list[tuple[str, float]]:
    from tests.bench import bench_events

    results = asyncio.run(bench_events.run(20_000, 100_000, 1_000))
    return results.rows


def projects(files: int) -> list[tuple[str, float]]:
    from tests.bench import bench_projects

    results = asyncio.run(bench_projects.run(files, repeat=3))
    print("\n".join(results.lines))
    return results.rows


def tui() -> list[tuple[str, float]]:
    from tests.bench import bench_tui

    return asyncio.run(bench_tui.run()).rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip", default="", help="comma-separated: history,turns,events,tui,projects"
    )
    parser.add_argument("--turns", type=int, default=30, help="bench_turns: turns per variant")
    parser.add_argument("--files", type=int, default=100_000, help="bench_projects: files")
    args = parser.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}

    benches: dict[str, Callable[[], list[tuple[str, float]]]] = {
        "history": history,
        "turns": lambda: turns(args.turns),
        "events": events,
        "tui": tui,
        "projects": lambda: projects(args.files),
    }
    summary: list[tuple[str, str, float]] = []
    timings: list[str] = []
    for name, bench in benches.items():
        if name in skip:
            continue
        print(f"\n=== bench_{name} " + "=" * 60)
        start = time.perf_counter()
        summary += [(name, row, ratio) for row, ratio in bench()]
        timings.append(f"{name} {time.perf_counter() - start:.0f}s")

    width = max((len(row) for _, row, _ in summary), default=10)
    print("\n=== summary: ratios against in-run baselines " + "=" * 34)
    for _, row, ratio in summary:
        print(f"  {row:{width}}  {ratio:9.3f}")
    print(f"\n({', '.join(timings)})")


if __name__ == "__main__":
    main()
