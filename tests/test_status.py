"""``cctui status --tmux``: one cheap line from the running cctui's summary file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from cctui import status


def _run(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STATE_DIR": str(state)}
    return subprocess.run(
        [sys.executable, "-m", "cctui", "status", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_status_prints_the_counts_of_a_running_cctui_and_off_without_one(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    assert _run(state, "--tmux").stdout == "cctui: off\n"
    text = status.summary_json(pid=os.getpid(), waiting=2, working=3, done=1)
    (state / status.SUMMARY_FILE).write_text(text)
    done = _run(state, "--tmux")
    assert done.returncode == 0
    assert done.stdout == "#[fg=yellow]◆ 2 waiting#[default]  ● 3 working  ◉ 1 done\n"
    assert _run(state).stdout == "◆ 2 waiting  ● 3 working  ◉ 1 done\n"
    assert json.loads(_run(state, "--json").stdout)["working"] == 3
    # A cctui that died left its file: it is off, not "2 waiting" forever.
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    gone = status.summary_json(pid=int(dead.stdout), waiting=2, working=0, done=0)
    (state / status.SUMMARY_FILE).write_text(gone)
    assert _run(state, "--tmux").stdout == "cctui: off\n"
    assert _run(state, "--bogus").returncode == 2


def test_status_imports_neither_textual_nor_the_index_nor_pydantic(tmp_path: Path) -> None:
    code = (
        "import sys; from cctui.entry import main; main(['status', '--tmux']); "
        "heavy = [m for m in ('textual', 'pydantic', 'cctui.history', 'cctui.cli', "
        "'cctui.config') if m in sys.modules]; print(heavy)"
    )
    env = {**os.environ, "STATE_DIR": str(tmp_path)}
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    took = time.perf_counter() - started
    assert out.stdout.splitlines() == ["cctui: off", "[]"]
    print(f"cctui status: {took * 1000:.0f} ms")  # measured, not asserted (a loaded machine)
