"""CctuiApp: the wiring, and what each app key does. Screens draw, the bridge feeds them,
the inbox shows what waits for the human, the core does the work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from functools import partial
from importlib.resources import files
from pathlib import Path, PurePath
from typing import ClassVar, TypeVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen, ScreenResultCallbackType
from textual.theme import Theme

from cctui.config import Settings
from cctui.core import (
    BUSY,
    LIVE,
    AssistantTextEvent,
    SessionStatus,
)
from cctui.core.api import CoreApi, SessionVerbs
from cctui.core.hosted import HostedService
from cctui.errors import CctuiError
from cctui.history.models import SearchHit
from cctui.remote.hosts import Host, HostChange, Hosts
from cctui.remote.verbs import HostVerbs
from cctui.services import WindowServices
from cctui.tui import format as fmt
from cctui.tui import gc_pause, keymap
from cctui.tui.alerts import Alerts
from cctui.tui.bridge import EventBridge
from cctui.tui.gc_pause import GcPacer
from cctui.tui.inbox import Inbox
from cctui.tui.messages import (
    FirstFrame,
    HostsChanged,
    InputRequested,
    InputResolved,
    OpenSession,
    SessionsActivity,
)
from cctui.tui.prefs import Prefs
from cctui.tui.remote import RemoteView, host_line, key_of
from cctui.tui.screens.ask import AskScreen
from cctui.tui.screens.diff import DiffScreen
from cctui.tui.screens.dispatch import DispatchScreen
from cctui.tui.screens.finish import Choice, FinishScreen
from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.metrics import MetricsScreen
from cctui.tui.screens.model import ModelScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.screens.peek import PeekAsk, PeekScreen
from cctui.tui.screens.policy import PolicyScreen
from cctui.tui.screens.projects import ProjectsScreen
from cctui.tui.screens.quit import Leaving, QuitScreen
from cctui.tui.screens.rewind import RewindScreen
from cctui.tui.screens.rules import RulesScreen
from cctui.tui.screens.search import SearchScreen
from cctui.tui.screens.usage import UsageScreen
from cctui.tui.sources import SessionSource
from cctui.tui.starts import SessionStarts
from cctui.tui.takeover import TakeOver
from cctui.tui.widgets.event_lines import PromptBlock
from cctui.tui.widgets.session_pane import SessionPane

R = TypeVar("R")
"""What a screen gives back when it closes."""
T = TypeVar("T")
"""What a core verb returns."""

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT_S = 10.0
"""Quitting never hangs longer than this on a stuck session or service."""


def stylesheet_paths() -> list[str | PurePath]:
    """Every .tcss file of the styles package (``styles/``, installed as cctui.styles), the
    globals in ``app.tcss`` first. Found, not listed: a new screen's file is picked up."""
    sheets = [Path(str(f)) for f in files("cctui.styles").iterdir() if f.name.endswith(".tcss")]
    return [*sorted(sheets, key=lambda path: (path.name != "app.tcss", path.name))]


class CctuiApp(App[None]):
    """The control room: a session list, live panes, pending inputs' modals and one inbox."""

    TITLE = "cctui"
    CSS_PATH = stylesheet_paths()
    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings(keymap.APP)

    def __init__(
        self,
        settings: Settings,
        services: WindowServices,
        *,
        hosted: Sequence[HostedService] = (),
        pace_gc: bool | None = None,
        hosts: Hosts | None = None,
        attached: str | None = None,
    ) -> None:
        """``services``: the core, history and projects (``cctui.services``, built by the
        composition root); ``hosted``: what the app runs in its loop after its first frame
        (the MCP server over HTTP)."""
        super().__init__()
        self._pace_gc = pace_gc
        self.gc = GcPacer()
        self.settings = settings
        manager = services.manager
        self.manager: CoreApi = manager
        """The window's one door to the core."""
        self.hosted = tuple(hosted)
        self.remote = RemoteView(hosts)
        """Other machines' sessions (``[[hosts]]``); their links start after the first frame."""
        self.source = SessionSource(settings, manager, services.history, self.remote)
        self.inbox = Inbox(self, manager, self.remote)
        self._bridge = EventBridge(manager, self)
        self.project_registry = services.registry
        """The TUI's one registry: the main screen's filter and the projects page read it."""
        self._detach_human: Callable[[], None] | None = None
        self._shut_down = False
        self.attached = attached
        """A window on sessions another cctui owns (quitting leaves them running there):
        the banner under the list says so; None for the window that owns them."""
        self.hung_up = False
        """The terminal hung up (closed, SSH dropped): the window did not choose to leave."""
        self.leaving: Leaving = "end"
        """What closing the window does to the sessions; ``background`` leaves them running
        in this process for the composition root to serve headless."""
        self._stop_watching = asyncio.Event()
        self.history_loaded = asyncio.Event()
        """Set once the list holds Claude Code's sessions from disk (the first index read)."""
        self._problems_shown: list[str] = []
        """``manager.problems`` as last notified (new ones are looked for every tick)."""
        self.starts = SessionStarts(self)
        """``n``: the new-session form and what it starts."""
        self.takeover = TakeOver(self)
        """``o``: a session handed to Claude Code's own terminal UI, and back."""
        self._stop_hosts: Callable[[], None] = lambda: None
        self.alerts = Alerts(self)
        """Notifications: which session needs you, why, what it asks (``[notify]``)."""
        self.prefs = Prefs(settings.state_dir)
        """What the window remembers between runs (the palette's theme)."""
        theme = self.prefs.theme
        if theme is not None and theme in self.available_themes:
            self.theme = theme  # before the first frame: no restyle after it
        elif theme is not None:
            log.warning("theme %r is not one this Textual has: the default holds", theme)

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
        # Before the first frame: the list shows every session the index file knows at once.
        self.source.load_now()
        self._bridge.start()
        # Confirmations (e.g. overwrite a project file?) may now wait for this human.
        self._detach_human = self.manager.decisions.attach_human()
        self._show_new_problems()  # e.g. a damaged registry set aside
        # The main screen composes after this handler; queue what needs it for later.
        self.call_after_refresh(self.inbox.enqueue_existing)
        self.watch_history()
        # Hosted services' status lines (e.g. MCP clients connecting) change without core events.
        self.set_interval(1.0, self._tick)
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        if self.attached is not None:
            self.call_after_refresh(self._show_attached)

    def _keep_theme(self, theme: Theme) -> None:
        try:
            self.prefs.set_theme(theme.name)
        except OSError as exc:
            self.notify(f"The theme is not kept for the next run: {exc}", severity="warning")

    def _show_attached(self) -> None:
        left = self.main.query_one("#left")
        left.border_subtitle = self.attached
        left.add_class("-attached")

    def on_first_frame(self, _: FirstFrame) -> None:
        gc_pause.release()  # held by the composition root while starting
        self.start_services()
        hosts = self.remote.hosts
        if hosts and not self._shut_down:
            # Each host's link runs on its own; its changes come back as messages.
            def post(change: HostChange) -> None:
                self.post_message(HostsChanged(change))

            self._stop_hosts = hosts.subscribe(post)
            hosts.start()

    @work(group="services", exit_on_error=False)
    async def start_services(self) -> None:
        """Start the hosted services, after the first frame: the MCP server takes a second
        to import and build, which a person spends reading the list."""
        for service in self.hosted:
            if self._shut_down:
                return
            try:
                await service.start()
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
        if not self._shut_down:
            self.main.refresh_status()  # "MCP starting…" becomes its address now, not in a second

    @work(group="history", exit_on_error=False)
    async def watch_history(self) -> None:
        """Keep the list in step with Claude Code's files (new sessions, new activity)."""
        async for change in self.source.watch(self._stop_watching):
            if self.is_running and self.main.is_mounted:
                self.main.history_changed(change)
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
        if self.is_running and self.main.is_mounted:
            self.alerts.tick()
            self.alerts.publish_summary()
        if self._gc_paced:
            self.gc.tick()
        if self.is_running and self.main.is_mounted and self.main.on_top:
            self.main.tick()

    async def settle(self) -> None:
        """Draw everything the core has published so far, now. For tests, snapshots and the
        benchmark: no timer is involved, so what is on screen afterwards does not depend on
        how loaded the machine is."""
        self._bridge.flush()
        self.main.catch_up(full=True)
        self.main.tick()  # ages too: what the one-second tick would draw next

    def working_sessions(self) -> list[str]:
        """``project · title`` of every session with a turn in flight (leaving ends work)."""
        return [
            self.describe_session(info.session_id)
            for info in self.manager.list()
            if info.status in BUSY
        ]

    async def action_quit(self) -> None:
        """Quit; sessions still working are kept in the background or ended, as the config's
        ``on_quit`` says (``ask``: the quit modal). Ending: sessions first (no claude child may
        outlive cctui), then services, then exit."""
        if self.attached:  # the sessions are the owner's: they stay with it
            await self.leave("end")
            return
        working = self.working_sessions()
        waiting = self.manager.dispatch.waiting_work()
        if not working and not waiting:
            await self.leave("end")
        elif self.settings.on_quit == "ask":
            self._open_once(QuitScreen, lambda: QuitScreen(working, waiting), self._quit_chosen)
        else:
            await self.leave(self.settings.on_quit)

    async def _quit_chosen(self, choice: Leaving | None) -> None:
        if choice is not None:
            await self.leave(choice)

    async def leave(self, how: Leaving) -> None:
        """Close the window: ``end`` every session first, or keep them running in this
        process (``background``: the composition root carries on headless once the app has
        exited; nothing is stopped here)."""
        self.leaving = how
        if how == "background":
            self._let_go()
        else:
            if not self.attached:
                self.notify("Stopping sessions…", timeout=SHUTDOWN_TIMEOUT_S)
            await self._stop_everything()
        self.exit()

    def hang_up(self) -> None:
        """The terminal hung up (SIGHUP: closed, SSH dropped): keep every live session
        running in the background, or end as ``q`` would with nothing to keep.

        Called from the signal handler itself, it only decides; the loop then runs
        :meth:`after_hang_up`. The decision cannot wait for the loop: the input thread sees
        the dead terminal too and may close the app (Textual's panic) first, and closing
        without a decision ends every session."""
        if self.leaving == "background" or self._shut_down:
            return
        self.hung_up = True
        if any(info.status in LIVE for info in self.manager.list()) or (
            not self.attached and self.manager.dispatch.waiting_work()
        ):
            self.leaving = "background"

    def after_hang_up(self) -> None:
        """Close the window after :meth:`hang_up` decided."""
        if self.leaving == "background":
            self._let_go()
        self.exit()

    def _let_go(self) -> None:
        """What the window alone held: its view of the events, its human, its watcher."""
        self._bridge.stop()
        if self._detach_human is not None:
            self._detach_human()
        self._stop_watching.set()

    async def _stop_everything(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        self._let_go()
        await self._close_hosts()
        try:
            await asyncio.wait_for(self.manager.shutdown(), SHUTDOWN_TIMEOUT_S)
        except Exception:
            log.exception("manager shutdown failed")
        self.workers.cancel_group(self, "services")
        await self.alerts.sinks.close()
        self.alerts.remove_summary()
        # Every service, not only the started ones: one may be cancelled half-way (stop is
        # idempotent and stops what did start).
        for service in reversed(self.hosted):
            try:
                await asyncio.wait_for(service.stop(), SHUTDOWN_TIMEOUT_S)
            except Exception:
                log.exception("service stop failed")

    async def _close_hosts(self) -> None:
        """End every host's link (its command too): the window held them, not the sessions."""
        if self.remote.hosts:
            self._stop_hosts()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.remote.hosts.stop(), SHUTDOWN_TIMEOUT_S)

    async def on_unmount(self) -> None:
        # Exits that skip action_quit (signals, ctrl+c paths) still end every session,
        # unless the window leaves them running in the background.
        if self.leaving == "background":
            self._let_go()
            await self._close_hosts()
        else:
            await self._stop_everything()
        if self._gc_paced:
            self.gc.stop()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast is plain text. Its words come from sessions, users, paths, rules and
        errors (a prompt ``[[bash cmd=python3 -V]]`` crashed Textual's markup parser, and
        ``[x]`` vanished from a rule): none of them may be read as markup. ``markup`` is
        ignored because Textual's ``Widget.notify`` passes True for every screen's toast."""
        del markup
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # -- what other parts of the TUI ask of the app ---------------------------------------

    def main_screen_on_top(self) -> bool:
        """True when nothing (modal, form, help) covers the main screen."""
        return isinstance(self.screen, MainScreen)

    def service_lines(self) -> list[str]:
        """Each service's one-line status, and each host's, never raising."""
        lines = [host_line(h.status()) for h in self.remote.all()]
        for service in self.hosted:
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
        return " · ".join(b for b in (row.host, row.project, fmt.one_line(row.title, 60)) if b)

    # -- bridge messages -----------------------------------------------------------------

    # Core events keep arriving while the app shuts down (the sessions are being stopped);
    # once Textual starts tearing the screens down there is nothing left to update.

    @on(SessionsActivity)
    def _activity(self, message: SessionsActivity) -> None:
        if self.is_running:
            self.main.activity(message)
            if message.list_changed:
                self._refresh_peeks(message.session_ids, reply=True)

    @on(HostsChanged)
    def _host_changed(self, message: HostsChanged) -> None:
        if not self.is_running:
            return
        change = message.change
        self.main.hosts_changed(change.host, change.sessions)
        host = self.remote.host(change.host)
        if host is None:
            return
        for item in change.requested:
            self.inbox.requested(self.remote.keyed(host, item))
        for input_id in change.resolved:
            key = self.remote.input_key(input_id) or ""
            found = self.remote.locate(key)
            by = self.remote.decided_by(host, found[1], input_id) if found else host.name
            self.inbox.resolved(InputResolved(input_id, key, "answered", by, ""))
        for note in change.notes:
            self.notify(note, title=f"Answer on {change.host}", timeout=20)
        if change.requested or change.resolved:
            self._refresh_peeks({self.remote.input_key(i) or "" for i in change.resolved})

    @on(InputRequested)
    def _input_requested(self, message: InputRequested) -> None:
        if self.is_running:
            self.inbox.requested(message.pending)
            self._refresh_peeks({message.pending.session_id})

    @on(InputResolved)
    def _input_resolved(self, message: InputResolved) -> None:
        if self.is_running:
            self.inbox.resolved(message)
            self._refresh_peeks({message.session_id})

    def _refresh_peeks(self, session_ids: Iterable[str], *, reply: bool = False) -> None:
        """An open peek follows its session: its requests, its row, (``reply``) its reply."""
        wanted = set(session_ids)
        for screen in self.screen_stack:
            if isinstance(screen, PeekScreen) and screen.session_id in wanted:
                screen.reload()
                for row in self.source.own_rows([screen.session_id]):
                    screen.update_row(row)
                if reply:
                    screen.read_reply()

    @on(SessionPane.Send)
    def _send(self, event: SessionPane.Send) -> None:
        self.send_message(event.session_id, event.text)

    @on(PromptBlock.Rewind)
    def _rewind(self, message: PromptBlock.Rewind) -> None:
        session_id = self._current()
        if session_id is not None:
            self.preview_rewind(session_id, message.prompt_id)

    @work(group="rewind", exclusive=True, exit_on_error=False)
    async def preview_rewind(self, session_id: str, prompt_id: str) -> None:
        """Ask the core what a rewind to before ``prompt_id`` would change, then confirm."""
        verbs, sid = self._verbs_for(session_id)
        try:
            preview = await verbs.rewind_files(sid, prompt_id=prompt_id, dry_run=True, by="tui")
            row = self.main.sessions.row(session_id)
            found = row.cwd if row is not None and row.host is not None else None
            cwd = found or self.manager.get(sid).config.cwd
        except CctuiError as exc:
            self.notify(exc.message, title="Cannot rewind", severity="error", timeout=10)
            return
        screen = RewindScreen(preview, context=self.describe_session(session_id), cwd=cwd)
        self.push_screen(screen, callback=partial(self._rewind_confirmed, session_id, prompt_id))

    def _rewind_confirmed(self, session_id: str, prompt_id: str, go: bool | None) -> None:
        if go:
            self.rewind_files(session_id, prompt_id)

    @work(group="rewind", exit_on_error=False)
    async def rewind_files(self, session_id: str, prompt_id: str) -> None:
        """Put the files back (the core dry-runs again first: they may have changed)."""
        verbs, sid = self._verbs_for(session_id)
        done = await self._verb(
            "Not rewound", verbs.rewind_files(sid, prompt_id=prompt_id, by="tui")
        )
        if done is None:
            return
        files = len(done.files)
        where = f"prompt {done.prompt.index}" if done.prompt else "that prompt"
        self.notify(
            f"{files} file{'s' if files != 1 else ''} put back as before {where}. "
            "The conversation is not rewound: tell Claude what changed.",
            title="Files rewound",
        )

    @on(OpenSession)
    def _open(self, message: OpenSession) -> None:
        self.main.open_session(message.session_id, focus_input=message.focus_input)

    @on(InboxScreen.Answer)
    def _inbox_answer(self, message: InboxScreen.Answer) -> None:
        self.inbox.from_inbox(message)

    @on(PeekAsk.Answer)
    def _peek_answer(self, message: PeekAsk.Answer) -> None:
        if message.decision is None:
            self.inbox.open(message.pending)  # over the peek; back to it afterwards
        else:
            self.inbox.answer(message.pending.id, message.decision)
        self._refresh_peeks({message.pending.session_id})

    @on(PeekScreen.Reply)
    def _peek_reply(self, message: PeekScreen.Reply) -> None:
        self.send_message(message.session_id, message.text)
        self.notify(f"Sent to {self.describe_session(message.session_id)}.")

    # -- the app's keys (keymap.py binds them, lists them on the help page and the palette) -

    def action_new_session(self) -> None:
        self.starts.open_form()

    @on(NewSessionScreen.Likely)
    def _prewarm(self, message: NewSessionScreen.Likely) -> None:
        self.starts.prewarm(message.form)

    @work(group="sessions", exit_on_error=False)
    async def send_message(self, session_id: str, text: str) -> None:
        """Send ``text``; an ended session is resumed by the core (a host's, by its host's)."""
        await self._on_session(
            "Not sent",
            session_id,
            partial(self.manager.send, text=text),
            lambda host, sid: host.send(sid, text),
        )

    def _current(self) -> str | None:
        """The session the user is looking at (a host's by its key), or None with a notice."""
        session_id = self.main.current_session_id
        if session_id is None:
            starting = self.main.pane.starting
            self.notify(
                "It is still starting (its claude process is not up yet): try again in a moment."
                if starting
                else "Select a session first.",
                severity="warning",
            )
            return None
        return session_id

    def _verbs_for(self, session_id: str) -> tuple[SessionVerbs, str]:
        """The core a session's verbs (diff, finish, fork, rewind, mode, model) run on, and
        its id there: this machine's, or a host's own core through its link."""
        found = self.remote.locate(session_id)
        if found is None:
            return self.manager, session_id
        host, sid = found
        return HostVerbs(host.core_call), sid

    @work(group="sessions", exit_on_error=False)
    async def action_interrupt(self) -> None:
        session_id = self._current()
        if session_id is None:
            return
        if await self._on_session(
            "Not interrupted", session_id, self.manager.interrupt, Host.interrupt
        ):
            self.notify("Interrupted the current turn.")

    def action_kill(self) -> None:
        """``ctrl+k``: end the session's process; asks first while a turn runs (the turn is
        lost; an idle session loses nothing, a message resumes it)."""
        session_id = self._current()
        if session_id is None:
            return
        found = self.remote.locate(session_id)
        try:
            if found is not None:
                row = self.main.sessions.row(session_id)
                status = SessionStatus(row.status) if row is not None else None
            else:
                status = self.manager.get(session_id).status
        except (CctuiError, ValueError):
            status = None  # not cctui's: kill says why not
        if status not in (SessionStatus.RUNNING, SessionStatus.WAITING_FOR_INPUT):
            self.kill(session_id)
            return
        waits = " What it waits for is withdrawn." if self.inbox.pending(session_id) else ""
        self._ask_then(
            AskScreen(
                "Kill this session?",
                f"{self.describe_session(session_id)} is in the middle of a turn: ending its "
                f"process stops the turn where it is.{waits} A message resumes the session "
                "later.",
                yes="kill it",
            ),
            partial(self.kill, session_id),
        )

    def _ask_then(self, question: AskScreen, then: Callable[[], object]) -> None:
        """Ask ``question``; run ``then`` on yes."""

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(question, callback=answered)

    @work(group="sessions", exit_on_error=False)
    async def kill(self, session_id: str) -> None:
        """End the session's process (it stays resumable; a host's, on its host)."""
        if await self._on_session("Not killed", session_id, self.manager.kill, Host.kill):
            self.notify("Session ended. Send it a message to resume it.")

    def action_diff(self) -> None:
        session_id = self._current()
        if session_id is None:
            return
        row = self.main.sessions.row(session_id)
        title = (row.title if row is not None else "") or session_id[:8]
        verbs, sid = self._verbs_for(session_id)
        self._open_once(
            DiffScreen,
            lambda: DiffScreen(title, partial(verbs.diff, sid)),
            self._after_diff,
        )

    def _after_diff(self, _result: None) -> None:
        # Reading the diff may have found the worktree removed by hand (no event says so).
        self.main.catch_up(full=True)

    @work(group="sessions", exit_on_error=False)
    async def action_finish(self) -> None:
        session_id = self._current()
        if session_id is None:
            return
        verbs, sid = self._verbs_for(session_id)
        try:
            preview = await verbs.finish_preview(sid)
        except CctuiError as exc:
            self.notify(exc.message, title="Nothing to finish", severity="warning")
            return
        row = self.main.sessions.row(session_id)
        title = (row.title if row is not None else "") or session_id[:8]
        choice = await self.push_screen_wait(FinishScreen(preview, title))
        if choice is not None:
            await self._finish(session_id, choice)

    async def _finish(self, session_id: str, choice: Choice) -> None:
        action, force = choice
        title = {"merge": "Not merged", "keep": "Not kept"}.get(action, "Not discarded")
        verbs, sid = self._verbs_for(session_id)
        done = await self._verb(title, verbs.finish_worktree(sid, action, force=force))
        if done is None:
            return
        self.main.catch_up(full=True)  # the row's worktree state changed without an event
        self.notify(done.note, title="Worktree finished")

    def action_fork_worktree(self) -> None:
        """``w``: asks first; it makes a worktree, a branch and a new claude process."""
        session_id = self._current()
        if session_id is None:
            return
        self._ask_then(
            AskScreen(
                "Fork into a worktree?",
                f"A copy of {self.describe_session(session_id)} starts in a new git worktree "
                "of its project, on a new branch, with its own claude process. The session "
                "itself goes on as it is.",
                yes="fork it",
            ),
            partial(self.fork_worktree, session_id),
        )

    @work(group="sessions", exit_on_error=False)
    async def fork_worktree(self, session_id: str) -> None:
        """Fork the session into its own worktree and open the copy."""
        verbs, sid = self._verbs_for(session_id)
        info = await self._verb("Not forked", verbs.fork(sid, worktree=True))
        if info is None:
            return
        where = info.worktree.branch if info.worktree else "its worktree"
        self.notify(f"Forked into {where}. Type a message to start it.")
        found = self.remote.locate(session_id)
        key = key_of(found[0].name, info.session_id) if found else info.session_id
        for _ in range(100):  # a host's fork is listed here at its next look
            if found is None or self.main.sessions.row(key) is not None:
                self.post_message(OpenSession(key, focus_input=True))
                return
            await asyncio.sleep(0.05)

    @work(group="steer", exit_on_error=False)
    async def action_cycle_mode(self) -> None:
        """``shift+tab`` on the main screen (and the palette): the selected session's next
        permission mode, as in Claude Code."""
        session_id = self._current()
        if session_id is None:
            return
        verbs, sid = self._verbs_for(session_id)
        change = await self._verb("Mode not changed", verbs.cycle_permission_mode(sid))
        if change is None:
            return
        self.notify(change.note, title=f"Mode: {change.value}", timeout=3)
        self.main.catch_up()

    @work(group="steer", exit_on_error=False)
    async def action_pick_model(self) -> None:
        session_id = self._current()
        if session_id is None:
            return
        verbs, sid = self._verbs_for(session_id)
        try:
            current = self.manager.get(session_id).config.model if verbs is self.manager else None
        except CctuiError:
            current = None  # known from disk only: it joins cctui when switched
        offered = await self._verb("Model not changed", verbs.model_options(sid))
        if offered is None:
            return
        screen = ModelScreen(
            offered,
            current=current,
            context=self.describe_session(session_id),
        )
        self.push_screen(screen, callback=partial(self._model_chosen, session_id))

    def _model_chosen(self, session_id: str, model: str | None) -> None:
        if model is not None:
            self.set_model(session_id, model)

    @work(group="steer", exit_on_error=False)
    async def set_model(self, session_id: str, model: str) -> None:
        """Switch the session's model (live at once, else at its next start)."""
        verbs, sid = self._verbs_for(session_id)
        change = await self._verb("Model not changed", verbs.set_model(sid, model))
        if change is None:
            return
        self.notify(change.note, title=f"Model: {change.value or 'default'}", timeout=4)
        self.main.catch_up()

    async def _verb(self, refused: str, call: Awaitable[T]) -> T | None:
        """Await a core verb on a session; a refusal (``CctuiError``) becomes a notice
        titled ``refused`` with what to do next, never a crash, and gives None."""
        try:
            return await call
        except CctuiError as exc:
            self.refused(refused, exc)
            return None

    async def _on_session(
        self,
        refused: str,
        session_id: str,
        here: Callable[[str], Awaitable[object]],
        there: Callable[[Host, str], Awaitable[None]],
    ) -> bool:
        """A verb on the session: ``there`` on its host for a host's (by its own id),
        ``here`` on this machine's core; a refusal becomes a notice and gives False."""
        found = self.remote.locate(session_id)
        try:
            await (there(*found) if found is not None else here(session_id))
        except CctuiError as exc:
            self.refused(refused, exc)
            return False
        return True

    def refused(self, title: str, exc: CctuiError) -> None:
        """A refused verb, as an error notice with the core's suggestion."""
        text = exc.message + (f"\n{exc.suggestion}" if exc.suggestion else "")
        self.notify(text, title=title, severity="error", timeout=12)

    def _open_once(
        self,
        kind: type[Screen[R]],
        make: Callable[[], Screen[R]],
        callback: ScreenResultCallbackType[R] | None = None,
    ) -> None:
        """Push the screen ``make`` builds, unless one of ``kind`` is already open (its key
        pressed again, or from the palette under it)."""
        if not any(isinstance(s, kind) for s in self.screen_stack):
            self.push_screen(make(), callback=callback)

    def action_rules(self) -> None:
        directory = self.settings.default_cwd or Path(os.getcwd())
        row = self.main.sessions.row(self.main.current_session_id or "")
        if row is not None and row.cwd is not None and row.cwd.is_dir():
            directory = row.cwd
        self._open_once(RulesScreen, lambda: RulesScreen(self.manager, directory))

    def action_policy(self) -> None:
        directory = self.settings.default_cwd or Path(os.getcwd())
        session_id = self.main.current_session_id
        row = self.main.sessions.row(session_id or "")
        if row is not None and row.cwd is not None and row.cwd.is_dir():
            directory = row.cwd
        self._open_once(PolicyScreen, lambda: PolicyScreen(self.manager, directory, session_id))

    def action_inbox(self) -> None:
        self._open_once(InboxScreen, lambda: InboxScreen(self.inbox.pending, self.describe_session))

    def action_filter(self) -> None:
        self.main.start_filter()

    def action_next_needing(self, anywhere: bool) -> None:
        """``]`` (this project) and ``}`` (every project): the next session that waits for
        an answer, else the next finished one not seen yet."""
        if not self.main_screen_on_top():
            return
        if self.main.next_needing(anywhere=anywhere) is None:
            where = "" if anywhere else " in this project"
            self.notify(f"Nothing else needs you{where}.", timeout=3)

    def action_mute_project(self) -> None:
        """``z``: no notifications from the selected session's project for an hour."""
        session_id = self._row_under_cursor()
        row = self.main.sessions.row(session_id) if session_id else None
        if row is None:
            return
        until = self.alerts.toggle_mute(row.group)
        if until is None:
            self.notify(f"Notifications from {row.project} are on again.")
        else:
            at = until.astimezone().strftime("%H:%M")
            self.notify(
                f"No notifications from {row.project} until {at} (z again: on now).",
            )

    def action_archive(self) -> None:
        """``e``: hide the session from the list (nothing is deleted), or bring it back."""
        if not self.main_screen_on_top():
            return
        session_id = self._row_under_cursor()
        row = self.main.sessions.row(session_id) if session_id else None
        if row is None:
            return
        try:
            self.source.set_archived(row.session_id, not row.archived)
        except OSError as exc:
            self.notify(
                f"{self.source.archive.path}: {exc.strerror}",
                title="Not archived",
                severity="error",
            )
            return
        self.main.redraw_rows([row.session_id])
        title = fmt.one_line(row.title or row.session_id[:8], 40)
        if row.archived:
            self.notify(f"Brought back {title}.", timeout=4)
        else:
            self.notify(
                f"Archived {title}. status:archived lists it; e brings it back.",
                timeout=6,
            )

    def action_projects(self) -> None:
        self._open_once(
            ProjectsScreen,
            lambda: ProjectsScreen(
                self.project_registry,
                self.source.rows(),
                default_root=self.settings.default_cwd or Path(os.getcwd()),
            ),
            self._filter_project,
        )

    # -- from the list, without opening a session (issue 18) ------------------------------

    def _row_under_cursor(self) -> str | None:
        """The list's row when the list has focus, else the session on screen."""
        main = self.main
        if main.sessions.has_focus and main.sessions.selected_id is not None:
            return main.sessions.selected_id
        return self._current()

    def action_peek(self) -> None:
        if not self.main_screen_on_top():
            return  # a space in a form, a page or a modal is theirs
        session_id = self._row_under_cursor()
        row = self.main.sessions.row(session_id) if session_id else None
        if row is None:
            return
        self.main.looked_at(row.session_id)
        self._open_once(
            PeekScreen,
            lambda: PeekScreen(
                row,
                self.inbox.pending,
                config_dir=self.settings.claude_config_dir,
                own_reply=self._own_reply,
                remote_transcript=self.remote.transcript,
            ),
        )

    def _own_reply(self, session_id: str) -> tuple[str, datetime | None] | None:
        """The newest assistant text cctui's process of the session said (its buffered
        events), else its last result; None for a session cctui does not drive."""
        if self.remote.locate(session_id) is not None:  # a host's: what was followed of it
            for event in reversed(self.remote.events(session_id).events):
                if isinstance(event, AssistantTextEvent) and event.text.strip():
                    return event.text, event.at
            return None
        try:
            page = self.manager.events(session_id)
            info = self.manager.get(session_id)
        except CctuiError:
            return None
        for event in reversed(page.events):
            if isinstance(event, AssistantTextEvent) and event.text.strip():
                return event.text, event.at
        return (info.last_result, info.last_activity) if info.last_result else None

    def action_take_over(self) -> None:
        if not self.main_screen_on_top():
            return
        session_id = self._row_under_cursor()
        if session_id is not None:
            self.takeover.start(session_id)

    def _filter_project(self, project_id: str | None) -> None:
        if project_id is not None:
            self.main.set_filter(f"project:{project_id}")

    def action_search(self) -> None:
        self._open_once(
            SearchScreen,
            lambda: SearchScreen(self.source.index, remote=self.remote),
            self._open_hit,
        )

    def _open_hit(self, hit: SearchHit | None) -> None:
        if hit is not None:
            self.main.open_session(hit.session_id, at_message=(hit.message_uuid, hit.timestamp))

    def action_dispatch(self) -> None:
        self._open_once(
            DispatchScreen,
            lambda: DispatchScreen(
                self.manager, default_root=self.settings.default_cwd or Path(os.getcwd())
            ),
        )

    def action_usage(self) -> None:
        self._open_once(UsageScreen, lambda: UsageScreen(self.source.index, remote=self.remote))

    def action_metrics(self) -> None:
        self._open_once(MetricsScreen, lambda: MetricsScreen(self.manager.read_metrics))

    def action_help(self) -> None:
        # Installed once: composing and styling the page again cost more than showing it.
        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        self.push_screen("help")

    def on_main_screen_uncovered(self, _message: MainScreen.Uncovered) -> None:
        """The one place the modal queue is pumped: whatever covered the main screen (a
        modal, a form, a page) has closed, so a modal queued meanwhile may pop now. A new
        screen needs nothing of its own for it."""
        self.inbox.pump()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The app's keys (from the key table), then Textual's commands that are not ours."""
        ours = keymap.commands()
        for command, key, action in ours:
            yield SystemCommand(
                command.title, f"{command.help} ({key})", partial(self.run_action, action)
            )
        titles = {command.title for command, _key, _action in ours}
        yield from (c for c in super().get_system_commands(screen) if c.title not in titles)
