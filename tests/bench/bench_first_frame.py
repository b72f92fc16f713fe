"""The TUI's first frame over many past sessions, in CPU seconds (issue 39).

    python -m tests.bench.bench_first_frame [--history 5000] [--reps 3] [--old DIR]

Each run is a new process that starts cctui as ``cctui`` does (the settings, the session
manager, the services with the history index, the app with its MCP server to start after
the first frame), headless at 160x48, and stops at the first frame (``FirstFrame``: the list
on screen with its top rows). It reports the process's CPU time then (imports included;
``time.process_time``, every thread), and what of it came before ``on_mount`` (imports and
building) and ``SessionSource.load_now`` (the index's sessions, history.jsonl, the rows).
CPU first: the machine is shared, and wall time (from the process's spawn to its first
frame) swings with the load; both are printed.

Two cases over one generated home (``bench_tui_tmux.write_past``: a transcript and a prompt
per session): no index yet (a fresh cache directory: the first start on that home), and the
index built (``cctui index`` run once, then every start after the first, as a person's
second start is).

``--old DIR``: a checkout of another revision (``git worktree add DIR REV``) measured in the
same run, alternating with this one, each side with its own cache directory; its ``cctui``
is imported from ``DIR`` (``PYTHONPATH``) with this checkout's virtualenv.

``--child`` is the measured side; not for people.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]


def child() -> None:
    """One start, stopped at the first frame; prints its figures as JSON."""
    import asyncio

    from cctui import cli
    from cctui.config import load_settings
    from cctui.core import SessionManager
    from cctui.history import HistoryIndex
    from cctui.logs import configure_logging
    from cctui.services import Services
    from cctui.tui import gc_pause
    from cctui.tui.app import CctuiApp
    from cctui.tui.messages import FirstFrame

    marks: dict[str, float] = {"imports": time.process_time()}
    settings = load_settings()
    configure_logging(settings.log_file, settings.log_level)
    gc_pause.hold()

    class App(CctuiApp):
        # Textual calls each class's handler in turn (this one, then CctuiApp's): neither
        # calls its parent's, or the app would mount twice.
        def on_first_frame(self, message: FirstFrame) -> None:
            marks["first_frame"] = time.process_time()
            marks["first_frame_at"] = time.time()  # (the parent subtracts its spawn time)
            marks["rows"] = self.main.sessions.total
            self.exit()

    async def run() -> None:
        manager = SessionManager(settings)
        await manager.start(owner=False)
        services = Services.build(settings, manager, history=HistoryIndex.from_settings(settings))
        http = cli._LaterHttp(settings, services)
        marks["built"] = time.process_time()
        app = App(settings, services, hosted=[http])
        marks["app"] = time.process_time()
        load = app.source.load_now

        def timed(*args: Any) -> None:  # called first thing in on_mount
            # (``*args``: a checkout's ``load_now`` may take the first screen's row count)
            marks["mount"] = started = time.process_time()
            load(*args)
            marks["load_now"] = time.process_time() - started

        app.source.load_now = timed  # type: ignore[method-assign,assignment]
        try:
            await app.run_async(headless=True, size=(160, 48))
        finally:
            await http.stop()
            await services.close()
            await manager.shutdown()

    asyncio.run(run())
    print(json.dumps(marks))


def _env(checkout: Path, home: Path, cache: Path) -> dict[str, str]:
    from tests.bench.checkouts import cctui_env  # (not in the child: it runs another checkout)

    return cctui_env(checkout, home=home, config_dir=home / ".claude", cache=cache)


def _start(checkout: Path, home: Path, cache: Path) -> dict[str, float]:
    env = _env(checkout, home, cache)
    spawned = time.time()
    out = subprocess.run(
        [sys.executable, str(HERE), "--child"],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    figures["wall"] = figures.pop("first_frame_at") - spawned
    return figures


def _index(checkout: Path, home: Path, cache: Path) -> None:
    env = _env(checkout, home, cache)
    code = "import sys; from cctui.entry import main; sys.exit(main(['index']))"
    subprocess.run([sys.executable, "-c", code], env=env, cwd=checkout, check=True,
                   capture_output=True)  # fmt: skip


def bench(history: int, reps: int, old: Path | None) -> None:
    from tests.bench.bench_tui_tmux import write_past
    from tests.bench.checkouts import compile_checkout

    sides = {"this": REPO} | ({"old": old.resolve()} if old is not None else {})
    with tempfile.TemporaryDirectory(prefix="cctui-first-frame-") as tmp:
        root = Path(tmp)
        home = root / "home"
        (home / ".claude").mkdir(parents=True)
        write_past(home / ".claude", history, root)
        built = {name: root / f"built-{name}" for name in sides}
        for checkout in sides.values():
            compile_checkout(checkout)
        for name, checkout in sides.items():
            _index(checkout, home, built[name])
            _start(checkout, home, built[name])  # a first start (it may leave caches)
        results: dict[tuple[str, str], list[dict[str, float]]] = {}
        for rep in range(reps):
            for name, checkout in (reversed if rep % 2 else iter)(list(sides.items())):
                fresh = root / f"fresh-{name}-{rep}"
                for case, cache in (("no index yet", fresh), ("index built", built[name])):
                    results.setdefault((case, name), []).append(_start(checkout, home, cache))
        load = os.getloadavg()
        print(f"{history:,} past sessions, {reps} starts each, load average {load[0]:.1f}")
        for (case, name), runs in sorted(results.items()):
            first = [r["first_frame"] for r in runs]
            wall = [r["wall"] for r in runs]
            mount = [r["mount"] for r in runs]
            load_now = [r["load_now"] for r in runs]
            after = [r["first_frame"] - r["mount"] - r["load_now"] for r in runs]
            print(
                f"  {case:<13} {name:<5} first frame CPU median {statistics.median(first):.2f} s "
                f"({', '.join(f'{v:.2f}' for v in first)}); wall median "
                f"{statistics.median(wall):.2f} s ({', '.join(f'{v:.2f}' for v in wall)}); "
                f"imports {statistics.median(r['imports'] for r in runs):.2f} s; before on_mount "
                f"{statistics.median(mount):.2f} s; load_now {statistics.median(load_now):.2f} s;"
                f" after it {statistics.median(after):.2f} s; rows {int(runs[0]['rows'])}"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--history", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--old", type=Path, help="a checkout of the revision to compare with")
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        child()
        return
    started = time.monotonic()
    bench(args.history, args.reps, args.old)
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
