"""The main screen: session list on the left, the selected session on the right."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from pydantic import ValidationError
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static

from cctui.config import Settings
from cctui.core.api import CoreApi
from cctui.core.catalog import parse_filter
from cctui.history import IndexChange
from cctui.projects import ProjectRegistry
from cctui.tui import format as fmt
from cctui.tui.attention import Attention, next_needing
from cctui.tui.keymap import bindings
from cctui.tui.messages import FirstFrame, SessionsActivity
from cctui.tui.projects_filter import with_registered_project
from cctui.tui.rows import SessionRow
from cctui.tui.sources import SessionSource
from cctui.tui.widgets.footer import KeyFooter
from cctui.tui.widgets.session_list import SessionList
from cctui.tui.widgets.session_pane import MessageInput, SessionPane
from cctui.tui.widgets.status_bar import StatusBar

EMPTY_LIST = """\
[b]No sessions yet[/b]

Press [b]n[/b] to start one.
[$text-muted]Sessions you run with [b]claude[/b] anywhere on this
machine show up here too, live.[/]"""

PANE_GAP_S = 0.25
"""The pane draws new output at most this often, and never sooner than twice as long as the
last drawing took after it. Drawing a fragment of markdown costs a layout of the screen (a
tenth of a second and more on a loaded machine); drawn at the bridge's 20 Hz, a fast stream
kept the loop busy drawing, and the same loop reads the CLI's output, so the reply itself
slowed down. This way drawing takes at most a third of the loop. Tests draw at once with
``CctuiApp.settle``."""

PREVIEW_DELAY_S = 0.12
"""The pane follows the list cursor after this pause, so holding an arrow key stays smooth."""


def host_filter(line: str) -> tuple[str, str | None]:
    """``host:NAME`` taken out of a filter line: (the rest, NAME); the last one wins."""
    host = None
    rest = []
    for word in line.split(" "):
        if word.lower().startswith("host:") and len(word) > 5:
            host = word[5:]
        else:
            rest.append(word)
    return " ".join(rest), host


def list_title(shown: int, total: int) -> str:
    """The list's title: how many sessions it shows, and of how many when a filter hides
    some (in thousands as the status bar writes them: "Sessions · 3,000")."""
    return f"Sessions · {shown:,}" if shown == total else f"Sessions · {shown:,} of {total:,}"


class FilterInput(Input):
    """The `/` filter; ``esc`` clears it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("FilterInput")

    def action_clear(self) -> None:
        self.value = ""
        self.screen.query_one(SessionList).focus()


NARROW_WIDTH = 120
"""Below this many columns the list and the pane cannot both be read: the one with the
keyboard gets the width (see ``MainScreen._note_reading``)."""


class MainScreen(Screen[None]):
    """Session list | session pane, status bar, keys.

    While a modal or form covers it, activity is only noted; the list and the pane catch up
    in one step when it is on top again (a covered screen is not repainted anyway).
    """

    AUTO_FOCUS = "#sessions"
    BINDINGS: ClassVar[list[BindingType]] = bindings("MainScreen")

    def __init__(
        self,
        manager: CoreApi,
        settings: Settings,
        source: SessionSource,
        service_lines: Callable[[], list[str]],
        projects: ProjectRegistry,
    ) -> None:
        super().__init__()
        self._manager = manager
        self._settings = settings
        self._source = source
        self._projects = projects
        """The app's registry: ``project:NAME`` in the filter also means a registered one."""
        self._service_lines = service_lines
        self._preview_timer: Timer | None = None
        self._behind: str | None = None
        """The row the cursor rests on while the pane shows a session starting (the
        selection from before, then the new session's own row once listed): the list keeps
        its cursor there as rows come and go, which must not preview it."""
        self._before: str | None = None
        """The list's selection when the pane began showing a session starting (where the
        cursor goes back to if the session does not start)."""
        self._starting_id: str | None = None
        """The id of the session shown starting, once the core lists it, until it is shown
        or did not start. While it is not ``_behind``, the cursor is still to go to its row,
        once the list draws it."""
        self._stale: set[str] = set()
        self._stale_list = False
        self._pulled_at = 0.0
        self._pull_timer: Timer | None = None
        self._draw_cost = 0.0
        """How long the last drawing of new output took, until the screen was refreshed."""
        self.attention = Attention()
        """Which sessions finished unseen (the list's "finished" rows, ``]``/``}``)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield FilterInput(placeholder="filter: words, project:x, status:live", id="filter")
                yield Static(id="filter-error")
                yield SessionList(id="sessions")
                yield Static(Content.from_markup(EMPTY_LIST), id="list-empty")
            yield SessionPane(
                self._manager,
                self._settings,
                remote_events=self._source.remote.events,
                remote_transcript=self._source.remote.transcript,
                id="pane",
            )
        yield StatusBar(id="status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#left").border_title = "Sessions"
        self.query_one("#pane").border_title = "Output"
        self.query_one(FilterInput).display = False
        self.query_one("#filter-error").display = False
        self.reload()
        # A screen's after-refresh callbacks run once it has drawn (the app's, on the screen
        # that was current when they ran: the blank one before this one is shown).
        self.call_after_refresh(self.post_message, FirstFrame())

    async def action_cycle_mode(self) -> None:
        """``shift+tab`` here: the app's permission-mode cycle (elsewhere it moves focus)."""
        await self.app.run_action("cycle_mode")

    @property
    def sessions(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def pane(self) -> SessionPane:
        return self.query_one(SessionPane)

    @property
    def current_session_id(self) -> str | None:
        """The session the user is looking at: the pane's, else the list cursor's (none
        while the pane shows a session still starting)."""
        if self.pane.starting:
            return None
        return self.pane.session_id or self.sessions.selected_id

    def reload(self) -> None:
        """Re-read every row and redraw what changed (the rows the source has not made yet
        are counted: ``SessionSource.load_now``)."""
        self.sessions.set_rows(self._attend(self._source.rows()), more=self._source.unmade)
        self._after_rows()

    def on_session_list_filled(self, _: SessionList.Filled) -> None:
        """A long list drew another chunk of its first rows: count them in the title."""
        self._after_rows()

    def history_changed(self, change: IndexChange) -> None:
        """Redraw the rows of the sessions whose history changed (a running session's
        transcript grows on every tool call: the other rows are not read again)."""
        rows, gone = self._source.rows_of([*change.changed, *change.removed])
        for sid in gone:
            self.attention.forget(sid)
        self.sessions.update_rows(self._attend(rows), gone)
        self._after_rows()

    def redraw_rows(self, session_ids: list[str]) -> None:
        """Read these sessions' rows again (archived or brought back: listed or not now)."""
        rows, gone = self._source.rows_of(session_ids)
        self.sessions.update_rows(self._attend(rows), gone)
        self._after_rows()

    # -- what needs the person (tui.attention) --------------------------------------------

    def _attend(self, rows: list[SessionRow]) -> list[SessionRow]:
        """The rows with their unseen bit: a turn that ends off screen is "finished"."""
        shown = self.pane.session_id if self.on_top else None
        return [self.attention.observe(r, on_screen=r.session_id == shown) for r in rows]

    def looked_at(self, session_id: str) -> None:
        """The person sees this session now (the pane, a peek): it is not unseen any more."""
        if self.attention.seen(session_id):
            row = self.sessions.row(session_id)
            if row is not None:
                self.sessions.update_rows([replace(row, unseen=False)])

    def next_needing(self, *, anywhere: bool) -> str | None:
        """Go to the next listed session that needs the person (``anywhere``: in every
        project, else in the current one's); its id, or None when none does."""
        rows = [r for r in map(self.sessions.row, self.sessions.shown) if r is not None]
        current = self.current_session_id
        here = self.sessions.row(current or "")
        group = None if anywhere or here is None else here.group
        target = next_needing(rows, current, group=group)
        if target is None or target == current:
            return None
        self.sessions.select(target)
        row = self.sessions.row(target)
        if row is not None and not self.pane.starting:
            self.pane.show(row)
            self.looked_at(target)
        return target

    def _after_rows(self) -> None:
        total = self.sessions.total
        count = len(self.sessions.shown)
        left = self.query_one("#left")
        title = list_title(count, total)
        if left.border_title != title:
            # Setting a border title repaints the whole column, the same title or not:
            # this runs for every batch of output.
            left.border_title = title
        left.set_class(not total, "-empty")
        if self.pane.session_id is not None:
            row = self.sessions.row(self.pane.session_id)
            if row is not None:
                self.pane.update_row(row)
        elif self.sessions.selected_id is not None:
            self._preview_now()
        self._follow_starting()
        self.refresh_status()

    def hosts_changed(self, host_name: str, session_ids: Iterable[str] = ()) -> None:
        """A host's rows or state changed: its rows drawn again (gone ones removed), and the
        pane's new events when it shows one of that host's sessions (``session_ids``)."""
        remote = self._source.remote
        host = remote.host(host_name)
        if host is None:
            return
        rows = remote.rows(host)
        listed = {r.session_id for r in rows}
        gone = [k for k in remote.keys_of(host) if k not in listed]
        self.sessions.update_rows(rows, gone, now=True)
        shown = self.pane.session_id
        found = remote.locate(shown) if shown is not None else None
        if found is not None and found[0] is host and found[1] in set(session_ids):
            self._pull_pane()
        self._after_rows()

    def tick(self) -> None:
        """Once a second: the list's ages ("now", "3m") and the status bar's services."""
        self.sessions.refresh_ages()
        self.refresh_status()

    def refresh_status(self) -> None:
        """Redraw the status bar (counts, services)."""
        self.query_one(StatusBar).show(
            pending=len(self._manager.pending()) + len(self._source.remote.pending()),
            live=self.sessions.live_count,
            services=self._service_lines(),
            problems=self._source.problems(),
            indexing=self._source.indexing(),
        )

    def activity(self, message: SessionsActivity) -> None:
        """A batch of session activity from the bridge."""
        self._stale |= message.session_ids
        self._stale_list |= message.list_changed
        if self.on_top:
            self.catch_up()
        elif message.list_changed:
            # Under a pending input's modal the list waits (``catch_up`` when it closes), but
            # the status bar shows beside the modal: it says now what waits (another request
            # while one is answered; the first one, in a window that attached to it).
            self.refresh_status()

    def catch_up(self, *, full: bool = False) -> None:
        """Draw the activity noted so far: the pane's new events, the rows that changed
        (``full``: every one of cctui's sessions, whatever was noted)."""
        ids, self._stale = self._stale, set()
        list_changed, self._stale_list = self._stale_list, False
        if full or self.pane.session_id in ids:
            # A status or result changed (a turn ended, a modal is needed): draw now, the
            # stream that the gap protects is over.
            self._pull_pane(now=full or list_changed)
        if full or ids or list_changed:
            rows = self._attend(self._source.own_rows(None if full else ids))
            self.sessions.update_rows(rows, now=full)
            self._after_rows()

    def _pull_pane(self, *, now: bool = False) -> None:
        gap = max(PANE_GAP_S, 3 * self._draw_cost)
        wait = self._pulled_at + gap - time.monotonic()
        if now or wait <= 0:
            if self._pull_timer is not None:
                self._pull_timer.stop()
                self._pull_timer = None
            started = self._pulled_at = time.monotonic()
            self.pane.pull()

            def drawn() -> None:
                self._draw_cost = time.monotonic() - started
                self._pulled_at = time.monotonic()

            self.app.call_after_refresh(drawn)
        elif self._pull_timer is None:
            self._pull_timer = self.set_timer(wait, self._pull_due)

    def _pull_due(self) -> None:
        self._pull_timer = None
        if self.on_top:
            self._pull_pane()
        else:
            self._stale.add(self.pane.session_id or "")

    @property
    def on_top(self) -> bool:
        """Nothing covers this screen. (Textual's ``is_current`` also holds under a
        translucent modal, where drawing would re-blend the whole backdrop on every frame.)"""
        return self.is_attached and self.app.screen is self

    class Uncovered(Message):
        """Nothing covers the main screen any more (a modal, form or page was closed)."""

    def on_screen_resume(self) -> None:
        self.catch_up()
        # The session in the pane is before the person's eyes again: a turn that ended
        # while a page or modal covered it (unseen then, rightly) is seen now.
        if self.pane.session_id is not None and not self.pane.starting:
            self.looked_at(self.pane.session_id)
        self.post_message(self.Uncovered())

    def open_session(
        self,
        session_id: str,
        *,
        focus_input: bool = False,
        at_message: tuple[str | None, datetime | None] | None = None,
    ) -> None:
        """Show ``session_id`` in the pane (moving the list cursor to it when listed);
        ``at_message`` (uuid, time: a search hit) opens its transcript there."""
        self.sessions.update_rows(self._attend(self._source.own_rows([session_id])))
        self._after_rows()
        self._starting_id = None
        self.sessions.select(session_id)
        row = self.sessions.row(session_id)
        if row is not None:
            self.pane.show(row, at_message=at_message)
            self.looked_at(session_id)
        if focus_input:
            self.query_one(MessageInput).focus()

    def show_starting(
        self, title: str, prompt: str | None, cwd: Path, *, worktree: bool = False
    ) -> None:
        """Show the session the form just sent in the pane while its process starts
        (``open_session`` shows the session itself once it has)."""
        row = SessionRow(
            session_id="",
            status="starting",
            project=fmt.project_name(cwd),
            title=title,
            last_activity=None,
            cost_usd=None,
            cwd=cwd,
            live=True,
            ours=False,
        )
        what = "a worktree and claude" if worktree else "claude"
        self._before = self._behind = self.sessions.selected_id
        self._starting_id = None
        self.pane.show_starting(row, prompt, f"◌ starting {what} in {cwd}…")
        # What the person types next is a message to it, not keys for the list (w, k…).
        self.query_one(MessageInput).focus()

    def starting_listed(self, session_id: str) -> None:
        """The session shown starting is tracked now, its process maybe still connecting:
        the list's cursor goes to its row (the pane keeps the starting view)."""
        self._starting_id = session_id
        self._follow_starting()

    def _follow_starting(self) -> None:
        sid = self._starting_id
        # Not once the cursor is there, nor once the pane shows something else (the
        # person moved on meanwhile).
        if sid is None or sid == self._behind or not self.pane.starting:
            return
        if sid in self.sessions.shown:
            self._behind = sid  # the cursor on it previews nothing: it is in view already
            self.sessions.select(sid)

    def not_started(self) -> None:
        """The session shown starting did not start: its row goes (the core forgot it) and
        the list's selection from before is shown again."""
        failed, self._starting_id = self._starting_id, None
        # The message line was the failed session's (show_starting put the keyboard there):
        # left there, a message meant for it would go to the session shown again.
        message = self.query_one(MessageInput)
        if self.pane.starting and message.has_focus:
            self.sessions.focus()
        if failed is not None and not self._source.own_rows([failed]):
            self.sessions.update_rows([], gone=[failed])
            self._after_rows()
        if self.pane.starting:  # nobody moved on meanwhile
            if self._before is not None:
                self.sessions.select(self._before)
            self.pane.show(self.sessions.row(self.sessions.selected_id or ""))

    # -- list <-> pane -------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#sessions")
    def _cursor_moved(self) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(PREVIEW_DELAY_S, self._preview_now)

    def _preview_now(self) -> None:
        selected = self.sessions.selected_id
        if self.pane.starting and selected == self._behind:
            return  # the cursor stayed where it was: the starting session stays in view
        if selected is not None and selected != self.pane.session_id:
            self.pane.show(self.sessions.row(selected))
            self.looked_at(selected)

    @on(DataTable.RowSelected, "#sessions")
    def _row_chosen(self) -> None:
        selected = self.sessions.selected_id
        if selected is not None:
            self.open_session(selected, focus_input=True)

    @on(MessageInput.Leave)
    def _leave_input(self) -> None:
        self.sessions.focus()

    # -- filter --------------------------------------------------------------------------

    def start_filter(self) -> None:
        """Show and focus the filter line."""
        box = self.query_one(FilterInput)
        box.display = True
        box.focus()

    def set_filter(self, line: str) -> None:
        """Show the filter line with ``line`` applied (e.g. from the projects view)."""
        box = self.query_one(FilterInput)
        box.display = True
        box.value = line
        self.sessions.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        error = self.query_one("#filter-error", Static)
        line, host = host_filter(event.value)
        known = ["local", *self._source.remote.names]
        if host is not None and host not in known:
            error.update(
                Content.styled(f"no host {host!r}; hosts: {', '.join(known)}", "$text-error")
            )
            error.display = True
            return
        try:
            query = parse_filter(line) if line.strip() else None
        except ValidationError as exc:
            # Keep the last good filter; say what is wrong with this one.
            first = exc.errors()[0]
            said = str(first.get("ctx", {}).get("error", first["msg"]))  # not pydantic's words
            error.update(
                Content.styled(
                    f"{said} · the list still shows the last filter that worked", "$text-error"
                )
            )
            error.display = True
            return
        error.display = False
        if query is not None:
            query = with_registered_project(query, self._projects)
        self.sessions.set_query(query, host)
        self._after_rows()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        box = self.query_one(FilterInput)
        box.display = bool(box.value)
        self.sessions.focus()

    def on_descendant_blur(self) -> None:
        box = self.query_one(FilterInput)
        if not box.value and not box.has_focus:
            box.display = False
        self._note_reading()

    def on_descendant_focus(self) -> None:
        self._note_reading()

    def on_resize(self, event: events.Resize) -> None:
        self._note_reading()

    def _note_reading(self) -> None:
        # In a narrow terminal (80x24) the list leaves a reply 22 columns: while the keyboard
        # is in the pane (reading, writing a message) the list gives way to a strip of its
        # states, and takes its width back with the keyboard (esc).
        reading = self.size.width < NARROW_WIDTH and self.query_one(SessionPane).has_focus_within
        self.query_one("#body").set_class(reading, "-reading")
