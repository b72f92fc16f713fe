"""bench_tui under tmux: the real ``cctui`` in a real terminal against the fake API.

``cctui`` runs in a detached tmux session (temp HOME); ``n`` opens the form, the 50 KB reply
prompt is typed and sent, and ``capture-pane`` is polled until the reply's last line is on
screen; the same prompt through ``claude -p`` in tmux is the baseline. Then ``?`` is pressed
a few times and the time until the help page is on screen is the key-to-screen latency.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

from tests.bench.bench_tui import END, REPLY_MARK, Results, offline

REPO = Path(__file__).resolve().parents[2]


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


async def _until_screen(name: str, needle: str, wait_s: float) -> float | None:
    start = time.perf_counter()
    while time.perf_counter() - start < wait_s:
        if needle in _tmux("capture-pane", "-p", "-t", name):
            return time.perf_counter() - start
        await asyncio.sleep(0.02)
    return None


async def tmux(res: Results) -> None:
    if shutil.which("tmux") is None:
        print("\n  tmux not installed: skipped")
        return
    with offline() as env:
        environ = dict(os.environ)
        bare = f"cctui-bench-bare-{uuid.uuid4().hex[:6]}"
        cmd = f"cd {env.project} && {env.cli} -p '{REPLY_MARK} please' | tail -3; sleep 30"
        start = time.perf_counter()
        subprocess.run(["tmux", "new", "-d", "-s", bare, "-x", "160", "-y", "45", cmd], env=environ)
        bare_s = await _until_screen(bare, "END-OF-REPLY", 120)
        bare_s = None if bare_s is None else time.perf_counter() - start
        _tmux("kill-session", "-t", bare)
        # The bare run's session would be listed (and previewed, its reply's end on screen)
        # before cctui's own session answers: forget it.
        config_dir = Path(os.environ.get("CLAUDE_CONFIG_DIR") or env.home / ".claude")
        for transcript in config_dir.glob("projects/*/*.jsonl"):
            transcript.unlink()
        (config_dir / "history.jsonl").unlink(missing_ok=True)
        name = f"cctui-bench-{uuid.uuid4().hex[:6]}"
        cctui = REPO / ".venv" / "bin" / "cctui"
        subprocess.run(
            [
                "tmux",
                "new",
                "-d",
                "-s",
                name,
                "-x",
                "160",
                "-y",
                "45",
                f"cd {env.project} && {cctui} --port 0",
            ],
            env=environ,
        )
        try:
            await _until_screen(name, "Sessions", 60)
            _tmux("send-keys", "-t", name, "n")
            await _until_screen(name, "New session", 30)
            _tmux("send-keys", "-t", name, "-l", f"{REPLY_MARK} please")
            start = time.perf_counter()
            _tmux("send-keys", "-t", name, "Enter")
            shown = await _until_screen(name, END.split(":")[-1].strip(" ."), 180)
            keys = []
            for _ in range(5):
                t = time.perf_counter()
                _tmux("send-keys", "-t", name, "?")
                if await _until_screen(name, "cctui keys", 30) is not None:
                    keys.append(time.perf_counter() - t)
                _tmux("send-keys", "-t", name, "Escape")
                await asyncio.sleep(0.3)
        finally:
            _tmux("send-keys", "-t", name, "q")
            await asyncio.sleep(2)
            _tmux("kill-session", "-t", name)
    print("\n  under tmux (160x45), real terminal")
    res.add("tmux: bare claude -p, reply printed (s)", f"{bare_s or float('nan'):.2f}", "", None)
    res.add(
        "tmux: cctui, reply end on screen (s)",
        f"{shown or float('nan'):.2f}",
        "",
        shown is not None,
    )
    if keys:
        res.add(
            "tmux: key '?' to screen, max of 5 (ms)",
            f"{max(keys) * 1e3:.0f}",
            "<= 50",
            max(keys) <= 0.05,
        )
    if shown and bare_s:
        res.rows.append(("tui (tmux): reply on screen / bare claude -p", shown / bare_s))
