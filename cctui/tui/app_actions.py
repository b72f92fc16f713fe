"""The app's keys and command palette: what each action asks of the core and the screens.

A base class of ``CctuiApp`` (like ``app_approvals.ApprovalEffects``) so the app module stays
about wiring.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from textual import work
from textual.app import SystemCommand
from textual.screen import Screen

from cctui.config import Settings
from cctui.errors import CctuiError
from cctui.projects import ProjectRegistry
from cctui.tui.app_approvals import ApprovalEffects
from cctui.tui.messages import OpenSession
from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.metrics import MetricsScreen
from cctui.tui.screens.new_session import NewSessionRequest, NewSessionScreen
from cctui.tui.screens.projects import ProjectsScreen
from cctui.tui.sources import SessionSource


class KeyActions(ApprovalEffects):
    """Every ``action_*`` of the app's bindings, and the palette's commands."""

    settings: Settings
    source: SessionSource
    project_registry: ProjectRegistry

    @property
    def main(self) -> MainScreen:
        raise NotImplementedError

    def action_new_session(self) -> None:
        cwd = self.settings.default_cwd or Path(os.getcwd())
        row = self.main.sessions.row(self.main.current_session_id or "")
        if row is not None and row.cwd is not None and row.cwd.is_dir():
            cwd = row.cwd  # most new sessions continue in the project already on screen
        screen = NewSessionScreen(
            cwd=cwd,
            permission_mode=self.settings.default_permission_mode or "default",
            templates=self.settings.templates,
        )
        self.push_screen(screen, callback=self._create)

    def _create(self, request: NewSessionRequest | None) -> None:
        if request is not None:
            self.create_session(request)
        self.call_later(self.pump_approvals)

    @work(group="sessions", exit_on_error=False)
    async def create_session(self, request: NewSessionRequest) -> None:
        """Start a session and show it."""
        try:
            # The config's defaults, the project's launch prefix and the template, under
            # what the form shows.
            shown = request.config.model_dump(
                include={"model", "permission_mode"}, exclude_none=True
            )
            config = self.manager.default_config(
                request.config.cwd, template=request.template, **shown
            )
            info = await self.manager.create(request.prompt, config)
        except CctuiError as exc:
            self.notify(exc.message, title="Could not start the session", severity="error")
            return
        self.post_message(OpenSession(info.session_id))

    @work(group="sessions", exit_on_error=False)
    async def send_message(self, session_id: str, text: str) -> None:
        """Send ``text``; an ended session is resumed by the core."""
        try:
            await self.manager.send(session_id, text)
        except CctuiError as exc:
            self.notify(exc.message, title="Not sent", severity="error")

    def _current(self) -> str | None:
        session_id = self.main.current_session_id
        if session_id is None:
            self.notify("Select a session first.", severity="warning")
        return session_id

    @work(group="sessions", exit_on_error=False)
    async def action_interrupt(self) -> None:
        session_id = self._current()
        if session_id is None:
            return
        try:
            await self.manager.interrupt(session_id)
        except CctuiError as exc:
            self.notify(exc.message, title="Not interrupted", severity="error")
            return
        self.notify("Interrupted the current turn.")

    @work(group="sessions", exit_on_error=False)
    async def action_kill(self) -> None:
        session_id = self._current()
        if session_id is None:
            return
        try:
            await self.manager.kill(session_id)
        except CctuiError as exc:
            self.notify(exc.message, title="Not killed", severity="error")
            return
        self.notify("Session ended. Send it a message to resume it.")

    def action_inbox(self) -> None:
        if any(isinstance(s, InboxScreen) for s in self.screen_stack):
            return
        self.push_screen(
            InboxScreen(self.manager.pending, self.describe_session), callback=self._pump_after
        )

    def action_filter(self) -> None:
        self.main.start_filter()

    def action_projects(self) -> None:
        if not any(isinstance(s, ProjectsScreen) for s in self.screen_stack):
            screen = ProjectsScreen(self.project_registry, self.source.rows())
            self.push_screen(screen, callback=self._filter_project)

    def _filter_project(self, project_id: str | None) -> None:
        if project_id is not None:
            self.main.set_filter(f"project:{project_id}")
        self.call_later(self.pump_approvals)

    def action_metrics(self) -> None:
        if not any(isinstance(s, MetricsScreen) for s in self.screen_stack):
            self.push_screen(
                MetricsScreen(self.manager.metrics_snapshot), callback=self._pump_after
            )

    def action_help(self) -> None:
        # Installed once: composing and styling the page again cost more than showing it.
        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        self.push_screen("help", callback=self._pump_after)

    def _pump_after(self, _result: None) -> None:
        # A modal queued while a form or help page was open may pop now.
        self.call_later(self.pump_approvals)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "New session", "Start a Claude Code session (n)", self.action_new_session
        )
        yield SystemCommand("Approvals inbox", "Everything waiting for you (a)", self.action_inbox)
        yield SystemCommand("Interrupt session", "Stop the current turn (i)", self.action_interrupt)
        yield SystemCommand("Kill session", "End the session's process (k)", self.action_kill)
        yield SystemCommand("Filter sessions", "By text, project:, status: (/)", self.action_filter)
        yield SystemCommand(
            "Projects", "Registered projects, filter by one (p)", self.action_projects
        )
        yield SystemCommand("Metrics", "Sessions, MCP calls, latency (m)", self.action_metrics)
        yield SystemCommand("Keys", "Every key on one page (?)", self.action_help)
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
