"""What the app's keys do to one session: the session on screen (or the list's row), a core
verb on it (here, or on its host), and a notice saying what happened or why not.

Every verb runs in a worker of the app's (its group: ``sessions``, ``steer``, ``rewind``), so
a key never blocks the screen; a refusal (``CctuiError``) is a notice, never a crash.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from cctui.core import SessionStatus
from cctui.core.api import SessionVerbs
from cctui.errors import CctuiError
from cctui.remote.hosts import Host
from cctui.remote.verbs import HostVerbs
from cctui.tui.messages import OpenSession
from cctui.tui.remote import key_of
from cctui.tui.screens.ask import AskScreen
from cctui.tui.screens.finish import Choice, FinishScreen
from cctui.tui.screens.model import ModelScreen
from cctui.tui.screens.rewind import RewindScreen

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

T = TypeVar("T")
"""What a core verb returns."""


class SessionKeys:
    """What the app's keys do to one session: the current session -> a core verb (this
    machine's, or a host's) -> a notice; composed into the app."""

    def __init__(self, app: CctuiApp) -> None:
        self._app = app

    def _run(
        self, work: Coroutine[Any, Any, object], group: str, *, exclusive: bool = False
    ) -> None:
        self._app.run_worker(work, group=group, exclusive=exclusive, exit_on_error=False)

    # -- which session, and how a verb's refusal is told ------------------------------------

    def current(self) -> str | None:
        """The session the user is looking at (a host's by its key), or None with a notice."""
        app = self._app
        session_id = app.main.current_session_id
        if session_id is None:
            starting = app.main.pane.starting
            app.notify(
                "It is still starting (its claude process is not up yet): try again in a moment."
                if starting
                else "Select a session first.",
                severity="warning",
            )
            return None
        return session_id

    def verbs_for(self, session_id: str) -> tuple[SessionVerbs, str]:
        """The core a session's verbs (diff, finish, fork, rewind, mode, model) run on, and
        its id there: this machine's, or a host's own core through its link."""
        found = self._app.remote.locate(session_id)
        if found is None:
            return self._app.manager, session_id
        host, sid = found
        return HostVerbs(host.core_call), sid

    def row_under_cursor(self) -> str | None:
        """The list's row when the list has focus, else the session on screen."""
        main = self._app.main
        if main.sessions.has_focus and main.sessions.selected_id is not None:
            return main.sessions.selected_id
        return self.current()

    async def verb(self, refused: str, call: Awaitable[T]) -> T | None:
        """Await a core verb on a session; a refusal (``CctuiError``) becomes a notice
        titled ``refused`` with what to do next, never a crash, and gives None."""
        try:
            return await call
        except CctuiError as exc:
            self.refused(refused, exc)
            return None

    async def on_session(
        self,
        refused: str,
        session_id: str,
        here: Callable[[str], Awaitable[object]],
        there: Callable[[Host, str], Awaitable[None]],
    ) -> bool:
        """A verb on the session: ``there`` on its host for a host's (by its own id),
        ``here`` on this machine's core; a refusal becomes a notice and gives False."""
        found = self._app.remote.locate(session_id)
        try:
            await (there(*found) if found is not None else here(session_id))
        except CctuiError as exc:
            self.refused(refused, exc)
            return False
        return True

    def refused(self, title: str, exc: CctuiError) -> None:
        """A refused verb, as an error notice with the core's suggestion."""
        text = exc.message + (f"\n{exc.suggestion}" if exc.suggestion else "")
        self._app.notify(text, title=title, severity="error", timeout=12)

    # -- sending, interrupting, ending ----------------------------------------------------

    def send(self, session_id: str, text: str) -> None:
        """Send ``text``; an ended session is resumed by the core (a host's, by its host's)."""
        manager = self._app.manager
        self._run(
            self.on_session(
                "Not sent",
                session_id,
                partial(manager.send, text=text),
                lambda host, sid: host.send(sid, text),
            ),
            "sessions",
        )

    def interrupt(self) -> None:
        session_id = self.current()
        if session_id is not None:
            self._run(self._interrupt(session_id), "sessions")

    async def _interrupt(self, session_id: str) -> None:
        manager = self._app.manager
        if await self.on_session("Not interrupted", session_id, manager.interrupt, Host.interrupt):
            self._app.notify("Interrupted the current turn.")

    def ask_kill(self) -> None:
        """``ctrl+k``: end the session's process; asks first while a turn runs (the turn is
        lost; an idle session loses nothing, a message resumes it)."""
        app = self._app
        session_id = self.current()
        if session_id is None:
            return
        found = app.remote.locate(session_id)
        try:
            if found is not None:
                row = app.main.sessions.row(session_id)
                status = SessionStatus(row.status) if row is not None else None
            else:
                status = app.manager.get(session_id).status
        except (CctuiError, ValueError):
            status = None  # not cctui's: kill says why not
        if status not in (SessionStatus.RUNNING, SessionStatus.WAITING_FOR_INPUT):
            self.kill(session_id)
            return
        waits = " What it waits for is withdrawn." if app.inbox.pending(session_id) else ""
        app.pages.ask_then(
            AskScreen(
                "Kill this session?",
                f"{app.describe_session(session_id)} is in the middle of a turn: ending its "
                f"process stops the turn where it is.{waits} A message resumes the session "
                "later.",
                yes="kill it",
            ),
            partial(self.kill, session_id),
        )

    def kill(self, session_id: str) -> None:
        """End the session's process (it stays resumable; a host's, on its host)."""
        self._run(self._kill(session_id), "sessions")

    async def _kill(self, session_id: str) -> None:
        manager = self._app.manager
        if await self.on_session("Not killed", session_id, manager.kill, Host.kill):
            self._app.notify("Session ended. Send it a message to resume it.")

    # -- worktrees -------------------------------------------------------------------------

    def finish(self) -> None:
        session_id = self.current()
        if session_id is not None:
            self._run(self._finish_asked(session_id), "sessions")

    async def _finish_asked(self, session_id: str) -> None:
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        try:
            preview = await verbs.finish_preview(sid)
        except CctuiError as exc:
            app.notify(exc.message, title="Nothing to finish", severity="warning")
            return
        row = app.main.sessions.row(session_id)
        title = (row.title if row is not None else "") or session_id[:8]
        choice = await app.push_screen_wait(FinishScreen(preview, title))
        if choice is not None:
            await self._finish(session_id, choice)

    async def _finish(self, session_id: str, choice: Choice) -> None:
        app = self._app
        action, force = choice
        title = {"merge": "Not merged", "keep": "Not kept"}.get(action, "Not discarded")
        verbs, sid = self.verbs_for(session_id)
        done = await self.verb(title, verbs.finish_worktree(sid, action, force=force))
        if done is None:
            return
        app.main.catch_up(full=True)  # the row's worktree state changed without an event
        app.notify(done.note, title="Worktree finished")

    def ask_fork_worktree(self) -> None:
        """``w``: asks first; it makes a worktree, a branch and a new claude process."""
        app = self._app
        session_id = self.current()
        if session_id is None:
            return
        app.pages.ask_then(
            AskScreen(
                "Fork into a worktree?",
                f"A copy of {app.describe_session(session_id)} starts in a new git worktree "
                "of its project, on a new branch, with its own claude process. The session "
                "itself goes on as it is.",
                yes="fork it",
            ),
            partial(self._run_fork, session_id),
        )

    def _run_fork(self, session_id: str) -> None:
        self._run(self._fork_worktree(session_id), "sessions")

    async def _fork_worktree(self, session_id: str) -> None:
        """Fork the session into its own worktree and open the copy."""
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        info = await self.verb("Not forked", verbs.fork(sid, worktree=True))
        if info is None:
            return
        where = info.worktree.branch if info.worktree else "its worktree"
        app.notify(f"Forked into {where}. Type a message to start it.")
        found = app.remote.locate(session_id)
        key = key_of(found[0].name, info.session_id) if found else info.session_id
        for _ in range(100):  # a host's fork is listed here at its next look
            if found is None or app.main.sessions.row(key) is not None:
                app.post_message(OpenSession(key, focus_input=True))
                return
            await asyncio.sleep(0.05)

    # -- steering: permission mode and model --------------------------------------------------

    def cycle_mode(self) -> None:
        """``shift+tab`` on the main screen (and the palette): the selected session's next
        permission mode, as in Claude Code."""
        session_id = self.current()
        if session_id is not None:
            self._run(self._cycle_mode(session_id), "steer")

    async def _cycle_mode(self, session_id: str) -> None:
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        change = await self.verb("Mode not changed", verbs.cycle_permission_mode(sid))
        if change is None:
            return
        app.notify(change.note, title=f"Mode: {change.value}", timeout=3)
        app.main.catch_up()

    def pick_model(self) -> None:
        session_id = self.current()
        if session_id is not None:
            self._run(self._pick_model(session_id), "steer")

    async def _pick_model(self, session_id: str) -> None:
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        try:
            current = app.manager.get(session_id).config.model if verbs is app.manager else None
        except CctuiError:
            current = None  # known from disk only: it joins cctui when switched
        offered = await self.verb("Model not changed", verbs.model_options(sid))
        if offered is None:
            return
        screen = ModelScreen(offered, current=current, context=app.describe_session(session_id))
        app.push_screen(screen, callback=partial(self._model_chosen, session_id))

    def _model_chosen(self, session_id: str, model: str | None) -> None:
        if model is not None:
            self._run(self._set_model(session_id, model), "steer")

    async def _set_model(self, session_id: str, model: str) -> None:
        """Switch the session's model (live at once, else at its next start)."""
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        change = await self.verb("Model not changed", verbs.set_model(sid, model))
        if change is None:
            return
        app.notify(change.note, title=f"Model: {change.value or 'default'}", timeout=4)
        app.main.catch_up()

    # -- rewinding files to before a prompt ------------------------------------------------

    def rewind(self, prompt_id: str) -> None:
        """Ask the core what a rewind to before ``prompt_id`` would change, then confirm."""
        session_id = self.current()
        if session_id is not None:
            self._run(self._preview_rewind(session_id, prompt_id), "rewind", exclusive=True)

    async def _preview_rewind(self, session_id: str, prompt_id: str) -> None:
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        try:
            preview = await verbs.rewind_files(sid, prompt_id=prompt_id, dry_run=True, by="tui")
            row = app.main.sessions.row(session_id)
            found = row.cwd if row is not None and row.host is not None else None
            cwd = found or app.manager.get(sid).config.cwd
        except CctuiError as exc:
            app.notify(exc.message, title="Cannot rewind", severity="error", timeout=10)
            return
        screen = RewindScreen(preview, context=app.describe_session(session_id), cwd=cwd)
        app.push_screen(screen, callback=partial(self._rewind_confirmed, session_id, prompt_id))

    def _rewind_confirmed(self, session_id: str, prompt_id: str, go: bool | None) -> None:
        if go:
            self._run(self._rewind_files(session_id, prompt_id), "rewind")

    async def _rewind_files(self, session_id: str, prompt_id: str) -> None:
        """Put the files back (the core dry-runs again first: they may have changed)."""
        app = self._app
        verbs, sid = self.verbs_for(session_id)
        done = await self.verb(
            "Not rewound", verbs.rewind_files(sid, prompt_id=prompt_id, by="tui")
        )
        if done is None:
            return
        files = len(done.files)
        where = f"prompt {done.prompt.index}" if done.prompt else "that prompt"
        app.notify(
            f"{files} file{'s' if files != 1 else ''} put back as before {where}. "
            "The conversation is not rewound: tell Claude what changed.",
            title="Files rewound",
        )
