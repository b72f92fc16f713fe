"""The main screen: session list on the left, the selected session on the right."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Static

from cctui.tui.messages import SessionsActivity
from cctui.tui.widgets.session_list import SessionList
from cctui.tui.widgets.session_pane import MessageInput, SessionPane
from cctui.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

EMPTY_LIST = """\
[b]No sessions yet[/b]

Press [b]n[/b] to start one.
[$text-muted]Sessions you run with [b]claude[/b] anywhere on this
machine show up here too, live.[/]"""

PREVIEW_DELAY_S = 0.12
"""The pane follows the list cursor after this pause, so holding an arrow key stays smooth."""


class FilterInput(Input):
    """The `/` filter; ``esc`` clears it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "clear", "Clear", show=False)]

    def action_clear(self) -> None:
        self.value = ""
        self.screen.query_one(SessionList).focus()


class MainScreen(Screen[None]):
    """Session list | session pane, status bar, keys."""

    AUTO_FOCUS = "#sessions"

    def __init__(self, app: CctuiApp) -> None:
        super().__init__()
        self._cctui = app
        self._preview_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield FilterInput(placeholder="filter: words, project:x, status:live", id="filter")
                yield SessionList(id="sessions")
                yield Static(Content.from_markup(EMPTY_LIST), id="list-empty")
            yield SessionPane(self._cctui.manager, self._cctui.settings, id="pane")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#left").border_title = "Sessions"
        self.query_one("#pane").border_title = "Output"
        self.query_one(FilterInput).display = False
        self.reload()

    @property
    def sessions(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def pane(self) -> SessionPane:
        return self.query_one(SessionPane)

    @property
    def current_session_id(self) -> str | None:
        """The session the user is looking at: the pane's, else the list cursor's."""
        return self.pane.session_id or self.sessions.selected_id

    def reload(self) -> None:
        """Re-read the rows and redraw the list, pane header and status bar."""
        rows = self._cctui.source.rows()
        self.sessions.projects = self._cctui.project_roots()
        self.sessions.set_rows(rows)
        count = len(self.sessions.shown)
        left = self.query_one("#left")
        left.border_title = (
            f"Sessions · {count}" if count == len(rows) else f"Sessions · {count} of {len(rows)}"
        )
        left.set_class(not rows, "-empty")
        if self.pane.session_id is not None:
            row = self.sessions.row(self.pane.session_id)
            if row is not None:
                self.pane.update_row(row)
        elif self.sessions.selected_id is not None:
            self._preview_now()
        self.refresh_status()

    def refresh_status(self) -> None:
        """Redraw the status bar (counts, services)."""
        manager = self._cctui.manager
        rows = self._cctui.source.rows()
        self.query_one(StatusBar).show(
            pending=len(manager.pending()),
            live=sum(1 for r in rows if r.live),
            services=self._cctui.service_lines(),
            problems=self._cctui.source.problems(),
        )

    def activity(self, message: SessionsActivity) -> None:
        """A batch of session activity from the bridge."""
        if self.pane.session_id in message.session_ids:
            self.pane.pull()
        self.reload()

    def open_session(self, session_id: str, *, focus_input: bool = False) -> None:
        """Show ``session_id`` in the pane (moving the list cursor to it when listed)."""
        self.reload()
        self.sessions.select(session_id)
        row = self.sessions.row(session_id)
        if row is not None:
            self.pane.show(row)
        if focus_input:
            self.query_one(MessageInput).focus()

    # -- list <-> pane -------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#sessions")
    def _cursor_moved(self) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(PREVIEW_DELAY_S, self._preview_now)

    def _preview_now(self) -> None:
        selected = self.sessions.selected_id
        if selected is not None and selected != self.pane.session_id:
            self.pane.show(self.sessions.row(selected))

    @on(DataTable.RowSelected, "#sessions")
    def _row_chosen(self) -> None:
        selected = self.sessions.selected_id
        if selected is not None:
            self.open_session(selected, focus_input=True)

    @on(MessageInput.Leave)
    def _leave_input(self) -> None:
        self.sessions.focus()

    @on(SessionPane.Send)
    def _send(self, event: SessionPane.Send) -> None:
        self._cctui.send_message(event.session_id, event.text)

    # -- filter --------------------------------------------------------------------------

    def start_filter(self) -> None:
        """Show and focus the filter line."""
        box = self.query_one(FilterInput)
        box.display = True
        box.focus()

    def set_filter(self, query: str) -> None:
        """Show the filter line with ``query`` applied (e.g. from the projects view)."""
        box = self.query_one(FilterInput)
        box.display = True
        box.value = query
        self.sessions.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.sessions.set_query(event.value)
        self.reload()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        box = self.query_one(FilterInput)
        box.display = bool(box.value)
        self.sessions.focus()

    def on_descendant_blur(self) -> None:
        box = self.query_one(FilterInput)
        if not box.value and not box.has_focus:
            box.display = False
