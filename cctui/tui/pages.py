"""The app's pages: which screen a key opens, with what, and what its answer does. A page is
pushed once (its key pressed again, or the palette under it, does not stack a second), and a
pending input queued while it covers the main screen pops when it closes
(``MainScreen.Uncovered``): a page needs nothing of its own for that.

A page's screen module is imported when the page first opens, not with the app: the first
frame waits for the app's imports, and shows none of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen, ScreenResultCallbackType

from cctui.core import AssistantTextEvent
from cctui.errors import CctuiError
from cctui.history.models import SearchHit
from cctui.tui.screens.ask import AskScreen

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

R = TypeVar("R")
"""What a screen gives back when it closes."""


class Pages:
    """Opening the app's pages; composed into the app."""

    def __init__(self, app: CctuiApp) -> None:
        self._app = app

    def open_once(
        self,
        kind: type[Screen[R]],
        make: Callable[[], Screen[R]],
        callback: ScreenResultCallbackType[R] | None = None,
    ) -> None:
        """Push the screen ``make`` builds, unless one of ``kind`` is already open (its key
        pressed again, or from the palette under it)."""
        if not any(isinstance(s, kind) for s in self._app.screen_stack):
            self._app.push_screen(make(), callback=callback)

    def ask_then(self, question: AskScreen, then: Callable[[], object]) -> None:
        """Ask ``question``; run ``then`` on yes."""

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self._app.push_screen(question, callback=answered)

    def _directory(self) -> Path:
        """The session on screen's directory, else the configured default, else here."""
        app = self._app
        row = app.main.sessions.row(app.main.current_session_id or "")
        if row is not None and row.cwd is not None and row.cwd.is_dir():
            return row.cwd
        return app.settings.default_cwd or Path(os.getcwd())

    # -- pages about the session on screen ------------------------------------------------

    def diff(self) -> None:
        from cctui.tui.screens.diff import DiffScreen  # here: see the module's note

        app = self._app
        session_id = app.session_keys.current()
        if session_id is None:
            return
        row = app.main.sessions.row(session_id)
        title = (row.title if row is not None else "") or session_id[:8]
        verbs, sid = app.session_keys.verbs_for(session_id)
        self.open_once(
            DiffScreen,
            lambda: DiffScreen(title, partial(verbs.diff, sid)),
            self._after_diff,
        )

    def _after_diff(self, _result: None) -> None:
        # Reading the diff may have found the worktree removed by hand (no event says so).
        self._app.main.catch_up(full=True)

    def rules(self) -> None:
        from cctui.tui.screens.rules import RulesScreen  # here: see the module's note

        directory = self._directory()
        self.open_once(RulesScreen, lambda: RulesScreen(self._app.manager, directory))

    def policy(self) -> None:
        from cctui.tui.screens.policy import PolicyScreen  # here: see the module's note

        directory = self._directory()
        session_id = self._app.main.current_session_id
        self.open_once(PolicyScreen, lambda: PolicyScreen(self._app.manager, directory, session_id))

    def peek(self) -> None:
        """Space on the list: the row's session, its requests and its last reply, without
        opening it."""
        app = self._app
        session_id = app.session_keys.row_under_cursor()
        row = app.main.sessions.row(session_id) if session_id else None
        if row is None:
            return
        app.main.looked_at(row.session_id)
        from cctui.tui.screens.peek import PeekScreen

        self.open_once(
            PeekScreen,
            lambda: PeekScreen(
                row,
                app.inbox.pending,
                config_dir=app.settings.claude_config_dir,
                own_reply=self._own_reply,
                remote_transcript=app.remote.transcript,
            ),
        )

    def _own_reply(self, session_id: str) -> tuple[str, datetime | None] | None:
        """The newest assistant text cctui's process of the session said (its buffered
        events), else its last result; None for a session cctui does not drive."""
        app = self._app
        if app.remote.locate(session_id) is not None:  # a host's: what was followed of it
            for event in reversed(app.remote.events(session_id).events):
                if isinstance(event, AssistantTextEvent) and event.text.strip():
                    return event.text, event.at
            return None
        try:
            page = app.manager.events(session_id)
            info = app.manager.get(session_id)
        except CctuiError:
            return None
        for event in reversed(page.events):
            if isinstance(event, AssistantTextEvent) and event.text.strip():
                return event.text, event.at
        return (info.last_result, info.last_activity) if info.last_result else None

    def refresh_peeks(self, session_ids: Iterable[str], *, reply: bool = False) -> None:
        """An open peek follows its session: its requests, its row, (``reply``) its reply."""
        from cctui.tui.screens.peek import PeekScreen

        wanted = set(session_ids)
        for screen in self._app.screen_stack:
            if isinstance(screen, PeekScreen) and screen.session_id in wanted:
                screen.reload()
                for row in self._app.source.own_rows([screen.session_id]):
                    screen.update_row(row)
                if reply:
                    screen.read_reply()

    # -- pages of their own ----------------------------------------------------------------

    def inbox(self) -> None:
        from cctui.tui.screens.inbox import InboxScreen

        app = self._app
        self.open_once(InboxScreen, lambda: InboxScreen(app.inbox.pending, app.describe_session))

    def projects(self) -> None:
        from cctui.tui.screens.projects import ProjectsScreen  # here: see the module's note

        app = self._app
        self.open_once(
            ProjectsScreen,
            lambda: ProjectsScreen(
                app.project_registry,
                app.source.rows(),
                default_root=app.settings.default_cwd or Path(os.getcwd()),
            ),
            self._filter_project,
        )

    def _filter_project(self, project_id: str | None) -> None:
        if project_id is not None:
            self._app.main.set_filter(f"project:{project_id}")

    def search(self) -> None:
        from cctui.tui.screens.search import SearchScreen  # here: see the module's note

        app = self._app
        self.open_once(
            SearchScreen,
            lambda: SearchScreen(app.source.index, remote=app.remote),
            self._open_hit,
        )

    def _open_hit(self, hit: SearchHit | None) -> None:
        if hit is not None:
            self._app.main.open_session(
                hit.session_id, at_message=(hit.message_uuid, hit.timestamp)
            )

    def dispatch(self) -> None:
        from cctui.tui.screens.dispatch import DispatchScreen  # here: see the module's note

        app = self._app
        self.open_once(
            DispatchScreen,
            lambda: DispatchScreen(
                app.manager, default_root=app.settings.default_cwd or Path(os.getcwd())
            ),
        )

    def usage(self) -> None:
        from cctui.tui.screens.usage import UsageScreen  # here: see the module's note

        app = self._app
        self.open_once(UsageScreen, lambda: UsageScreen(app.source.index, remote=app.remote))

    def metrics(self) -> None:
        from cctui.tui.screens.metrics import MetricsScreen  # here: see the module's note

        self.open_once(MetricsScreen, lambda: MetricsScreen(self._app.manager.read_metrics))

    def help(self) -> None:
        # Installed once: composing and styling the page again cost more than showing it.
        from cctui.tui.screens.help import HelpScreen  # here: see the module's note

        app = self._app
        if not app.is_screen_installed("help"):
            app.install_screen(HelpScreen(), "help")
        app.push_screen("help")
