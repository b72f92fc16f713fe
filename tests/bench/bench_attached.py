"""A window attached to a background owner against cctui in process, in one run (tmux).

    python -m tests.bench.bench_attached [--reps 5] [--skip reply,keys]

Three sides, interleaved (their order rotated every repetition), all against the fake API:

- bare ``claude -p``: launch to its output on screen;
- cctui in process (one HOME): the window that owns its sessions;
- cctui attached (another HOME): ``cctui serve --http`` owns the sessions there, and ``cctui``
  started beside it opens a window attached to it; its keys and its panes reach the owner
  through the owner's MCP tools (``docs/background.md``).

*reply*: a 50 KB markdown reply in ~5,000 deltas, from Enter in the new-session form to the
reply's last line on screen (the bare CLI: launch to its output). Target: each window's end
<= 0.5 s after bare ``claude -p``; reported as lags and as the attached / in-process ratio.
*keys*: ``n`` -> the new-session form on screen, in both windows and in the bare Textual
floor. Target: <= 1.2x the floor's median; reported as ratios, attached / in process too.

The same tmux control client reads both windows, as in ``bench_tui_tmux``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from cctui.owner import find_owner
from tests.bench.bare_floor import FORM_NEEDLE
from tests.bench.bench_tui import REPLY_MARK, Results
from tests.bench.bench_tui_tmux import (
    KEY_REPS,
    REPO,
    TARGET_KEY_MEDIAN,
    TARGET_REPLY_LAG_S,
    Cctui,
    Setup,
    Term,
    _floor,
    _tmux,
    bare_cli,
    cctui_turn,
    close_control,
    setup,
)
from tests.fakes.seed_home import seed_claude_home


def _other_home(s: Setup) -> dict[str, str]:
    """``s``'s cctui environment under a HOME of its own (the attached side's)."""
    home = Path(s.cctui_env["HOME"])
    other = home.parent / "attached-home"
    for sub in (".config", ".local/state", ".local/share", ".cache"):
        (other / sub).mkdir(parents=True, exist_ok=True)
    seed_claude_home(other, s.project)
    return {k: v.replace(str(home), str(other)) for k, v in s.cctui_env.items()}


@contextlib.contextmanager
def background_owner(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``cctui serve --http`` owning the sessions of ``env``'s HOME; stopped afterwards."""
    exe = os.environ.get("CCTUI_BENCH_EXE") or str(REPO / ".venv" / "bin" / "cctui")
    proc = subprocess.Popen(
        [exe, "serve", "--http"],
        env=env | {"CCTUI_HTTP_PORT": "0"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    state = Path(env["XDG_STATE_HOME"]) / "cctui"
    try:
        for _ in range(600):
            owner = find_owner(state)
            if owner is not None and owner.url is not None:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the background owner did not come up")
        yield proc
    finally:
        subprocess.run([exe, "stop"], env=env, capture_output=True, check=False)
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


def attached_window(s: Setup, env: dict[str, str]) -> Cctui:
    return Cctui(Setup(s.project, s.cli, env, s.bare_env))


async def _rotate(r: int, runs: list[Callable[[], Awaitable[None]]]) -> None:
    for i in range(len(runs)):
        await runs[(r + i) % len(runs)]()


async def replies(
    s: Setup, local: Cctui, attached: Cctui, reps: int
) -> tuple[list[float], list[float], list[float]]:
    """Seconds to the reply's end on screen: bare CLI, in process, attached."""
    bare: list[float] = []
    here: list[float] = []
    there: list[float] = []
    for r in range(reps):

        async def b(r: int = r) -> None:
            bare.append(await bare_cli(s, f"{REPLY_MARK}-b{r} please", f"END-OF-REPLY-b{r}"))

        async def h(r: int = r) -> None:
            wall, _ = await cctui_turn(local, f"{REPLY_MARK}-c{r} please", f"END-OF-REPLY-c{r}")
            here.append(wall)

        async def t(r: int = r) -> None:
            wall, _ = await cctui_turn(attached, f"{REPLY_MARK}-a{r} please", f"END-OF-REPLY-a{r}")
            there.append(wall)

        await _rotate(r, [b, h, t])
    return bare, here, there


async def form_keys(
    floor_term: Term, local: Cctui, attached: Cctui, reps: int
) -> tuple[list[float], list[float], list[float]]:
    """``n`` -> form on screen: the bare floor, in process, attached."""
    floor_s: list[float] = []
    here: list[float] = []
    there: list[float] = []

    async def f() -> None:
        start = time.perf_counter()
        floor_term.keys("n")
        if await floor_term.until(FORM_NEEDLE, 30) is not None:
            floor_s.append(time.perf_counter() - start)
        floor_term.keys("Escape")
        await floor_term.until(FORM_NEEDLE, 30, gone=True)

    def window(app: Cctui, into: list[float]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            shown = await app.open_form()
            if shown is not None:
                into.append(shown)
            await app.close_form()

        return run

    await local.to_list()
    await attached.to_list()
    for r in range(reps):
        await _rotate(r, [f, window(local, here), window(attached, there)])
        await asyncio.sleep(0.25)
    return floor_s, here, there


def _s(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}/{max(values):.2f}"


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.0f}/{max(values) * 1e3:.0f}"


async def run(reps: int, skip: frozenset[str]) -> Results:
    res = Results()
    if shutil.which("tmux") is None:
        print("  tmux not installed: skipped")
        return res
    with setup() as s:
        env = _other_home(s)
        with background_owner(env):
            local = Cctui(s)
            attached = attached_window(s, env)
            floor = _floor(s)
            try:
                await local.up()
                await attached.up()
                if await floor.until("New", 60) is None:
                    raise RuntimeError(f"bare floor did not start:\n{floor.screen()}")
                if "reply" not in skip:
                    _report_replies(res, *await replies(s, local, attached, reps))
                if "keys" not in skip:
                    _report_keys(res, *await form_keys(floor, local, attached, max(reps, KEY_REPS)))
            finally:
                attached.quit()
                local.quit()
                floor.kill()
                close_control()
                _tmux("kill-server")
    return res


def _report_replies(res: Results, bare: list[float], here: list[float], there: list[float]) -> None:
    print(f"\n  reply, {len(there)} rotated runs (s)")
    for name, values in (("bare", bare), ("in process", here), ("attached", there)):
        print(f"    {name:<11}{' '.join(f'{v:.2f}' for v in values)}")
    for name, values in (("in process", here), ("attached", there)):
        lags = [w - b for w, b in zip(values, bare, strict=False)]
        worst = max(lags)
        res.add(
            f"reply: {name} - bare claude -p, median/worst (s)",
            f"{statistics.median(lags):.2f}/{worst:.2f}",
            f"<= {TARGET_REPLY_LAG_S}",
            worst <= TARGET_REPLY_LAG_S,
        )
    res.add("reply: bare claude -p median/max (s)", _s(bare), "", None)
    res.add(
        "reply: attached / in process, median",
        f"{statistics.median(there) / statistics.median(here):.2f}x",
        "",
        None,
    )


def _report_keys(res: Results, floor: list[float], here: list[float], there: list[float]) -> None:
    print(f"\n  keys n -> form (ms): floor {' '.join(f'{v * 1e3:.0f}' for v in floor)}")
    print(f"    in process {' '.join(f'{v * 1e3:.0f}' for v in here)}")
    print(f"    attached   {' '.join(f'{v * 1e3:.0f}' for v in there)}")
    if not (floor and here and there):
        res.add("keys: n -> form", "no sample", "", False)
        return
    res.add("keys: bare Textual floor median/max (ms)", _ms(floor), "", None)
    for name, values in (("in process", here), ("attached", there)):
        ratio = statistics.median(values) / statistics.median(floor)
        res.add(
            f"keys: {name} / floor, median",
            f"{ratio:.2f}x",
            f"<= {TARGET_KEY_MEDIAN}x",
            ratio <= TARGET_KEY_MEDIAN,
        )
    res.add(
        "keys: attached / in process, median",
        f"{statistics.median(there) / statistics.median(here):.2f}x",
        "",
        None,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="rotated repetitions of each")
    parser.add_argument("--skip", default="", help="comma-separated: reply,keys")
    args = parser.parse_args(argv)
    skip = frozenset(x.strip() for x in args.skip.split(",") if x.strip())
    res = asyncio.run(run(args.reps, skip))
    print("\n| what | measured | target | |\n|---|---|---|---|")
    for what, measured, against, verdict in res.table:
        print(f"| {what} | {measured} | {against} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
