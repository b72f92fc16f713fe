"""A first build of the history index over a large home, per stage, in CPU and wall (issue 43).

    python -m tests.bench.bench_build --home DIR [--reps 2] [--old DIR] [--json OUT]

Builds the index of ``--home`` (a Claude Code config directory, e.g. one made by
``tests.bench.index_corpus``; only read, never written) from nothing into a temporary file,
in a child process per build, as the TUI does (``bench_index``'s ``_BUILD``: the TUI's steps
in a thread, a 10 ms timer on the main thread standing for its event loop). Each build
prints the load average at its start and end, its wall time and MB/s, the CPU of the
writer's process and of the worker process that parses files (user + system), each one's
peak RSS, how late the timer fired, and where each side waited: the writer's thread for a
chunk the worker had not finished, the worker with no chunk handed to it.

``--old DIR``: a checkout of another revision (``git worktree add DIR REV``), built in the same
loop, alternating with this checkout; its ``cctui`` is imported from ``DIR`` with this
checkout's virtualenv. On a machine shared with other work the wall time follows the load
(two processes of the build share the two cores with whatever else runs), so compare
revisions within one run and read the CPU columns beside the wall.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.bench_index import _BUILD
from tests.bench.checkouts import compile_checkout

REPO = Path(__file__).resolve().parents[2]


def build(checkout: Path, home: Path, index: Path) -> dict[str, Any]:
    """One first build by ``checkout``'s cctui; its figures."""
    for suffix in ("", "-wal", "-shm", ".prompts"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    load = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, "-c", _BUILD, str(home), str(index)],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    b: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    mb = b["bytes"] / 1e6
    both = b["cpu_s"] + b["worker_cpu_s"]
    return b | {
        "load_start": load,
        "load_end": os.getloadavg()[0],
        "mb": mb,
        "mb_s": mb / b["seconds"],
        "writer_mb_cpu_s": mb / b["cpu_s"],
        "both_mb_cpu_s": mb / both,
        "index_mb": index.stat().st_size / 1e6,
    }


def _waits(b: dict[str, Any]) -> str:
    """Where each side of the build waited (revisions whose bench lacks a figure: '?')."""
    idle = b.get("worker_idle_s")
    return (
        f"writer thread CPU {b.get('writer_thread_cpu_s', 0):.1f} s, waited for the worker "
        f"{b.get('writer_waited_s', 0):.1f} s ({b.get('writer_waits', 0)} times, "
        f"{b.get('writer_waited_s', 0) / b['seconds']:.0%} of the wall); the worker idle "
        + ("?" if idle is None else f"{idle:.1f} s ({idle / b['seconds']:.0%})")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--old", type=Path, help="a checkout of another revision")
    parser.add_argument("--json", type=Path, help="write every build's figures here")
    args = parser.parse_args()
    sides = {"this": REPO} | ({"old": args.old.resolve()} if args.old is not None else {})
    for checkout in sides.values():
        compile_checkout(checkout)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="cctui-build-") as tmp:
        for rep in range(args.reps):
            for name in sides if rep % 2 == 0 else reversed(sides):
                b = build(sides[name], args.home, Path(tmp) / name / "index.sqlite")
                runs.append(b | {"side": name})
                print(
                    f"{name:4} load {b['load_start']:4.1f}-{b['load_end']:4.1f}  "
                    f"wall {b['seconds']:6.1f} s = {b['mb_s']:5.1f} MB/s ({b['mb']:,.0f} MB); "
                    f"CPU writer {b['cpu_s']:6.1f} s ({b['writer_mb_cpu_s']:4.1f} MB/CPU s), "
                    f"worker {b['worker_cpu_s']:5.1f} s, both {b['both_mb_cpu_s']:4.1f} MB/CPU s; "
                    f"RSS {b['rss_mb']:.0f} + {b['worker_rss_mb']:.0f} MB; timer late p99 "
                    f"{b['loop_late_p99_ms']:.0f} ms, max {b['loop_late_max_ms']:.0f} ms; "
                    f"index {b['index_mb']:,.0f} MB; {b['sessions']:,} sessions; "
                    f"{_waits(b)}",
                    flush=True,
                )
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
