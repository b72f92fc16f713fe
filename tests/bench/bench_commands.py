"""The one-shot commands over a large home, in CPU seconds (issue 43).

    python -m tests.bench.bench_commands --home DIR --index FILE [--reps 3] [--old DIR]

Runs ``cctui sessions --limit 50 --json``, ``cctui sessions --json`` (every row) and
``cctui usage session`` over ``--home`` (a Claude Code config directory, e.g. one made by
``tests.bench.index_corpus``), warm: on a copy of ``--index`` (an index of that home already
built), so the command only sweeps. Each figure is the child's user + system CPU time
(``resource.getrusage``), start-up and imports included; the output goes to /dev/null.

``--old DIR``: a checkout of another revision (``git worktree add DIR REV``), run in the same
loop, alternating with this checkout, each on its own copy of the index; its ``cctui`` is
imported from ``DIR`` (``PYTHONPATH``) with this checkout's virtualenv.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench.checkouts import cctui_env, compile_checkout

REPO = Path(__file__).resolve().parents[2]
COMMANDS = {
    "sessions --limit 50 --json": ["sessions", "--limit", "50", "--json"],
    "sessions --json": ["sessions", "--json"],
    "usage session": ["usage", "session"],
}


def _cpu(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = f"import sys; from cctui.entry import main; sys.exit(main({argv!r}))"
    subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench(home: Path, index: Path, reps: int, old: Path | None) -> None:
    sides = {"this": REPO} | ({"old": old.resolve()} if old is not None else {})
    for checkout in sides.values():
        compile_checkout(checkout)
    with tempfile.TemporaryDirectory(prefix="cctui-commands-") as tmp:
        envs: dict[str, dict[str, str]] = {}
        for name, checkout in sides.items():
            cache = Path(tmp) / name
            (cache / "cctui").mkdir(parents=True)
            shutil.copyfile(index, cache / "cctui" / "index.sqlite")
            envs[name] = cctui_env(checkout, home=Path(tmp) / "home", config_dir=home, cache=cache)
            _cpu(COMMANDS["sessions --limit 50 --json"], envs[name], checkout)  # warm up
        times: dict[tuple[str, str], list[float]] = {}
        loads: list[float] = []
        for rep in range(reps):
            order = list(sides.items())
            for label, argv in COMMANDS.items():
                for name, checkout in order if rep % 2 == 0 else reversed(order):
                    times.setdefault((label, name), []).append(_cpu(argv, envs[name], checkout))
                    loads.append(os.getloadavg()[0])
        print(f"{home}: {reps} runs each, load average {min(loads):.1f}-{max(loads):.1f}")
        for (label, name), values in times.items():
            print(
                f"  {label:<28} {name:<5} CPU median {statistics.median(values):.2f} s "
                f"({', '.join(f'{v:.2f}' for v in values)})"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True, help="a Claude Code config dir")
    parser.add_argument("--index", type=Path, required=True, help="its index, built")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--old", type=Path, help="a checkout of the revision to compare with")
    args = parser.parse_args()
    bench(args.home, args.index, args.reps, args.old)


if __name__ == "__main__":
    main()
