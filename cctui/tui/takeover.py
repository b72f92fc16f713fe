"""``o``: hand a session to Claude Code's own terminal UI, and come back when it exits.

cctui suspends (Textual's ``App.suspend``: the terminal as it was before cctui started), runs
``claude --resume <id>`` in the session's directory in the foreground, with the binary cctui
drives and the session's launch prefix, and waits for it. A session whose ``claude`` process
cctui holds is ended first, after a yes/no: two processes must never write one session. A
session open in a ``claude`` that cctui did not start is refused for the same reason.

Back in cctui, the history index is re-read at once and the pane redraws the session from
its transcript, which now holds the turns typed in Claude Code. The rest of cctui keeps
running meanwhile (other sessions, the MCP server); only drawing waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SuspendNotSupported

from cctui.core import SessionStatus
from cctui.errors import CctuiError
from cctui.remote.terminal import terminal_command
from cctui.tui.rows import SessionRow
from cctui.tui.screens.ask import AskScreen

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

log = logging.getLogger(__name__)

Runner = Callable[[App[None], Sequence[str], Path], Awaitable[int]]
"""Runs a command in the app's terminal and returns its exit code (tests replace it)."""


QUICK_EXIT_S = 10.0
"""A child that fails within this long most likely said why (no network, not logged in,
onboarding): its words stay on the terminal until the person has read them."""


async def run_in_terminal(app: App[None], argv: Sequence[str], cwd: Path) -> int:
    """Run ``argv`` in the foreground of the app's terminal, the app suspended meanwhile.
    When it fails quickly its last output stays on screen until enter (cctui redrawing
    over it would leave only "it exited with 1")."""
    loop = asyncio.get_running_loop()
    # Inside suspend the event loop keeps running (sessions, the MCP server): batch_update
    # keeps Textual from drawing onto a terminal that belongs to the child until it exits.
    with app.suspend(), app.batch_update():
        # The terminal is back in cooked mode: a ctrl+c there goes to the whole foreground
        # process group, cctui included. It is the child's; cctui must not die of it. (A
        # handler, not SIG_IGN, which the child would inherit across exec.)
        loop.add_signal_handler(signal.SIGINT, lambda: None)
        process = None
        try:
            started = loop.time()
            process = await asyncio.create_subprocess_exec(*argv, cwd=cwd)
            code = await process.wait()
            if code != 0 and loop.time() - started < QUICK_EXIT_S:
                await _until_enter(f"{Path(argv[0]).name} exited with {code}")
            return code
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()  # cctui is quitting under it: no child outlives cctui


async def _until_enter(what: str) -> None:
    """Say ``what`` under the child's output and wait for enter (the terminal is in cooked
    mode: stdin turns readable with a whole line). A loop reader, not a thread blocked on
    stdin: quitting cctui meanwhile must not wait for a key."""
    out, stdin = sys.__stdout__, sys.__stdin__
    if out is None or stdin is None or not stdin.isatty():
        return
    out.write(f"\n[cctui] {what}. Press enter to go back to cctui.\n")
    out.flush()
    loop = asyncio.get_running_loop()
    line: asyncio.Future[None] = loop.create_future()
    fd = stdin.fileno()

    def readable() -> None:
        if not line.done():
            line.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await line
        with contextlib.suppress(OSError):
            os.read(fd, 4096)  # the line itself: not a key for cctui once it is back
    finally:
        loop.remove_reader(fd)


class TakeOver:
    """The app's side of ``o``: checks, the yes/no, the hand-over and the return."""

    def __init__(self, app: CctuiApp) -> None:
        self._app = app
        self.runner: Runner = run_in_terminal
        self.running: str | None = None
        """The session Claude Code has now (None: cctui has the terminal)."""

    def start(self, session_id: str) -> None:
        """Hand ``session_id`` over, asking first when cctui's process must end."""
        app = self._app
        if self.running is not None:
            return
        row = app.main.sessions.row(session_id)
        if row is not None and row.host is not None:
            self._start_remote(row)
            return
        status = self._held(session_id)
        if not self._ours(session_id) and row is not None and row.live:
            app.notify(
                "A claude process that cctui did not start has this session open. Leave it "
                "there first: two processes must never write one session.",
                title="Not opened in Claude Code",
                severity="warning",
                timeout=10,
            )
            return
        if status is None:
            self._run(session_id, end_first=False)
            return
        turn = " Its running turn is interrupted." if status != SessionStatus.IDLE else ""
        waits = " What it waits for is withdrawn." if app.manager.pending(session_id) else ""

        def answered(yes: bool | None) -> None:
            if yes:
                self._run(session_id, end_first=True)

        app.push_screen(
            AskScreen(
                "Open in Claude Code?",
                f"cctui's claude process for {app.describe_session(session_id)} is ended "
                f"first: two processes must never write one session.{turn}{waits} cctui "
                "waits until you leave Claude Code, then shows what you did there.",
                yes="end it and open",
            ),
            callback=answered,
        )

    def _start_remote(self, row: SessionRow) -> None:
        """A host's session: Claude Code runs there, through the host's command with a
        terminal (``ssh -t devbox sh -c 'cd … && exec claude --resume ID'``); the host's own
        process for it is ended first, after a yes/no."""
        app = self._app
        found = app.remote.locate(row.session_id)
        if found is None:
            return
        host, session_id = found
        cwd = str(row.cwd) if row.cwd else None
        try:  # how the host is reached, to ask about; its claude is asked for when it runs
            argv = terminal_command(host.config.argv, "claude", session_id, cwd)
        except CctuiError as exc:
            app.notify(exc.message, title="Not opened in Claude Code", severity="error")
            return
        run = partial(self._run_remote, row.session_id, cwd)
        if not row.live:
            run(end_first=False)
            return
        if not host.online:
            app.notify(
                f"{host.name} is {host.state}: its claude process for this session cannot be "
                "ended from here now, and two processes must never write one session.",
                title="Not opened in Claude Code",
                severity="warning",
            )
            return

        def answered(yes: bool | None) -> None:
            if yes:
                run(end_first=True)
            app.call_later(app.inbox.pump)

        app.push_screen(
            AskScreen(
                "Open in Claude Code?",
                f"{host.name}'s claude process for {app.describe_session(row.session_id)} is "
                "ended first: two processes must never write one session. Claude Code then "
                f"runs on {host.name} in this terminal ({shlex.join(argv[:3])} …); cctui "
                "waits until you leave it.",
                yes="end it and open",
            ),
            callback=answered,
        )

    def _run_remote(self, key: str, cwd: str | None, *, end_first: bool) -> None:
        self._app.run_worker(
            self._hand_over_remote(key, cwd, end_first=end_first),
            group="takeover",
            exclusive=True,
            exit_on_error=False,
        )

    async def _hand_over_remote(self, key: str, cwd: str | None, *, end_first: bool) -> None:
        app = self._app
        found = app.remote.locate(key)
        if found is None:
            return
        host, session_id = found
        # The claude its cctui drives: asked now, not on connecting (kept a while once
        # asked); by name on its PATH when the host cannot say.
        claude = await host.claude()
        path = claude.path if claude is not None and claude.path else "claude"
        try:
            argv = terminal_command(host.config.argv, path, session_id, cwd)
            if end_first:
                await host.kill(session_id)
        except CctuiError as exc:
            app.notify(exc.message, title="Not opened in Claude Code", severity="error")
            return
        code = await self._in_terminal(key, argv, Path.home())
        if code is None:
            return
        host.poke()  # what was done there shows at its next look, which comes now
        app.main.sessions.select(key)
        app.main.sessions.focus()
        ended = "" if code == 0 else f" (it exited with {code})"
        app.notify(f"Back from Claude Code on {host.name}{ended}.", title="cctui")

    def _ours(self, session_id: str) -> bool:
        try:
            self._app.manager.get(session_id)
        except CctuiError:
            return False
        return True

    def _held(self, session_id: str) -> SessionStatus | None:
        """The status of cctui's process for the session, None when it holds none."""
        try:
            info = self._app.manager.get(session_id)
        except CctuiError:
            return None
        if info.is_active or info.status == SessionStatus.STARTING:
            return info.status
        return None

    def _run(self, session_id: str, *, end_first: bool) -> None:
        self._app.run_worker(
            self._hand_over(session_id, end_first=end_first),
            group="takeover",
            exclusive=True,
            exit_on_error=False,
        )

    async def _hand_over(self, session_id: str, *, end_first: bool) -> None:
        app = self._app
        row = app.main.sessions.row(session_id)
        try:
            argv, cwd = await app.manager.interactive_command(session_id, row.cwd if row else None)
            if end_first:
                await app.manager.end(session_id)
        except CctuiError as exc:
            app.notify(exc.message, title="Not opened in Claude Code", severity="error")
            return
        code = await self._in_terminal(session_id, argv, cwd)
        if code is not None:
            await self._back(session_id, code)

    async def _in_terminal(self, session_id: str, argv: Sequence[str], cwd: Path) -> int | None:
        """Run ``argv`` in the terminal, cctui suspended; its exit code, None if it did not
        run (said in a notice)."""
        app = self._app
        self.running = session_id
        try:
            return await self.runner(app, argv, cwd)
        except SuspendNotSupported:
            app.notify(
                "This terminal cannot be handed over (Textual cannot suspend here).",
                title="Not opened in Claude Code",
                severity="error",
            )
        except OSError as exc:
            app.notify(f"{argv[0]}: {exc}", title="Not opened in Claude Code", severity="error")
        finally:
            self.running = None
        return None

    async def _back(self, session_id: str, code: int) -> None:
        """Show what was done in Claude Code: re-read the history now, redraw the session."""
        app = self._app
        try:
            await app.source.index.arefresh()
            app.source.reload_history()
        except Exception:  # the watcher will catch up; the return must not fail
            log.exception("history refresh after the take-over failed")
        main = app.main
        main.reload()
        main.sessions.select(session_id)
        row = main.sessions.row(session_id)
        if row is not None:
            main.pane.show(row, from_transcript=True)
        main.sessions.focus()
        ended = "" if code == 0 else f" (it exited with {code})"
        app.notify(f"Back from Claude Code{ended}.", title="cctui")
