"""cctui in a real terminal (tmux) over the real claude CLI and the fake Anthropic API.

Opens a session with ``n``, approves its Write with ``y`` in the modal, and sees the turn
complete: the file exists and the pane shows the result. Then ``q`` ends cctui and its claude
child. Runs in CI (tmux is a CI prerequisite, see .ci/run).
"""

from __future__ import annotations

import os
import shlex
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from cctui.owner import find_owner
from tests.fakes.procs import end_all_under
from tests.helpers import TmuxWindow

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

WIDTH, HEIGHT = 140, 40


class Tmux(TmuxWindow):
    """One private tmux server running one window."""

    def __init__(self, socket: str) -> None:
        super().__init__(socket, "cctui")

    def alive(self) -> bool:
        return "cctui" in self.run("list-sessions", "-F", "#{session_name}")


@pytest.fixture
def tmux(claude_env: dict[str, str], project_dir: Path, tmp_path: Path) -> Iterator[Tmux]:
    env = dict(
        claude_env,
        CCTUI_HTTP_PORT="0",
        PYTHONPATH=str(Path(__file__).parents[2]),
        TERM="xterm-256color",
    )
    for fixed_size in ("COLUMNS", "LINES"):
        env.pop(fixed_size, None)
    script = tmp_path / "run-cctui.sh"
    exports = [f"export {k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier()]
    # pytest exports COLUMNS/LINES, tmux passes them on, and Textual trusts them over the tty.
    lines = [
        "#!/bin/sh",
        "unset COLUMNS LINES",
        *exports,
        f"cd {shlex.quote(str(project_dir))}",
        f"exec {shlex.quote(sys.executable)} -m cctui",
    ]
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)
    t = Tmux(f"cctui-test-{uuid.uuid4().hex[:8]}")
    t.run("new-session", "-d", "-s", "cctui", "-x", str(WIDTH), "-y", str(HEIGHT), str(script))
    # Without a client attached some tmux builds fall back to 80x24; pin the size.
    t.run("resize-window", "-t", "cctui", "-x", str(WIDTH), "-y", str(HEIGHT))
    try:
        yield t
    finally:
        # Stopped as `cctui stop` would, before its terminal goes: closed first, a window
        # with a live session would carry on in the background (a hang-up keeps sessions).
        home = Path(claude_env["HOME"])
        owner = find_owner(home / ".local" / "state" / "cctui")
        end_all_under(home, owner.pid if owner is not None else None)
        t.run("kill-server")


def test_open_a_session_approve_its_write_with_y_and_see_it_complete(
    tmux: Tmux, project_dir: Path, claude_bin: Path
) -> None:
    tmux.wait_for(lambda s: "No session selected" in s and "MCP http://" in s, "cctui to start")
    tmux.keys("n")
    tmux.wait_for(lambda s: "New session" in s, "the new-session form")
    tmux.keys("[[write path=hello.txt content=hi]]", literal=True)
    tmux.keys("Enter")
    modal = tmux.wait_for(
        lambda s: "Permission" in s and "allow for this session" in s, "the Write permission modal"
    )
    assert "Write" in modal and "hello.txt" in modal
    time.sleep(0.6)  # the modal ignores keys for a moment after it appears
    tmux.keys("y")
    done = tmux.wait_for(lambda s: "turn complete" in s, "the turn to complete")
    assert (project_dir / "hello.txt").read_text() == "hi"
    assert "allowed by you" in done  # answered here: "by tui" read as jargon
    assert "✓ Write" in done
    # After the form the keyboard is on the message line: esc back to the list first.
    tmux.leave_message_line()
    tmux.keys("q")
    deadline = time.monotonic() + 20
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tmux.alive(), "cctui did not exit on q"
    assert not _running_in(project_dir), "a claude child outlived cctui"


def _running_in(directory: Path) -> list[int]:
    """Pids whose working directory is ``directory`` (the claude children cctui started)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if Path(os.readlink(proc / "cwd")) == directory:
                    pids.append(int(proc.name))
            except OSError:
                continue
    return pids


def test_o_takes_a_session_over_in_claude_and_returns_with_the_new_turn(
    tmux: Tmux, project_dir: Path
) -> None:
    """``o``: cctui ends its process (after y), suspends, runs the real ``claude --resume``
    in the same terminal; a turn typed there is in cctui's pane once claude exits."""
    tmux.wait_for(lambda s: "No session selected" in s and "MCP http://" in s, "cctui to start")
    tmux.keys("n")
    tmux.wait_for(lambda s: "New session" in s, "the new-session form")
    tmux.keys("first prompt", literal=True)
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "OK: first prompt" in s and "idle" in s, "the first turn")
    tmux.leave_message_line()
    tmux.keys("o")
    tmux.wait_for(lambda s: "Open in Claude Code?" in s and "ended first" in s, "the question")
    tmux.keys("y")
    # Claude Code's own UI, resumed on this session, in this terminal.
    claude = tmux.wait_for(lambda s: "Claude Code v" in s and "first prompt" in s, "claude")
    assert "Sessions" not in claude  # cctui is suspended, not drawing over it
    assert not _claude_in(project_dir, "stream-json"), "cctui's claude process was not ended"
    assert _claude_in(project_dir, "--resume")
    tmux.keys("second from claude", literal=True)
    time.sleep(0.3)
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "OK: second from claude" in s, "claude's reply")
    tmux.keys("/exit", literal=True)
    time.sleep(0.5)
    tmux.keys("Enter")
    back = tmux.wait_for(
        lambda s: "Sessions · 1" in s and "OK: second from claude" in s, "cctui, with the turn"
    )
    assert "Claude Code v" not in back
    assert "first prompt" in back
    assert not _claude_in(project_dir, "claude"), "claude outlived the take-over"
    tmux.keys("q")
    deadline = time.monotonic() + 20
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tmux.alive(), "cctui did not exit on q"


def test_o_keeps_claudes_words_on_screen_when_it_fails_at_once(
    tmux: Tmux, claude_env: dict[str, str]
) -> None:
    """Issue 39, item 4: in a home Claude Code has not onboarded (no ``.claude.json``)
    ``claude --resume`` tries the network and exits with 1 at once; cctui showed only "it
    exited with 1". Its words stay on the terminal until enter, then cctui is back."""
    home = Path(claude_env["HOME"])
    for seeded in (home / ".claude.json", home / ".claude" / ".claude.json"):
        seeded.unlink()  # before cctui starts any claude: nothing onboarded this home
    tmux.wait_for(lambda s: "No session selected" in s and "MCP http://" in s, "cctui to start")
    tmux.keys("n")
    tmux.wait_for(lambda s: "New session" in s, "the new-session form")
    tmux.keys("first prompt", literal=True)
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "OK: first prompt" in s and "idle" in s, "the first turn")
    tmux.leave_message_line()
    tmux.keys("o")
    tmux.wait_for(lambda s: "Open in Claude Code?" in s, "the question")
    tmux.keys("y")
    held = tmux.wait_for(lambda s: "Press enter to go back to cctui" in s, "claude's exit")
    assert "claude exited with 1" in held
    assert "connect" in held.lower()  # claude's own words, still on screen
    time.sleep(2)  # it waits for the person, however long
    assert "Press enter to go back" in tmux.screen() and "Sessions" not in tmux.screen()
    tmux.keys("Enter")
    back = tmux.wait_for(lambda s: "Sessions · 1" in s, "cctui again")
    assert "Press enter" not in back
    tmux.wait_for(lambda s: "exited with 1" in s, "the toast")


def _claude_in(directory: Path, word: str) -> list[str]:
    """Command lines of the processes in ``directory`` (cctui aside) that mention ``word``."""
    found = []
    for pid in _running_in(directory):
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if word in line and "-m cctui" not in line:
            found.append(line)
    return found
