"""What one `j` costs at a hundred live sessions, in process (issue 39): CPU, layouts and
compositor passes in the 0.6 s after the key, against the same time with no key.

    python -m tests.bench.profile_j [--live 100] [--keys 20] [--by-widget] [--profile out.pstats]

``--by-widget``: the time and lines each widget class drew per key; ``--profile``: cProfile
of the keys' windows. Every eighth key is ``k``, so the cursor stays among the live rows.

cctui runs under ``run_test`` at 160x48 over the fake driver (a third of the sessions wait
for a permission, a third stream a reply, a third answer at once), like ``bench_hundred``
but without tmux or past transcripts: the counts (layouts, compositor passes, widgets
mounted) do not depend on the machine's load, the CPU does.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

TIMES: dict[str, float] = {}
"""CPU seconds drawing each widget class's lines, and ``#lines NAME`` the lines drawn
(``--by-widget``)."""


def _time_renders() -> None:
    from textual.widget import Widget

    original = Widget.render_lines

    def timed(self: Any, crop: Any) -> Any:
        start = time.process_time()
        try:
            return original(self, crop)
        finally:
            name = type(self).__name__
            TIMES[name] = TIMES.get(name, 0.0) + time.process_time() - start
            TIMES["#lines " + name] = TIMES.get("#lines " + name, 0.0) + crop.height

    Widget.render_lines = timed  # type: ignore[method-assign]


def _count(counter: Counter[str], owner: Any, name: str) -> None:
    original = getattr(owner, name)

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        counter[name] += 1
        return original(self, *args, **kwargs)

    setattr(owner, name, counted)


async def run(live: int, keys: int, profile: str | None, by_widget: bool = False) -> None:
    from textual.screen import Screen
    from textual.widget import Widget

    from cctui.services import Services
    from cctui.tui.app import CctuiApp
    from cctui.tui.screens.main import MainScreen
    from tests.bench.bench_hundred import live_manager, start_live

    counts: Counter[str] = Counter()
    if by_widget:
        _time_renders()
    _count(counts, Screen, "_refresh_layout")
    _count(counts, Screen, "_compositor_refresh")
    _count(counts, Widget, "_on_mount")

    with tempfile.TemporaryDirectory(prefix="cctui-profile-j-") as tmp:
        home = Path(tmp) / "home"
        (home / ".claude").mkdir(parents=True)
        settings, manager = live_manager(home, live)
        await manager.start()
        app = CctuiApp(settings, Services.build(settings, manager))
        async with app.run_test(size=(160, 48)) as pilot:
            await start_live(manager, home, live)
            await pilot.pause(6)  # the streams end, the approvals pop
            for _ in range(live):
                if isinstance(app.screen, MainScreen):
                    break
                await pilot.press("escape")
                await pilot.pause(0.05)
            await pilot.pause(2)
            app.main.sessions.focus()
            await pilot.pause(0.5)
            cpu: dict[str, list[float]] = {"j": [], "idle": []}
            per_key: dict[str, list[int]] = {}
            profiler = cProfile.Profile() if profile else None
            TIMES.clear()
            for n in range(keys):
                counts.clear()
                start = time.process_time()
                if profiler:
                    profiler.enable()
                await pilot.press("j" if n % 8 != 7 else "k")
                await pilot.pause(0.6)
                if profiler:
                    profiler.disable()
                cpu["j"].append(time.process_time() - start)
                for name, value in counts.items():
                    per_key.setdefault(name, []).append(value)
                idle_times = dict(TIMES)
                start = time.process_time()
                await pilot.pause(0.6)
                cpu["idle"].append(time.process_time() - start)
                TIMES.clear()
                TIMES.update(idle_times)
            print(
                f"CPU in 0.6 s after a key: median {statistics.median(cpu['j']) * 1000:.0f} ms"
                f" (min {min(cpu['j']) * 1000:.0f}); with no key:"
                f" {statistics.median(cpu['idle']) * 1000:.0f} ms  (n={keys})"
            )
            for name, values in sorted(per_key.items()):
                print(f"  {name}: {statistics.mean(values):.1f} per key")
            for drawn, spent in sorted(TIMES.items(), key=lambda kv: -kv[1]):
                if not drawn.startswith("#"):
                    lines = TIMES["#lines " + drawn] / keys
                    print(
                        f"  draw {drawn}: {spent / keys * 1000:.1f} ms, {lines:.0f} lines per key"
                    )
            if profiler and profile:
                profiler.dump_stats(profile)
        await manager.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--live", type=int, default=100)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--profile")
    parser.add_argument("--by-widget", action="store_true")
    args = parser.parse_args()
    asyncio.run(run(args.live, args.keys, args.profile, args.by_widget))


if __name__ == "__main__":
    main()
