"""``cctui status``: what the running cctui's sessions need, in one line (tmux's status line).

The TUI keeps ``summary.json`` in its state directory up to date (atomically, when a count
changes): how many sessions wait for you, work, and finished unseen. ``cctui status`` reads
only that file: no history index, no textual, no pydantic, so tmux can run it every few
seconds (``set -g status-right '#(cctui status --tmux)'``). ``cctui`` itself sends ``status``
here before importing anything else (``main``).
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from cctui import paths
from cctui.pids import pid_alive

SUMMARY_FILE = "summary.json"

OFF = "cctui: off"
"""What ``status`` prints when no cctui runs (its file gone, or its process)."""


def summary_json(*, pid: int, waiting: int, working: int, done: int) -> str:
    """The file's text, as the TUI writes it."""
    data = {"pid": pid, "waiting": waiting, "working": working, "done": done}
    return json.dumps(data) + "\n"


def line(data: Mapping[str, object], *, tmux: bool = False) -> str:
    """``◆ 2 waiting  ● 3 working  ◉ 1 done`` (with tmux's colours for ``tmux``)."""
    parts = []
    for key, glyph, colour in (
        ("waiting", "◆", "yellow"),
        ("working", "●", "blue"),
        ("done", "◉", "cyan"),
    ):
        count = data.get(key)
        if not isinstance(count, int) or count <= 0:
            continue
        text = f"{glyph} {count} {key}"
        parts.append(f"#[fg={colour}]{text}#[default]" if tmux and key == "waiting" else text)
    return "  ".join(parts) if parts else "cctui: idle"


def state_dir(env: Mapping[str, str]) -> Path:
    """cctui's state directory as ``load_settings`` finds it: ``STATE_DIR``, the config
    file's ``state_dir``, else ``$XDG_STATE_HOME/cctui`` (read without building Settings)."""
    if env.get("STATE_DIR"):
        return Path(env["STATE_DIR"]).expanduser()
    try:
        with paths.config_file(env).open("rb") as fh:
            configured = tomllib.load(fh).get("state_dir")
    except (OSError, tomllib.TOMLDecodeError):
        configured = None
    if isinstance(configured, str) and configured:
        return Path(configured).expanduser()
    return paths.state_dir(env)


def read(directory: Path) -> dict[str, object] | None:
    """The running cctui's summary, or None when no cctui runs (no file, or its pid is
    gone: a cctui that crashed left it)."""
    try:
        data = json.loads((directory / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    pid = data.get("pid")
    if not isinstance(pid, int) or not pid_alive(pid):
        return None
    return data


def main(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """``cctui status [--tmux] [--json]``."""
    env = os.environ if env is None else env
    words = list(argv)
    unknown = [w for w in words if w not in ("--tmux", "--json")]
    if unknown:
        print(f"cctui status: unknown option {unknown[0]!r} (--tmux, --json)", file=sys.stderr)
        return 2
    data = read(state_dir(env))
    if "--json" in words:
        print(json.dumps(data or {"running": False}))
    elif data is None:
        print(OFF)
    else:
        print(line(data, tmux="--tmux" in words))
    return 0
