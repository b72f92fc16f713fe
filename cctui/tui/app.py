"""CctuiApp: the wiring. It builds the window's parts, runs its life cycle, routes the
bridge's messages, and names what each app key does in one line; the doing lives with its
kind: ``session_keys`` (the session on screen -> a core verb -> a notice), ``pages`` (the
screens the keys open, once each), ``quitting`` (what closing does to the sessions),
``starts`` (``n``), ``takeover`` (``o``), ``inbox`` (the pending inputs' modals). Screens
draw, the bridge feeds them, the core does the work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from importlib.resources import files
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme

from cctui.config import Settings
from cctui.core.api import CoreApi
from cctui.core.hosted import HostedService
from cctui.errors import CctuiError
from cctui.remote.hosts import HostChange, Hosts
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
from cctui.tui.pages import Pages
from cctui.tui.prefs import Prefs
from cctui.tui.quitting import SHUTDOWN_TIMEOUT_S, Quitting
from cctui.tui.remote import RemoteView, host_line
from cctui.tui.screens.main import MainScreen
from cctui.tui.session_keys import SessionKeys
from cctui.tui.sources import SessionSource
from cctui.tui.starts import SessionStarts
from cctui.tui.takeover import TakeOver
from cctui.tui.widgets.event_lines import PromptBlock
from cctui.tui.widgets.session_list import first_screen
from cctui.tui.widgets.session_pane import SessionPane

if TYPE_CHECKING:  # the modals and pages are imported when first shown
    from cctui.tui.screens.inbox import InboxScreen
    from cctui.tui.screens.new_session import NewSessionScreen
    from cctui.tui.screens.peek import PeekAsk, PeekScreen

log = logging.getLogger(__name__)


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
        attached: Callable[[], str] | None = None,
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
        self.attached = attached
        """A window on sessions another cctui owns (quitting leaves them running there):
        the banner under the list, read again every tick (the owner may stop); None for the
        window that owns them."""
        self._stop_watching = asyncio.Event()
        self.history_loaded = asyncio.Event()
        """Set once the list holds Claude Code's sessions from disk (the first index read)."""
        self._problems_shown: list[str] = []
        """``manager.problems`` as last notified (new ones are looked for every tick)."""
        self.starts = SessionStarts(self)
        """``n``: the new-session form and what it starts."""
        self.takeover = TakeOver(self)
        """``o``: a session handed to Claude Code's own terminal UI, and back."""
        self.session_keys = SessionKeys(self)
        """The session on screen -> a core verb -> a notice (``i``, ``ctrl+k``, ``w``, …)."""
        self.pages = Pages(self)
        """The pages the keys open, each once (``r``, ``a``, ``/``, …)."""
        self.quitting = Quitting(self)
        """``q``, the quit modal, a hung-up terminal: what closing does to the sessions."""
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

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux, one that a SIGCONT it did not
        stop for leaves alone (``cctui.tui.driver`` says why)."""
        driver_class = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver_class is LinuxDriver:
            from cctui.tui.driver import WindowDriver

            return WindowDriver
        return driver_class

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
        self.source.load_now(first_screen(self.size.height))
        self._bridge.start()
        # Confirmations (e.g. overwrite a project file?) may now wait for this human.
        self._detach_human = self.manager.decisions.attach_human()
        self._show_new_problems()  # e.g. a damaged registry set aside
        # The main screen composes after this handler; queue what needs it for later.
        self.call_after_refresh(self.inbox.enqueue_existing)
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
        if self.attached is None:
            return
        left = self.main.query_one("#left")
        banner = self.attached()
        if left.border_subtitle != banner:
            left.border_subtitle = banner
        left.add_class("-attached")

    def on_first_frame(self, _: FirstFrame) -> None:
        gc_pause.release()  # held by the composition root while starting
        # The past sessions below the list's first screen: their rows are made now, before
        # the watcher's changes can name them (``SessionSource.load_now``).
        if self.source.make_the_rest():
            self.main.reload()
        # The index's sweep and build run in threads, on the GIL the first frame needs:
        # started before it, they cost it ~0.3-1 s of CPU with thousands of past sessions.
        # The list already shows every session the index file knows (``load_now``).
        self.watch_history()
        self.start_services()
        hosts = self.remote.hosts
        if hosts and not self.quitting.shut_down:
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
            if self.quitting.shut_down:
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
        if not self.quitting.shut_down:
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
        if self.attached is not None and self.main.is_mounted:
            self._show_attached()
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

    def let_go(self) -> None:
        """Let go of what the window alone held: its view of the events, its human, its
        watcher (the sessions and services are ``Quitting``'s to end, or to keep)."""
        self._bridge.stop()
        if self._detach_human is not None:
            self._detach_human()
        self._stop_watching.set()

    async def close_hosts(self) -> None:
        """End every host's link (its command too): the window held them, not the sessions."""
        if self.remote.hosts:
            self._stop_hosts()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.remote.hosts.stop(), SHUTDOWN_TIMEOUT_S)

    async def on_unmount(self) -> None:
        await self.quitting.unmounted()
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
                self.pages.refresh_peeks(message.session_ids, reply=True)

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
            self.pages.refresh_peeks({self.remote.input_key(i) or "" for i in change.resolved})

    @on(InputRequested)
    def _input_requested(self, message: InputRequested) -> None:
        if self.is_running:
            self.inbox.requested(message.pending)
            self.pages.refresh_peeks({message.pending.session_id})

    @on(InputResolved)
    def _input_resolved(self, message: InputResolved) -> None:
        if self.is_running:
            self.inbox.resolved(message)
            self.pages.refresh_peeks({message.session_id})

    @on(SessionPane.Send)
    def _send(self, event: SessionPane.Send) -> None:
        self.session_keys.send(event.session_id, event.text)

    @on(PromptBlock.Rewind)
    def _rewind(self, message: PromptBlock.Rewind) -> None:
        self.session_keys.rewind(message.prompt_id)

    @on(OpenSession)
    def _open(self, message: OpenSession) -> None:
        self.main.open_session(message.session_id, focus_input=message.focus_input)

    # The modals' and pages' messages by their handlers' names: their screens are imported
    # when first shown, not before the first frame.
    def on_inbox_screen_answer(self, message: InboxScreen.Answer) -> None:
        self.inbox.from_inbox(message)

    def on_peek_ask_answer(self, message: PeekAsk.Answer) -> None:
        if message.decision is None:
            self.inbox.open(message.pending)  # over the peek; back to it afterwards
        else:
            self.inbox.answer(message.pending.id, message.decision)
        self.pages.refresh_peeks({message.pending.session_id})

    def on_peek_screen_reply(self, message: PeekScreen.Reply) -> None:
        self.session_keys.send(message.session_id, message.text)
        self.notify(f"Sent to {self.describe_session(message.session_id)}.")

    def on_new_session_screen_likely(self, message: NewSessionScreen.Likely) -> None:
        self.starts.prewarm(message.form)

    def on_main_screen_uncovered(self, _message: MainScreen.Uncovered) -> None:
        """The one place the modal queue is pumped: whatever covered the main screen (a
        modal, a form, a page) has closed, so a modal queued meanwhile may pop now. A new
        screen needs nothing of its own for it."""
        self.inbox.pump()

    # -- the app's keys (keymap.py binds them, lists them on the help page and the palette) -
    # Each is one line: what it does lives with its kind (session_keys.py, pages.py,
    # quitting.py, starts.py, takeover.py); Textual looks actions up on the app by name.

    async def action_quit(self) -> None:
        await self.quitting.quit()

    def action_new_session(self) -> None:
        self.starts.open_form()

    def action_interrupt(self) -> None:
        self.session_keys.interrupt()

    def action_kill(self) -> None:
        self.session_keys.ask_kill()

    def action_finish(self) -> None:
        self.session_keys.finish()

    def action_fork_worktree(self) -> None:
        self.session_keys.ask_fork_worktree()

    def action_cycle_mode(self) -> None:
        self.session_keys.cycle_mode()

    def action_pick_model(self) -> None:
        self.session_keys.pick_model()

    def action_diff(self) -> None:
        self.pages.diff()

    def action_rules(self) -> None:
        self.pages.rules()

    def action_policy(self) -> None:
        self.pages.policy()

    def action_inbox(self) -> None:
        self.pages.inbox()

    def action_projects(self) -> None:
        self.pages.projects()

    def action_search(self) -> None:
        self.pages.search()

    def action_dispatch(self) -> None:
        self.pages.dispatch()

    def action_usage(self) -> None:
        self.pages.usage()

    def action_metrics(self) -> None:
        self.pages.metrics()

    def action_help(self) -> None:
        self.pages.help()

    def action_filter(self) -> None:
        self.main.start_filter()

    # -- from the list, without opening a session (issue 18) ------------------------------

    def action_peek(self) -> None:
        if self.main_screen_on_top():  # a space in a form, a page or a modal is theirs
            self.pages.peek()

    def action_take_over(self) -> None:
        if not self.main_screen_on_top():
            return
        session_id = self.session_keys.row_under_cursor()
        if session_id is not None:
            self.takeover.start(session_id)

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
        session_id = self.session_keys.row_under_cursor()
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
        session_id = self.session_keys.row_under_cursor()
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

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The app's keys (from the key table), then Textual's commands that are not ours."""
        ours = keymap.commands()
        for command, key, action in ours:
            yield SystemCommand(
                command.title, f"{command.help} ({key})", partial(self.run_action, action)
            )
        titles = {command.title for command, _key, _action in ours}
        yield from (c for c in super().get_system_commands(screen) if c.title not in titles)
