"""``n``: starting a session from the TUI. The form, a process spawned while its prompt is
written (``SessionManager.prewarm``), and the start: here, drawn at once as the form closes,
or on another host (``[[hosts]]``), opened once that host lists it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from cctui.core import LIVE, SETTING_NAMES, SessionConfig, SessionStatus
from cctui.core.dispatch import DispatchRequest
from cctui.core.launch import title_of
from cctui.errors import CctuiError
from cctui.tui import format as fmt
from cctui.tui.messages import OpenSession
from cctui.tui.remote import key_of

if TYPE_CHECKING:  # the form is imported when first opened (~6 ms of a first frame)
    from cctui.tui.app import CctuiApp
    from cctui.tui.screens.after_picker import AfterCandidate
    from cctui.tui.screens.new_session import NewSessionRequest, NewSessionScreen

REMOTE_ROW_WAIT_S = 5.0
"""How long a session started on a host is looked for in the list before giving up opening
it (its row comes with the host's next look, at once)."""

AFTER_CANDIDATES = 50
"""The newest sessions the After picker lists (any other is typed by its whole id)."""


class SessionStarts:
    """The app's new-session form and what its answer starts; composed into the app."""

    def __init__(self, app: CctuiApp) -> None:
        self.app = app

    def open_form(self) -> None:
        """The form, in the project (or host) of the session on screen."""
        app = self.app
        cwd = app.settings.default_cwd or Path(os.getcwd())
        row = app.main.sessions.row(app.main.current_session_id or "")
        if row is not None and row.cwd is not None and row.cwd.is_dir():
            cwd = row.cwd  # most new sessions continue in the project already on screen
        if row is not None and row.worktree is not None:
            # ... in that project's own checkout, not in another session's worktree.
            with contextlib.suppress(CctuiError):
                worktree = app.manager.get(row.session_id).worktree
                cwd = worktree.repo if worktree is not None else cwd
        mode = app.settings.default_permission_mode or "default"
        from cctui.tui.screens.new_session import NewSessionScreen

        screen = NewSessionScreen(
            cwd=row.cwd if row is not None and row.host is not None and row.cwd else cwd,
            permission_mode=mode,
            templates=app.settings.templates,
            hosts=app.remote.names,
            host=row.host if row is not None else None,
            after_candidates=self._after_candidates(),
        )
        app.push_screen(screen, callback=self._chosen)

    def _after_candidates(self) -> list[AfterCandidate]:
        """This machine's sessions a new one may run after: those still to end, and those
        ended well (they count at once); newest first. Failed ones would refuse it."""
        from cctui.tui.screens.after_picker import AfterCandidate

        app = self.app
        if app.attached is not None:
            return []  # after is the owner's dispatcher's; the attached core has none
        ok = {*LIVE, SessionStatus.QUEUED, SessionStatus.PAUSED, SessionStatus.COMPLETED}
        infos = [i for i in app.manager.list() if i.status in ok and not i.error]
        infos.sort(key=lambda i: i.last_activity or i.created_at, reverse=True)
        return [
            AfterCandidate(
                i.session_id,
                app.describe_session(i.session_id),
                " ".join(fmt.badge(i.status.value)[:2]),
            )
            for i in infos[:AFTER_CANDIDATES]
        ]

    def prewarm(self, form: NewSessionScreen) -> None:
        """The session most likely starts: its process spawns while the prompt is written
        (another choice in the form starts afresh)."""
        # Attached first: while the app shuts down its screen stack can be empty already.
        if form.is_attached and self.app.screen is form:  # still open, not covered
            with contextlib.suppress(CctuiError, OSError):
                self.app.manager.prewarm(self._config_of(form.initial))

    def _config_of(self, request: NewSessionRequest) -> SessionConfig:
        """The config a form's answer starts: the settings' defaults, the project's launch
        prefix and the template, under what the form shows (model, mode)."""
        shown = request.config.model_dump(include=set[str](SETTING_NAMES), exclude_none=True)
        manager = self.app.manager
        return manager.default_config(request.config.cwd, template=request.template, **shown)

    def _chosen(self, request: NewSessionRequest | None) -> None:
        app = self.app
        if request is None or request.host is not None:
            app.run_worker(app.manager.discard_spare(), group="sessions", exit_on_error=False)
        if request is not None and request.host is not None:
            app.run_worker(
                self._create_remote(request, request.host), group="sessions", exit_on_error=False
            )
        elif request is not None:
            self._start(request)

    async def _create_remote(self, request: NewSessionRequest, host_name: str) -> None:
        """Start a session on a host; shown here once the host lists it (its next look)."""
        app = self.app
        host = app.remote.host(host_name)
        if host is None:
            return
        cwd = str(request.config.cwd)
        app.notify(f"Starting it on {host_name}…", timeout=4)
        try:
            session_id = await host.create(
                request.prompt,
                cwd=None if cwd == "." else cwd,
                model=request.config.model,
                permission_mode=request.config.permission_mode,
            )
        except CctuiError as exc:
            app.session_keys.refused(f"Not started on {host_name}", exc)
            return
        key = key_of(host_name, session_id)
        for _ in range(int(REMOTE_ROW_WAIT_S / 0.05)):
            if app.main.sessions.row(key) is not None:
                app.post_message(OpenSession(key))
                return
            await asyncio.sleep(0.05)

    def _start(self, request: NewSessionRequest) -> None:
        try:
            config = self._config_of(request)
        except CctuiError as exc:
            self._not_started(exc)
            return
        # Drawn with the form's closing: the pane has the new session's prompt at once, not
        # the last session for the half second its process takes to start.
        title = config.title or title_of(request.prompt)
        main = self.app.main
        main.show_starting(title, request.prompt, config.cwd, worktree=bool(request.worktree))
        self.app.run_worker(self._create(request, config), group="sessions", exit_on_error=False)

    async def _create(self, request: NewSessionRequest, config: SessionConfig) -> None:
        """Start a session and show it."""
        try:
            after = request.after
            info = await self.app.manager.create(
                request.prompt,
                config,
                worktree=request.worktree or None,
                listed=self.app.main.starting_listed,
                dispatch=(
                    DispatchRequest(after=after.after, parent_results=after.parent_results)
                    if after.after
                    else None
                ),
            )
        except CctuiError as exc:
            self._not_started(exc)
            return
        self.app.post_message(OpenSession(info.session_id))

    def _not_started(self, exc: CctuiError) -> None:
        self.app.main.not_started()
        self.app.notify(exc.message, title="Could not start the session", severity="error")
