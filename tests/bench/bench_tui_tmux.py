"""cctui in a real terminal (tmux, 160x45) against the fake API, beside its baselines.

    python -m tests.bench.bench_tui_tmux [--reps 5] [--skip start,reply,written,tools,keys]
        [--history 2000]

Everything is a ratio or a difference against a baseline run in the same minute, the two
interleaved (their order swapped every repetition), because on a shared machine absolute
times drift by several times within a run:

- *start*: launch to the list on screen (its second row with ``--history``), cctui started
  again on a home whose history index is built (a user's usual start), against launch to
  ``bare_floor``'s table. No target: it shows what cctui adds to a Textual app's first frame.
- *reply*: a 50 KB markdown reply in ~5,000 deltas. Bare ``claude -p`` (launch to its output
  on screen) vs cctui from Enter in the new-session form to the reply's last line on screen,
  the prompt pasted the moment the form is up and sent at once; session start is inside
  both. Target: cctui <= 0.5 s after the bare CLI.
- *reply written in 2 s*: the same, with cctui's form open ``WRITE_S`` before the prompt is
  pasted (a person writes it): the process the form starts meanwhile runs the session. The
  bare CLI's clock also starts at its Enter (what a person types at the shell is not counted).
- *tools*: one turn of 100 Read calls (one model call each), bare ``claude -p`` vs cctui from
  Enter in the form to the final line on screen. Target <= 1.2x, every repetition.
- *keys*: ``n`` -> the new-session form on screen (``Escape`` closes it), in cctui and in
  ``bare_floor`` (a bare Textual app with cctui's stylesheets pushing the same form),
  alternating, idle, while one session calls tools (its transcript, watched by the history
  index, changes on every call) and while 1 and 10 of cctui's sessions stream a reply (each
  ~5,000 deltas over ``STREAM_S``). Target: cctui <= 1.2x the floor's median and <= 2x its
  worst. ``--history N`` writes N past sessions into cctui's home first (a real user has
  thousands).

The screen is read with ``capture-pane`` every ``POLL_S`` and keys sent with ``send-keys``,
both through one tmux control client, the same for both sides. cctui is timed once its CPU
rests after start (its first start on a new home builds the history index). Each side has
its own HOME (the bare CLI's transcripts would otherwise show up in cctui's list and be
indexed while it is being timed). ``CCTUI_BENCH_EXE`` runs another build's ``cctui`` (e.g. a
worktree of main, for a before/after).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.bench.bare_floor import FORM_NEEDLE
from tests.bench.bench_tui import REPLY_MARK, STREAM_MARK, TOOLS_MARK, Results, offline
from tests.fakes.seed_home import seed_claude_home

REPO = Path(__file__).resolve().parents[2]
SIZE = ("160", "45")
POLL_S = 0.005
KEY_REPS = 5
STREAM_SESSIONS = (1, 10)
WRITE_S = 2.0
"""*written*: how long cctui's form is open before the prompt is pasted into it. cctui starts
the session's process while a person writes (``SPARE_AFTER_S`` after the form opens, or at
the prompt's first character); the plain *reply* pastes the prompt and sends it at once, so
its process starts a moment before Enter."""
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
"""What a terminal puts around pasted text once the app asked for bracketed pastes (Textual
does). A prompt is pasted so: typed as keys, its ~25 characters would reach the form in one
read, a key event and a redraw of the form apiece, which no person's typing does (stop 36:
~50-70 ms more before the CLI's request, on cores the starting CLI needs)."""
IDLE_S, IDLE_CPU_S = 0.5, 0.05
"""cctui rests when it used less than ``IDLE_CPU_S`` of CPU in ``IDLE_S``."""
TARGET_REPLY_LAG_S = 0.5
TARGET_TOOLS = 1.2
TARGET_KEY_MEDIAN = 1.2
TARGET_KEY_WORST = 2.0


SOCKET = f"cctui-bench-{os.getpid()}"
"""A tmux server of our own: on the default one, anything else using tmux on the machine
(other benchmarks, tests, people) can kill or load the sessions being timed."""


def _tmux(*args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False
    ).stdout


_TOKEN = re.compile(r"[\w.:%/#{}@=+-]+")


class Control:
    """One tmux control-mode client (``tmux -C``) on the bench's server: screens are read and
    keys sent through it. A ``tmux`` process per poll (every ``POLL_S``) kept about a third of
    a core busy on a 2-core machine, load the programs being timed then shared."""

    def __init__(self) -> None:
        # Its own idle session to attach to: the timed ones come and go.
        subprocess.run(
            ["tmux", "-L", SOCKET, "new", "-d", "-s", "bench-control", "sleep 86400"], check=True
        )
        self._proc = subprocess.Popen(
            ["tmux", "-L", SOCKET, "-C", "attach", "-t", "bench-control", "-f", "no-output"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._reply()  # attach's own (empty) reply

    def run(self, *args: str) -> str:
        """Run one tmux command; its output. Arguments are plain tokens (no quoting needed)."""
        assert self._proc.stdin is not None
        for arg in args:
            if not _TOKEN.fullmatch(arg):
                raise ValueError(f"not a plain tmux token: {arg!r}")
        self._proc.stdin.write(" ".join(args).encode() + b"\n")
        self._proc.stdin.flush()
        return self._reply()

    def _reply(self) -> str:
        """The lines between ``%begin`` and its ``%end`` (notifications around it skipped)."""
        assert self._proc.stdout is not None
        block: list[bytes] | None = None
        tag = b""
        for line in self._proc.stdout:
            if block is None:
                if line.startswith(b"%begin "):
                    block, tag = [], b" ".join(line.split()[1:3])
                continue
            head = line.split()
            if head[:1] in ([b"%end"], [b"%error"]) and b" ".join(head[1:3]) == tag:
                text = b"".join(block).decode(errors="replace")
                if head[0] == b"%error":
                    raise RuntimeError(f"tmux: {text.strip()}")
                return text
            block.append(line)
        raise RuntimeError("the tmux control client exited")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._proc.kill()
        self._proc.wait()


_control: Control | None = None


def control() -> Control:
    """The bench's control client, started with its tmux server."""
    global _control
    if _control is None:
        _control = Control()
    return _control


def close_control() -> None:
    global _control
    if _control is not None:
        _control.close()
        _control = None


class Term:
    """One detached tmux session running ``command`` with ``env``."""

    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.name = f"cctui-bench-{uuid.uuid4().hex[:8]}"
        self._ctl = control()  # before the clock: the first Term starts the tmux server
        self.started = time.perf_counter()
        size = ["-x", SIZE[0], "-y", SIZE[1]]
        # Every session's command would otherwise see the environment of the client that
        # started the server (the first session's), not its own: the bare CLI ran in cctui's
        # HOME then, its transcripts indexed by cctui while it was being timed.
        given = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        subprocess.run(
            ["tmux", "-L", SOCKET, "new", "-d", "-s", self.name, *size, *given, command],
            check=True,
        )

    def screen(self) -> str:
        return self._ctl.run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str, literal: bool = False) -> None:
        if literal:
            # As hex: the text needs no quoting for tmux's command parser.
            hexed = [f"{byte:02x}" for byte in "".join(keys).encode()]
            self._ctl.run("send-keys", "-t", self.name, "-H", *hexed)
        else:
            self._ctl.run("send-keys", "-t", self.name, *keys)

    def paste(self, text: str) -> None:
        """``text`` as a terminal sends a paste: one bracketed paste (the app asked for the
        mode), read as one ``Paste`` event, not a key per character."""
        self.keys(f"{PASTE_START}{text}{PASTE_END}", literal=True)

    async def until(self, needle: str, wait_s: float, *, gone: bool = False) -> float | None:
        """Seconds until ``needle`` is on screen (``gone``: off it); None on timeout."""
        start = time.perf_counter()
        while time.perf_counter() - start < wait_s:
            if (needle in self.screen()) != gone:
                return time.perf_counter() - start
            await asyncio.sleep(POLL_S)
        return None

    def kill(self) -> None:
        _tmux("kill-session", "-t", self.name)

    def pid(self, name: str) -> int | None:
        """The pane's process running ``name``: the shell itself (it execs the last command
        of ``cd ... && command``) or its child."""
        shell = _tmux("list-panes", "-t", self.name, "-F", "#{pane_pid}").strip()
        try:
            candidates = [shell, *Path(f"/proc/{shell}/task/{shell}/children").read_text().split()]
            for pid in candidates:
                if name in Path(f"/proc/{pid}/cmdline").read_text():
                    return int(pid)
        except OSError:
            return None
        return None


def cpu_s(pid: int | None) -> float:
    """User + system CPU seconds of ``pid`` so far (0 when unknown): what a run cost, however
    loaded the machine was."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Pairs:
    """Interleaved measurements of cctui and its baseline."""

    cctui: list[float] = field(default_factory=list)
    base: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    """CPU seconds of cctui's own process (not its CLI children) per cctui run."""

    def ratio(self) -> float:
        return statistics.median(self.cctui) / statistics.median(self.base)

    def worst_ratio(self) -> float:
        return max(self.cctui) / max(self.base)

    def lags(self) -> list[float]:
        return [c - b for c, b in zip(self.cctui, self.base, strict=False)]


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.0f}/{max(values) * 1e3:.0f}"


@dataclass
class Setup:
    project: Path
    cli: Path
    cctui_env: dict[str, str]
    bare_env: dict[str, str]


def write_past(claude_dir: Path, count: int, root: Path) -> None:
    """``count`` finished sessions in ``claude_dir`` (a transcript and a prompt each, spread
    over forty projects, minutes apart): what a user's history looks like to the index."""
    from tests.snapshot_apps.history import write_history, write_transcript

    now = datetime.now(UTC).replace(microsecond=0)
    prompts: list[tuple[str, datetime, str, str | None]] = []
    for i in range(count):
        sid = f"1a1b2c3d-0000-4000-8000-{i:012d}"
        cwd, when = str(root / f"past{i % 40}"), now - timedelta(minutes=10 + i)
        turn = (f"task {i}", [{"type": "text", "text": "Done."}])
        write_transcript(claude_dir, sid, cwd, when, [turn])
        prompts.append((f"task {i}", when, cwd, sid))
    if prompts:
        write_history(claude_dir, prompts)


@contextlib.contextmanager
def setup(history: int = 0) -> Iterator[Setup]:
    with offline() as env:
        write_past(env.home / ".claude", history, env.home.parent)
        # Every run leaves its session open: more than the default limit of 10 by the keys
        # part (or with --reps above 5), and an 11th start is refused.
        cctui_env = dict(os.environ) | {"MAX_SESSIONS": "60"}
        bare_home = env.home.parent / "bare-home"
        for sub in (".config", ".local/state", ".local/share", ".cache"):
            (bare_home / sub).mkdir(parents=True, exist_ok=True)
        seed_claude_home(bare_home, env.project)
        bare_env = dict(cctui_env)
        for key, value in cctui_env.items():
            if str(env.home) in value:
                bare_env[key] = value.replace(str(env.home), str(bare_home))
        try:
            yield Setup(env.project, env.cli, cctui_env, bare_env)
        finally:
            # A window whose `q` went into a message line, then its tmux killed, hung up with
            # sessions live: it went to the background under this temporary HOME, where no
            # later `cctui stop` looks. End it before the HOME goes.
            exe = os.environ.get("CCTUI_BENCH_EXE") or str(REPO / ".venv" / "bin" / "cctui")
            subprocess.run([exe, "stop"], env=cctui_env, capture_output=True, check=False)


class Cctui:
    """cctui running in tmux; sessions are started through its form, as a person would."""

    def __init__(self, s: Setup) -> None:
        self.pid: int | None = None
        exe = os.environ.get("CCTUI_BENCH_EXE") or REPO / ".venv" / "bin" / "cctui"
        self.term = Term(f"cd {s.project} && {exe} --port 0", s.cctui_env)

    async def up(self) -> None:
        if await self.term.until("Sessions", 60) is None:
            raise RuntimeError(f"cctui did not start:\n{self.term.screen()}")
        self.pid = self.term.pid("cctui")
        await self.idle()

    async def idle(self, wait_s: float = 60) -> None:
        """Until cctui's CPU rests: its first start on a new home builds the history index
        (``--history 2000``: about 1.5 s of a core after the list is up), which a user's
        later starts find built; the first runs would otherwise time that."""
        start = time.perf_counter()
        before = cpu_s(self.pid)
        while time.perf_counter() - start < wait_s:
            await asyncio.sleep(IDLE_S)
            now = cpu_s(self.pid)
            if now - before < IDLE_CPU_S:
                return
            before = now

    async def open_form(self, wait_s: float = 10) -> float | None:
        """``n`` until the form is drawn: the key-to-screen latency."""
        start = time.perf_counter()
        self.term.keys("n")
        shown = await self.term.until(FORM_NEEDLE, wait_s)
        return None if shown is None else time.perf_counter() - start

    async def to_list(self) -> None:
        """Focus back on the list: a session opened after its form closed focuses its
        message line, and an ``n`` typed there opens nothing."""
        self.term.keys("Escape")
        await asyncio.sleep(0.3)

    async def close_form(self) -> None:
        self.term.keys("Escape")
        await self.term.until(FORM_NEEDLE, 30, gone=True)

    async def start(self, prompt: str, write_s: float = 0.0) -> float:
        """Open the form, wait ``write_s`` (a person writing), paste ``prompt``; returns the
        moment Enter was sent."""
        for _ in range(5):
            await self.to_list()
            if await self.open_form(3) is not None:
                break
        else:
            raise RuntimeError(f"no form:\n{self.term.screen()}")
        await asyncio.sleep(write_s)
        self.term.paste(prompt)
        await self.term.until(prompt, 30)
        start = time.perf_counter()
        self.term.keys("Enter")
        # The next key (the next start's Escape) must not reach the form before Enter has.
        await self.term.until(FORM_NEEDLE, 30, gone=True)
        return start

    def quit(self) -> None:
        self.term.keys("q")
        time.sleep(2)
        self.term.kill()


async def bare_cli(s: Setup, prompt: str, needle: str) -> float:
    """``claude -p`` in its own tmux: launch to ``needle`` on screen."""
    command = (
        f"cd {s.project} && {s.cli} -p {shlex.quote(prompt)} --allowedTools Read | tail -3;"
        " sleep 60"
    )
    term = Term(command, s.bare_env)
    try:
        shown = await term.until(needle, 90)
        if shown is None:
            raise RuntimeError(f"claude -p never showed {needle!r}:\n{term.screen()}")
        return time.perf_counter() - term.started
    finally:
        term.kill()


async def cctui_turn(
    app: Cctui, prompt: str, needle: str, write_s: float = 0.0
) -> tuple[float, float]:
    """Seconds from Enter in the form to ``needle`` on screen, and cctui's CPU seconds."""
    start = await app.start(prompt, write_s)
    cpu = cpu_s(app.pid)
    if await app.term.until(needle, 90) is None:
        raise RuntimeError(f"cctui never showed {needle!r}:\n{app.term.screen()}")
    return time.perf_counter() - start, cpu_s(app.pid) - cpu


async def turns(
    s: Setup, app: Cctui, reps: int, mark: str, needle: str, write_s: float = 0.0
) -> Pairs:
    """``reps`` interleaved turns of ``mark``: bare CLI and cctui, order swapped each time
    (cctui's form open ``write_s`` before the prompt is pasted into it)."""
    pairs = Pairs()
    for r in range(reps):

        async def bare(r: int = r) -> None:
            pairs.base.append(await bare_cli(s, f"{mark}-b{r} please", f"{needle}-b{r}"))

        async def ours(r: int = r) -> None:
            wall, cpu = await cctui_turn(app, f"{mark}-c{r} please", f"{needle}-c{r}", write_s)
            pairs.cctui.append(wall)
            pairs.cpu.append(cpu)

        kept = len(pairs.base), len(pairs.cctui), len(pairs.cpu)
        try:
            for run in (bare, ours) if r % 2 == 0 else (ours, bare):
                await run()
        except RuntimeError as exc:
            # A run that never finished (seen a few times under heavy load: the CLI waits on
            # the fake API for minutes) is reported and its pair dropped, not averaged in.
            print(f"  run {r} of {mark} dropped: {str(exc).splitlines()[0]}")
            del pairs.base[kept[0] :], pairs.cctui[kept[1] :], pairs.cpu[kept[2] :]
            await app.to_list()
    return pairs


async def starts(s: Setup, reps: int, history: int) -> Pairs:
    """``reps`` interleaved launches of cctui and of the bare floor, each to its list on
    screen; cctui's home has been started in once (its history index built)."""
    needle = "task 1 " if history > 1 else "No session selected"
    pairs = Pairs()
    for r in range(reps):

        async def bare() -> None:
            floor = _floor(s)
            try:
                shown = await floor.until("session 1 ", 60)
                if shown is None:
                    raise RuntimeError(f"bare floor did not start:\n{floor.screen()}")
                pairs.base.append(time.perf_counter() - floor.started)
            finally:
                floor.kill()

        async def ours() -> None:
            app = Cctui(s)
            try:
                if await app.term.until(needle, 60) is None:
                    raise RuntimeError(f"cctui did not start:\n{app.term.screen()}")
                pairs.cctui.append(time.perf_counter() - app.term.started)
                app.pid = app.term.pid("cctui")
                await app.idle()  # its services up: the next launch's home as a user leaves it
            finally:
                app.quit()

        for run in (bare, ours) if r % 2 == 0 else (ours, bare):
            await run()
    return pairs


def _floor(s: Setup) -> Term:
    return Term(
        f"cd {s.project} && PYTHONPATH={REPO} {sys.executable} -m tests.bench.bare_floor",
        s.cctui_env,
    )


async def keys(floor: Term, app: Cctui, reps: int) -> Pairs:
    """``reps`` interleaved ``n`` -> form in the bare floor and in cctui."""
    pairs = Pairs()

    async def bare() -> None:
        start = time.perf_counter()
        floor.keys("n")
        if await floor.until(FORM_NEEDLE, 30) is not None:
            pairs.base.append(time.perf_counter() - start)
        floor.keys("Escape")
        await floor.until(FORM_NEEDLE, 30, gone=True)

    await app.to_list()

    async def ours() -> None:
        shown = await app.open_form()
        if shown is not None:
            pairs.cctui.append(shown)
        await app.close_form()

    for r in range(reps):
        for run in (bare, ours) if r % 2 == 0 else (ours, bare):
            await run()
            await asyncio.sleep(0.25)
    return pairs


def _uptime() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ")[0]
    except OSError:
        return "?"


async def run(reps: int, skip: frozenset[str], history: int = 0) -> Results:
    res = Results()
    if shutil.which("tmux") is None:
        print("  tmux not installed: skipped")
        return res
    print(f"  tmux {SIZE[0]}x{SIZE[1]}, {os.cpu_count()} CPUs, load {_uptime()} at start")
    if history:
        print(f"  {history:,} past sessions in cctui's home")
    with setup(history) as s:
        if "start" not in skip:
            first = Cctui(s)
            await first.up()  # builds the history index
            first.quit()
            _report_starts(res, await starts(s, reps, history))
        app = Cctui(s)
        floor = _floor(s)
        try:
            await app.up()
            if await floor.until("New", 60) is None:
                raise RuntimeError(f"bare floor did not start:\n{floor.screen()}")
            if "reply" not in skip:
                pairs = await turns(s, app, reps, REPLY_MARK, "END-OF-REPLY")
                _report_turns(res, "reply", pairs, lag=True)
            if "written" not in skip:
                pairs = await turns(s, app, reps, REPLY_MARK, "END-OF-REPLY", WRITE_S)
                _report_turns(res, f"reply written in {WRITE_S:.0f} s", pairs, lag=True)
            if "tools" not in skip:
                pairs = await turns(s, app, reps, TOOLS_MARK, "TOOLS-DONE")
                _report_turns(res, "tools", pairs, lag=False)
            if "keys" not in skip:
                await _keys(res, floor, app, reps)
        finally:
            app.quit()
            floor.kill()
            close_control()
            _tmux("kill-server")
    print(f"  load {_uptime()} at end")
    return res


async def _keys(res: Results, floor: Term, app: Cctui, reps: int) -> None:
    _report_keys(res, "idle", await keys(floor, app, max(reps, KEY_REPS)))
    # A session calling tools appends to its transcript on every call: the history watcher
    # sees its file change several times a second (the list's cost of that grows with the
    # history: --history).
    await app.start(f"{TOOLS_MARK}-keys go")
    await asyncio.sleep(1)  # its CLI up and calling
    _report_keys(res, "1 calling tools", await keys(floor, app, KEY_REPS))
    started = 0
    for n in STREAM_SESSIONS:
        while started < n:
            await app.start(f"{STREAM_MARK}-s{started} go")
            started += 1
        await asyncio.sleep(3)  # the last one is open, its CLI up and streaming
        _report_keys(res, f"{n} streaming", await keys(floor, app, max(reps, KEY_REPS)))


def _report_starts(res: Results, pairs: Pairs) -> None:
    print(f"\n  start: launch to the list on screen, {len(pairs.cctui)} interleaved runs")
    print(f"    floor {' '.join(f'{v:.2f}' for v in pairs.base)}")
    print(f"    cctui {' '.join(f'{v:.2f}' for v in pairs.cctui)}")
    res.add("start: bare Textual floor median/max (s)", _s(pairs.base), "", None)
    res.add("start: cctui median/max (s)", _s(pairs.cctui), "", None)
    res.add("start: cctui / floor, median", f"{pairs.ratio():.2f}x", "", None)
    res.rows.append(("tmux start: launch to list / bare Textual (median)", pairs.ratio()))


def _report_turns(res: Results, what: str, pairs: Pairs, *, lag: bool) -> None:
    print(f"\n  {what}: bare claude -p vs cctui, {len(pairs.cctui)} interleaved runs")
    print(f"    bare  {' '.join(f'{v:.2f}' for v in pairs.base)}")
    print(f"    cctui {' '.join(f'{v:.2f}' for v in pairs.cctui)}")
    print(f"    cctui CPU {' '.join(f'{v:.2f}' for v in pairs.cpu)}")
    res.add(f"{what}: bare claude -p median/max (s)", _s(pairs.base), "", None)
    res.add(f"{what}: cctui median/max (s)", _s(pairs.cctui), "", None)
    res.add(f"{what}: cctui's own CPU median/max (s)", _s(pairs.cpu), "", None)
    if lag:
        lags = pairs.lags()
        worst = max(lags)
        res.add(
            f"{what}: cctui - bare, median/worst (s)",
            f"{statistics.median(lags):.2f}/{worst:.2f}",
            f"<= {TARGET_REPLY_LAG_S}",
            worst <= TARGET_REPLY_LAG_S,
        )
        res.rows.append((f"tmux {what}: cctui - bare (s, median)", statistics.median(lags)))
    ratios = [c / b for c, b in zip(pairs.cctui, pairs.base, strict=False)]
    res.add(
        f"{what}: cctui / bare, median/worst",
        f"{statistics.median(ratios):.2f}x/{max(ratios):.2f}x",
        "" if lag else f"<= {TARGET_TOOLS}x",
        None if lag else max(ratios) <= TARGET_TOOLS,
    )
    res.rows.append((f"tmux {what}: cctui / bare claude -p (median)", statistics.median(ratios)))


def _s(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}/{max(values):.2f}"


def _report_keys(res: Results, what: str, pairs: Pairs) -> None:
    if not pairs.cctui or not pairs.base:
        res.add(f"keys {what}: n -> form", "no sample", "", False)
        return
    median, worst = pairs.ratio(), pairs.worst_ratio()
    print(f"\n  keys {what}, ms: floor {' '.join(f'{v * 1e3:.0f}' for v in pairs.base)}")
    print(f"  keys {what}, ms: cctui {' '.join(f'{v * 1e3:.0f}' for v in pairs.cctui)}")
    res.add(f"keys {what}: bare Textual floor median/max (ms)", _ms(pairs.base), "", None)
    res.add(f"keys {what}: cctui median/max (ms)", _ms(pairs.cctui), "", None)
    res.add(
        f"keys {what}: cctui / floor, median",
        f"{median:.2f}x",
        f"<= {TARGET_KEY_MEDIAN}x",
        median <= TARGET_KEY_MEDIAN,
    )
    res.add(
        f"keys {what}: cctui / floor, worst of {len(pairs.cctui)}",
        f"{worst:.2f}x",
        f"<= {TARGET_KEY_WORST}x",
        worst <= TARGET_KEY_WORST,
    )
    res.rows.append((f"tmux keys {what}: n -> form / bare Textual (median)", median))


async def tmux(res: Results) -> None:
    """The part ``bench_tui`` runs (one repetition of each)."""
    sub = await run(1, frozenset())
    res.table += sub.table
    res.rows += sub.rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="interleaved repetitions of each")
    parser.add_argument(
        "--skip", default="", help="comma-separated: start,reply,written,tools,keys"
    )
    parser.add_argument(
        "--history",
        type=int,
        default=0,
        help="past sessions written into cctui's home first (e.g. 2000: a real user's)",
    )
    args = parser.parse_args(argv)
    skip = frozenset(s.strip() for s in args.skip.split(",") if s.strip())
    res = asyncio.run(run(args.reps, skip, args.history))
    print("\n| what | measured | target | |\n|---|---|---|---|")
    for what, measured, against, verdict in res.table:
        print(f"| {what} | {measured} | {against} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
