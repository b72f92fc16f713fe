"""CctuiApp: wiring only. Screens draw, the bridge feeds them, the core does the work."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, deque
from collections.abc import Callable, Sequence
from importlib.resources import files
from pathlib import Path, PurePath
from typing import ClassVar

from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.screen import Screen

from cctui.config import Settings
from cctui.core import PendingInput, SessionManager
from cctui.core.services import Service
from cctui.errors import CctuiError
from cctui.history import HistoryIndex
from cctui.projects import ProjectRegistry
from cctui.tui import format as fmt
from cctui.tui.app_actions import KeyActions
from cctui.tui.approvals import ApprovalQueue
from cctui.tui.bridge import EventBridge
from cctui.tui.gc_pause import GcPacer
from cctui.tui.messages import InputRequested, InputResolved, OpenSession, SessionsActivity
from cctui.tui.notify import desktop_notification
from cctui.tui.screens.approval import ApprovalScreen
from cctui.tui.screens.confirm import ConfirmScreen
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.sources import SessionSource
from cctui.tui.widgets.session_pane import SessionPane
from cctui.tui.widgets.transcript import Transcript

log = logging.getLogger(__name__)

STYLESHEETS = (
    "app.tcss",
    "main.tcss",
    "approval.tcss",
    "inbox.tcss",
    "new_session.tcss",
    "help.tcss",
    "projects.tcss",
    "metrics.tcss",
)

SHUTDOWN_TIMEOUT_S = 10.0
"""Quitting never hangs longer than this on a stuck session or service."""


def stylesheet_paths() -> list[str | PurePath]:
    """The .tcss files, wherever the package is installed (``styles/`` maps to cctui.styles)."""
    root = files("cctui.styles")
    return [Path(str(root / name)) for name in STYLESHEETS]


class CctuiApp(KeyActions):
    """The control room: a session list, live panes, approval modals and one inbox."""

    TITLE = "cctui"
    CSS_PATH = stylesheet_paths()
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_session", "New"),
        Binding("a", "inbox", "Approvals"),
        Binding("i", "interrupt", "Interrupt"),
        Binding("k", "kill", "Kill"),
        Binding("slash", "filter", "Filter"),
        Binding("p", "projects", "Projects", show=False),
        Binding("m", "metrics", "Metrics", show=False),  # on the help page and palette
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        settings: Settings,
        manager: SessionManager,
        *,
        services: Sequence[Service] = (),
        history: HistoryIndex | None = None,
        project_registry: ProjectRegistry | None = None,
        pace_gc: bool | None = None,
    ) -> None:
        super().__init__()
        self._pace_gc = pace_gc
        self.gc = GcPacer()
        self.settings = settings
        self.manager = manager
        self.services = tuple(services)
        self.source = SessionSource(settings, manager, history)
        self.approvals = ApprovalQueue()
        self._modal: ApprovalScreen | ConfirmScreen | None = None
        self.alerts: deque[str] = deque(maxlen=50)
        """Desktop notifications sent (newest last); tests read it, nothing else does."""
        self._bridge = EventBridge(manager, self)
        self.project_registry = project_registry or ProjectRegistry(settings.projects_file)
        self._detach_human: Callable[[], None] | None = None
        self._started: list[Service] = []
        self._shut_down = False
        self._stop_watching = asyncio.Event()
        self.history_loaded = asyncio.Event()
        """Set once the list holds Claude Code's sessions from disk (the first index read)."""
        self._problems_shown: list[str] = []
        """``manager.problems`` as last notified (new ones are looked for every tick)."""

    # -- life cycle ----------------------------------------------------------------------

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(
            self.manager, self.settings, self.source, self.service_lines, self.project_registry
        )

    @property
    def main(self) -> MainScreen:
        """The main screen (always at the bottom of the stack)."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    async def on_mount(self) -> None:
        self._bridge.start()
        # Confirmations (e.g. overwrite a project file?) may now wait for this human.
        self._detach_human = self.manager.decisions.attach_human()
        for service in self.services:
            try:
                await service.start()
                self._started.append(service)
            except CctuiError as exc:
                self.notify(exc.message, title="Service not started", severity="error", timeout=15)
            except Exception as exc:
                log.exception("service failed to start")
                self.notify(
                    f"{type(exc).__name__}: {exc}",
                    title="Service not started",
                    severity="error",
                    timeout=15,
                )
        self._show_new_problems()  # e.g. a damaged registry set aside
        # The main screen composes after this handler; queue what needs it for later.
        self.call_after_refresh(self.enqueue_existing)
        self.watch_history()
        # Service status lines (e.g. MCP clients connecting) change without core events.
        self.set_interval(1.0, self._tick)

    @work(group="history", exit_on_error=False)
    async def watch_history(self) -> None:
        """Keep the list in step with Claude Code's files (new sessions, new activity)."""
        async for _change in self.source.watch(self._stop_watching):
            if self.is_running and self.main.is_mounted:
                self.main.reload()
            # Not mounted yet: the main screen reads the rows when it mounts.
            if not self.history_loaded.is_set() and self._gc_paced:
                self.gc.start()  # the heap is mostly built now: the list is filled
            self.history_loaded.set()
        self.history_loaded.set()  # the watcher failed or stopped: the list is what it is

    @property
    def _gc_paced(self) -> bool:
        # Off in headless test apps unless asked for: freezing is process-wide.
        return not self.is_headless if self._pace_gc is None else self._pace_gc

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self.gc.input_seen()
        await super().on_event(event)

    def _show_new_problems(self) -> None:
        """Notify the core's problems that appeared since the last look (a registry set aside
        at start-up, an audit line that could not be written mid-run)."""
        problems = self.manager.problems
        # Only a new entry is news: a problem that rewords itself (the audit log's count of
        # lost lines) would otherwise raise a toast every second while writes keep failing.
        if len(problems) == len(self._problems_shown):
            return
        shown = Counter(self._problems_shown)
        for problem in problems:
            if shown[problem] > 0:
                shown[problem] -= 1
            else:
                self.notify(problem, title="cctui", severity="warning", timeout=30)
        self._problems_shown = problems

    def _tick(self) -> None:
        self._show_new_problems()
        if self._gc_paced:
            self.gc.tick()
        if self.is_running and self.main.is_mounted and self.main.on_top:
            self.main.refresh_status()

    async def settle(self) -> None:
        """Draw everything the core has published so far, now, and let every streamed reply
        finish drawing. For tests, snapshots and the benchmark: no timer is involved, so what
        is on screen afterwards does not depend on how loaded the machine is."""
        self._bridge.flush()
        main = self.main
        main.catch_up(full=True)
        await main.pane.query_one(Transcript).settle()

    async def action_quit(self) -> None:
        """Sessions first (no claude child may outlive cctui), then services, then exit."""
        self.notify("Stopping sessions…", timeout=SHUTDOWN_TIMEOUT_S)
        await self._stop_everything()
        self.exit()

    async def _stop_everything(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        self._bridge.stop()
        if self._detach_human is not None:
            self._detach_human()
        self._stop_watching.set()
        try:
            await asyncio.wait_for(self.manager.shutdown(), SHUTDOWN_TIMEOUT_S)
        except Exception:
            log.exception("manager shutdown failed")
        for service in reversed(self._started):
            try:
                await asyncio.wait_for(service.stop(), SHUTDOWN_TIMEOUT_S)
            except Exception:
                log.exception("service stop failed")

    async def on_unmount(self) -> None:
        # Exits that skip action_quit (signals, ctrl+c paths) still end every session.
        await self._stop_everything()
        if self._gc_paced:
            self.gc.stop()

    # -- what other parts of the TUI ask of the app ---------------------------------------

    def main_screen_on_top(self) -> bool:
        """True when nothing (modal, form, help) covers the main screen."""
        return isinstance(self.screen, MainScreen)

    def service_lines(self) -> list[str]:
        """Each service's one-line status, never raising."""
        lines = []
        for service in self.services:
            try:
                lines.append(service.status_line())
            except Exception:
                log.exception("status_line failed")
        return lines

    def describe_session(self, session_id: str) -> str:
        """``project · title`` of a session, for modal and inbox context."""
        row = self.main.sessions.row(session_id)
        if row is None:
            try:
                info = self.manager.get(session_id)
            except CctuiError:  # a confirmation's subject ("project:web") is not a session
                return session_id if session_id.startswith("project:") else session_id[:8]
            return " · ".join(
                b
                for b in (
                    fmt.project_name(info.config.cwd, info.config.project),
                    fmt.one_line(info.title or "", 60),
                )
                if b
            )
        return " · ".join(b for b in (row.project, fmt.one_line(row.title, 60)) if b)

    def alert_waiting(self, pending: PendingInput) -> None:
        """Bell + desktop notification: a session now waits for the human."""
        what = {
            "plan_review": "a plan to review",
            "user_question": "a question",
            "confirmation": f"a confirmation ({pending.tool_name})",
        }.get(pending.kind, f"permission for {pending.tool_name}")
        body = f"{self.describe_session(pending.session_id)} needs {what}"
        sequence = desktop_notification("cctui", body)
        self.alerts.append(body)
        self.bell()
        if not self.is_headless and self._driver is not None:
            self._driver.write(sequence)

    def refresh_inbox(self) -> None:
        """Reload the inbox if it is open."""
        for screen in self.screen_stack:
            if isinstance(screen, InboxScreen):
                screen.reload()

    # -- bridge messages -----------------------------------------------------------------

    # Core events keep arriving while the app shuts down (the sessions are being stopped);
    # once Textual starts tearing the screens down there is nothing left to update.

    @on(SessionsActivity)
    def _activity(self, message: SessionsActivity) -> None:
        if self.is_running:
            self.main.activity(message)

    @on(InputRequested)
    def _input_requested(self, message: InputRequested) -> None:
        if self.is_running:
            self.input_requested(message.pending)
            self.refresh_inbox()

    @on(InputResolved)
    def _input_resolved(self, message: InputResolved) -> None:
        if self.is_running:
            self.input_resolved(message)
            self.refresh_inbox()

    @on(SessionPane.Send)
    def _send(self, event: SessionPane.Send) -> None:
        self.send_message(event.session_id, event.text)

    @on(OpenSession)
    def _open(self, message: OpenSession) -> None:
        self.main.open_session(message.session_id, focus_input=message.focus_input)

    @on(InboxScreen.Answer)
    def _inbox_answer(self, message: InboxScreen.Answer) -> None:
        pending = {p.id: p for p in self.manager.pending()}.get(message.input_id)
        if pending is None:
            self.notify("That request was already answered.", severity="warning")
            self.refresh_inbox()
        elif message.decision is None or pending.kind == "confirmation":
            self.open_approval(pending)  # a confirmation's choice is made in its modal
        else:
            self.answer(pending.id, message.decision)
            self.refresh_inbox()
