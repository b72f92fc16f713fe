"""A hundred live sessions and five thousand past ones, under tmux (issue 39): the list's keys.

    python -m tests.bench.bench_hundred [--live 100] [--history 5000] [--reps 20] [--size 80x24]

cctui runs in a real terminal (tmux, 160x48 unless ``--size``) over a home with ``--history``
past transcripts (``bench_tui_tmux.write_past``) and ``--live`` sessions on the fake driver
(a third wait for a permission, a third stream a reply for a few seconds and finish unseen, a
third answer at once). The first frame is timed from the tmux window's start to the list on
screen, and to the list counting every past session; the live sessions start after it. Once
the approval modal is put back in the inbox (``esc``, which holds the others), each key is
sent through tmux and timed to the first change on screen (``capture-pane`` every few ms):
``j`` (the commonest key, the baseline), ``]`` and ``}`` (the next session that needs you),
``e`` (archive) and ``/`` (the filter line; ``esc`` after it). Reported as each key's median
and worst against ``j``'s, measured in the same run, interleaved: a ratio, since absolute
times on a shared machine drift.

``--app DIR`` is the side tmux runs (the app itself); not for people.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tests.bench.bench_tui_tmux import write_past

if TYPE_CHECKING:
    from cctui.config import Settings
    from cctui.core import SessionManager

SESSION = "cctui-hundred"
SIZE = (160, 48)


def live_manager(home: Path, live: int) -> tuple[Settings, SessionManager]:
    """cctui's settings over ``home`` and a session manager on the fake driver, for
    ``start_live``'s sessions."""
    from cctui.config import load_settings
    from cctui.core import SessionManager
    from tests.fakes.fake_driver import DEFAULT_SCRIPT, Step, fake_driver_factory, sleep, text

    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    settings = load_settings(
        env=env, config_path=home / "none.toml", overrides={"max_sessions": live + 20}
    )
    script: dict[str, list[Step]] = {
        **DEFAULT_SCRIPT,
        "stream": [text("Working on it. " * 40, chunk=6, delay=0.05), sleep(2), text("done")],
        "*": [text("ok")],
    }
    return settings, SessionManager(settings, driver_factory=fake_driver_factory(script))


async def start_live(manager: SessionManager, home: Path, live: int) -> None:
    """``live`` sessions in seven projects under ``home``: a third wait for a permission, a
    third stream a reply for a few seconds, a third answer at once."""
    from cctui.core import SessionConfig

    project = home / "live"
    for i in range(live):
        prompt = ("please bash", "stream this", "hello")[i % 3]
        cwd = project / f"p{i % 7}"
        cwd.mkdir(parents=True, exist_ok=True)
        await manager.create(f"{prompt} {i}", SessionConfig(cwd=cwd))


def run_app(home: Path, live: int) -> None:
    """The app side: cctui over the fake driver, ``live`` sessions started at mount."""
    from cctui.services import Services
    from cctui.tui.app import CctuiApp

    settings, manager = live_manager(home, live)

    class App(CctuiApp):
        # Textual runs CctuiApp's on_mount too, after this one: calling it here mounted twice.
        async def on_mount(self) -> None:
            await manager.start()
            # After the first frame, as a person would start them: the first frame is cctui's.
            self.call_after_refresh(self.run_worker, start_live(manager, home, live))

    App(settings, Services.build(settings, manager)).run()


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def _screen() -> str:
    return _tmux("capture-pane", "-p", "-t", SESSION)


def _listed(screen: str) -> int | None:
    """How many sessions the list's title counts (None: no list on screen yet)."""
    found = re.search(r"Sessions · ([\d,]+)", screen)
    return int(found.group(1).replace(",", "")) if found else None


async def _changed(before: str, wait_s: float = 5.0) -> float | None:
    started = time.perf_counter()
    while time.perf_counter() - started < wait_s:
        if _screen() != before:
            return time.perf_counter() - started
        await asyncio.sleep(0.003)
    return None


def _cpu(pid: int) -> float:
    """The app's process CPU (user + system) so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _key(key: str) -> float | None:
    before = _screen()
    _tmux("send-keys", "-t", SESSION, key)
    return await _changed(before)


async def bench(live: int, history: int, reps: int, size: tuple[int, int] = SIZE) -> None:
    with tempfile.TemporaryDirectory(prefix="cctui-hundred-") as tmp:
        home = Path(tmp) / "home"
        (home / ".claude").mkdir(parents=True)
        started = time.perf_counter()
        write_past(home / ".claude", history, Path(tmp))
        print(f"{history} past transcripts written in {time.perf_counter() - started:.1f} s")
        command = shlex.join(
            [sys.executable, "-m", "tests.bench.bench_hundred", "--app", tmp, "--live", str(live)]
        )
        env = (
            f"HOME={shlex.quote(str(home))} CLAUDE_CONFIG_DIR={shlex.quote(str(home / '.claude'))}"
        )
        _tmux("kill-session", "-t", SESSION)
        _tmux(
            "new-session", "-d", "-s", SESSION, "-x", str(size[0]), "-y", str(size[1]),
            f"cd {shlex.quote(os.getcwd())} && {env} exec {command}",
        )  # fmt: skip
        launched = time.perf_counter()
        try:
            first = every = None
            for _ in range(6000):
                listed = _listed(_screen())
                if first is None and listed is not None:
                    first = time.perf_counter() - launched
                if listed is not None and listed >= history:
                    every = time.perf_counter() - launched
                    break
                await asyncio.sleep(0.01)
            print(f"first frame (the list on screen): {first:.2f} s; with every past session: "
                  + (f"{every:.2f} s" if every is not None else "not seen"))  # fmt: skip
            # Every live session started (on a loaded machine 8 s was not enough: a run once
            # measured its keys with 13 of the 100 started), then they stream and ask. A
            # permission modal covers the list, and a covered list only catches up when it is
            # on top again, so each modal goes back to the inbox as it comes up: the count in
            # the title is then the list's own.
            started = time.perf_counter()
            for _ in range(360):
                screen = _screen()
                if "Permission" in screen:
                    _tmux("send-keys", "-t", SESSION, "Escape")
                    await asyncio.sleep(0.15)
                    continue
                if (_listed(screen) or 0) >= history + live:
                    break
                await asyncio.sleep(0.5)
            print(f"{live} live sessions listed after {time.perf_counter() - started:.1f} s")
            await asyncio.sleep(5)  # the streams end, the approvals pop
            for _ in range(live):  # the approval modals back to the inbox
                if "Permission" not in _screen():
                    break
                _tmux("send-keys", "-t", SESSION, "Escape")
                await asyncio.sleep(0.15)
            await asyncio.sleep(3)
            print(_screen())
            times: dict[str, list[float]] = {"j": [], "]": [], "}": [], "e": [], "/": []}
            pid = int(_tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip())
            # The app's CPU in the 0.6 s after each `j` (the key, then the preview 0.12 s
            # later), against the same time with no key (streams, the 1 s tick).
            cpu: dict[str, list[float]] = {"j": [], "idle": []}
            for _ in range(reps):
                for key in ("j", "]", "j", "}", "j", "e", "j", "/"):
                    before_cpu = _cpu(pid)
                    took = await _key(key)
                    if took is not None:
                        times[key].append(took)
                    if key == "j":
                        await asyncio.sleep(max(0.0, 0.6 - (took or 0)))
                        cpu["j"].append(_cpu(pid) - before_cpu)
                        before_cpu = _cpu(pid)
                        await asyncio.sleep(0.6)
                        cpu["idle"].append(_cpu(pid) - before_cpu)
                    await asyncio.sleep(0.3)
                    if key == "/":  # esc clears the filter line; wait until it has
                        _tmux("send-keys", "-t", SESSION, "Escape")
                        for _ in range(500):
                            if "filter: words" not in _screen():
                                break
                            await asyncio.sleep(0.01)
                        await asyncio.sleep(0.3)
            base = statistics.median(times["j"])
            for key, values in times.items():
                if not values:
                    print(f"{key:>2}: no change on screen")
                    continue
                med, worst = statistics.median(values), max(values)
                print(
                    f"{key:>2}: median {med * 1000:6.1f} ms  worst {worst * 1000:6.1f} ms  "
                    f"x{med / base:.2f} of j  (n={len(values)})"
                )
            print(
                f"CPU in 0.6 s after j: median {statistics.median(cpu['j']) * 1000:.0f} ms; "
                f"with no key: {statistics.median(cpu['idle']) * 1000:.0f} ms (n={len(cpu['j'])})"
            )
            print(_screen())
        finally:
            _tmux("send-keys", "-t", SESSION, "q")
            await asyncio.sleep(3)
            _tmux("kill-session", "-t", SESSION)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--live", type=int, default=100)
    parser.add_argument("--history", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--size", default="160x48", help="the terminal, WxH")
    parser.add_argument("--app")
    args = parser.parse_args()
    if args.app:
        run_app(Path(args.app) / "home", args.live)
        return
    width, height = (int(n) for n in args.size.split("x"))
    asyncio.run(bench(args.live, args.history, args.reps, (width, height)))


if __name__ == "__main__":
    main()
