"""The queue and the schedules (``core.dispatch``): what waits to start, and what starts by
the clock.

The queue table lists queued sessions in the order they start (``K``/``J`` move one up or
down, ``s`` starts it now over the limit, ``x`` cancels it); the schedules table lists each
schedule's next run and last result (``space`` pauses or resumes, ``r`` runs it now, ``e``
edits, ``n`` adds one, ``x`` deletes). ``tab`` moves between the tables. The page reads the
dispatcher again every two seconds; what the core refuses is shown as it says.

Everything goes through ``CoreApi`` (``dispatch_board`` to read, the ``queue_*`` and
``schedule_*`` calls to change): in a window attached to the owner, the owner's dispatcher
answers, as any other key's call.
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from pydantic import ValidationError as PydanticError
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from cctui.core.api import CoreApi
from cctui.core.dispatch import Schedule
from cctui.core.dispatch.board import DispatchBoard, QueuedRow, ScheduleChanges
from cctui.errors import CctuiError, ValidationFailed
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal
from cctui.tui.screens.schedule_form import ScheduleFields, ScheduleForm

_QUEUE_KEYS = [("K/J", "move"), ("s", "start now"), ("x", "cancel/delete")]
_SCHEDULE_KEYS = [
    ("n", "new"),
    ("e", "edit"),
    ("space", "pause"),
    ("r", "run now"),
]


def when_text(when: datetime | None, now: datetime) -> str:
    """A next-run time as the table shows it: ``Mon 09:00 (in 3h)``, local time."""
    if when is None:
        return "—"
    local = when.astimezone()
    seconds = (when - now).total_seconds()
    if seconds < 0:
        rel = "due"
    elif seconds < 3600:
        rel = f"in {int(seconds // 60)}m"
    elif seconds < 86400:
        rel = f"in {int(seconds // 3600)}h"
    else:
        rel = f"in {int(seconds // 86400)}d"
    return f"{local.strftime('%a %H:%M')} ({rel})"


class DispatchScreen(Modal[None]):
    """The queue and the schedules; changes go through the dispatcher."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("DispatchScreen")

    def __init__(self, manager: CoreApi, *, default_root: Path) -> None:
        super().__init__()
        self._manager = manager
        self._default_root = default_root
        self._queued: list[str] = []
        self._schedules: list[Schedule] = []
        self.board: DispatchBoard | None = None
        """What the page shows now (the last board read)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            yield Static(Content.styled("Queue", "bold"), classes="heading")
            yield DataTable(id="queue", cursor_type="row")
            yield Static(Content.styled("Schedules", "bold"), classes="heading")
            yield DataTable(id="schedules", cursor_type="row")
            yield Static(id="error")
            yield Static(
                key_line([*_QUEUE_KEYS, *_SCHEDULE_KEYS, ("tab", "table"), ("esc", "close")]),
                id="keys",
            )
            yield Static(
                Content.styled(
                    "Schedules fire while a cctui owns the sessions; a run missed meanwhile "
                    "follows its rule. Unattended runs use your plan or API credit.",
                    "$text-muted",
                ),
                id="hint",
            )

    async def on_mount(self) -> None:
        queue: DataTable[Text] = self.query_one("#queue", DataTable)
        for key, label in (
            ("pos", "#"),
            ("note", "state"),
            ("project", "project"),
            ("prompt", "prompt"),
        ):
            queue.add_column(label, key=key)
        schedules: DataTable[Text] = self.query_one("#schedules", DataTable)
        for key, label in (
            ("name", "name"),
            ("when", "when"),
            ("next", "next run"),
            ("last", "last run"),
            ("missed", "missed"),
        ):
            schedules.add_column(label, key=key)
        self.query_one("#error").display = False
        await self.reload()
        (queue if self._queued else schedules).focus()
        self.set_interval(2.0, self.reload)

    # -- reading -------------------------------------------------------------------------

    async def reload(self) -> None:
        """Read the queue and the schedules again (cursors stay on the same rows)."""
        try:
            board = await self._manager.dispatch_board()
        except CctuiError as exc:
            self._error(f"read: {exc.message}")
            return
        if not self.is_attached:
            return  # closed while the owner answered
        self.board = board
        hold = board.hold
        title = Content.assemble(
            ("Queue and schedules", "bold"),
            (f" · {board.working} working · max_sessions {board.max_sessions}", "$text-muted"),
        )
        if hold is not None:
            title = Content.assemble(
                title, (f" · usage limit until {hold.until.astimezone():%H:%M}", "$text-warning")
            )
        if not board.owner:
            title = Content.assemble(
                title, (" · another cctui dispatches (read only here)", "$text-warning")
            )
        self.query_one("#title", Static).update(title)
        self._fill_queue(board.queued)
        self._fill_schedules(board)

    def _fill_queue(self, rows: list[QueuedRow]) -> None:
        table: DataTable[Text] = self.query_one("#queue", DataTable)
        keep = self._selected(table, self._queued)
        table.clear()
        self._queued = []
        for i, row in enumerate(rows, start=1):
            self._queued.append(row.session_id)
            table.add_row(
                Text(str(i), justify="right"),
                Text(row.note),
                Text(fmt.one_line(row.project, 12)),
                Text(fmt.one_line(row.prompt or "(no prompt)", 200)),
                key=row.session_id,
            )
        if not self._queued:
            table.add_row(
                Text("", justify="right"), Text("nothing queued", style="dim"), Text(""), Text("")
            )
        self._restore(table, self._queued, keep)

    def _fill_schedules(self, board: DispatchBoard) -> None:
        table: DataTable[Text] = self.query_one("#schedules", DataTable)
        ids = [s.id for s in self._schedules]
        keep = self._selected(table, ids)
        table.clear()
        self._schedules = board.schedules
        for s in self._schedules:
            table.add_row(
                Text(fmt.one_line(s.name, 24), style="dim" if s.paused else "bold"),
                Text(fmt.one_line(s.when, 28)),
                Text("paused" if s.paused else when_text(s.next_due, board.now)),
                self._last_run(s, board),
                Text(s.missed + (f" ({s.owed} owed)" if s.owed else "")),
                key=s.id,
            )
        if not self._schedules:
            table.add_row(
                Text("none", style="dim"),
                Text("n adds one", style="dim"),
                Text(""),
                Text(""),
                Text(""),
            )
        self._restore(table, [s.id for s in self._schedules], keep)

    @staticmethod
    def _last_run(s: Schedule, board: DispatchBoard) -> Text:
        if not s.runs:
            return Text("never", style="dim")
        run = s.runs[-1]
        status = board.last_status.get(run.session_id)
        if status is None:
            return Text(f"{run.fired_at.astimezone():%a %H:%M} · gone", style="dim")
        glyph, label, _ = fmt.badge(status)
        return Text(f"{glyph} {label} · {run.fired_at.astimezone():%a %H:%M}")

    @staticmethod
    def _selected(table: DataTable[Text], ids: list[str]) -> str | None:
        row = table.cursor_row
        return ids[row] if ids and 0 <= row < len(ids) else None

    @staticmethod
    def _restore(table: DataTable[Text], ids: list[str], keep: str | None) -> None:
        if keep in ids:
            table.move_cursor(row=ids.index(keep), animate=False)

    def _on_queue(self) -> bool:
        return self.focused is self.query_one("#queue")

    def _to_schedules(self) -> None:
        """A schedule's key pressed on the queue means its table: go there (a key doing
        nothing, because the other table had the focus, read as broken under tmux)."""
        if self._on_queue():
            self.query_one("#schedules").focus()

    def _to_queue(self) -> None:
        if not self._on_queue():
            self.query_one("#queue").focus()

    def _session(self) -> str | None:
        return self._selected(self.query_one("#queue", DataTable), self._queued)

    def _schedule(self) -> Schedule | None:
        table: DataTable[Text] = self.query_one("#schedules", DataTable)
        row = table.cursor_row
        return self._schedules[row] if self._schedules and 0 <= row < len(self._schedules) else None

    async def _do(self, verb: str, call: Awaitable[object]) -> None:
        """Run a dispatcher call; a refusal is shown, not raised."""
        try:
            await call
        except CctuiError as exc:
            self._error(f"{verb}: {exc.message}")
            return
        self.query_one("#error").display = False
        await self.reload()

    def _error(self, message: str) -> None:
        error = self.query_one("#error", Static)
        error.update(Content.styled(message, "$text-error"))
        error.display = True

    # -- the queue -----------------------------------------------------------------------

    async def action_move(self, step: int) -> None:
        self._to_queue()
        sid = self._session()
        if sid is None:
            return
        position = self._queued.index(sid) + 1 + step
        if position < 1:
            return
        await self._do("move", self._manager.queue_move(sid, position))
        table: DataTable[Text] = self.query_one("#queue", DataTable)
        if sid in self._queued:
            table.move_cursor(row=self._queued.index(sid), animate=False)

    async def action_start_now(self) -> None:
        self._to_queue()
        sid = self._session()
        if sid is not None:
            await self._do("start now", self._manager.queue_start_now(sid))

    async def action_remove(self) -> None:
        if self._on_queue():
            sid = self._session()
            if sid is not None:
                await self._do("cancel", self._manager.queue_cancel(sid, by="tui"))
            return
        schedule = self._schedule()
        if schedule is not None:
            await self._do("delete", self._manager.schedule_delete(schedule.id))

    # -- schedules -----------------------------------------------------------------------

    async def action_pause(self) -> None:
        self._to_schedules()
        schedule = self._schedule()
        if schedule is not None:
            changes = ScheduleChanges(paused=not schedule.paused)
            await self._do("pause", self._manager.schedule_edit(schedule.id, changes))

    def action_run_now(self) -> None:
        self._to_schedules()
        schedule = self._schedule()
        if schedule is not None:
            self._run_now(schedule.id)

    @work(exclusive=True, group="run-now")
    async def _run_now(self, schedule_id: str) -> None:
        try:
            await self._manager.schedule_run_now(schedule_id)
        except CctuiError as exc:
            self._error(f"run now: {exc.message}")
        await self.reload()

    def action_new(self) -> None:
        fields = ScheduleFields(
            name="", when="every weekday 09:00", prompt="", directory=str(self._default_root)
        )
        self.app.push_screen(ScheduleForm("New schedule", fields, self._create), self._saved)

    def action_edit(self) -> None:
        self._to_schedules()
        s = self._schedule()
        if s is None:
            return
        fields = ScheduleFields(
            name=s.name,
            when=s.when,
            prompt=s.prompt,
            directory=str(s.config.cwd),
            model=s.config.model or "",
            mode=s.config.permission_mode or "",
            missed=s.missed,
            worktree=s.worktree or False,
            priority=s.priority,
            existing=s.id,
        )
        self.app.push_screen(ScheduleForm(f"Edit {s.name}", fields, self._create), self._saved)

    async def _create(self, f: ScheduleFields) -> Schedule:
        if f.existing is not None:
            changes = ScheduleChanges(
                name=f.name,
                when=f.when,
                prompt=f.prompt,
                missed=f.missed,
                worktree=f.worktree,
                priority=f.priority,
            )
            return await self._manager.schedule_edit(f.existing, changes)
        try:
            config = self._manager.default_config(
                f.directory or None, model=f.model or None, permission_mode=f.mode or None
            )
        except PydanticError:  # the core's own words for a mode it does not know
            raise ValidationFailed(
                f"Permission mode {f.mode!r} is not one claude knows "
                "(default, acceptEdits, plan, bypassPermissions, dontAsk, auto)."
            ) from None
        return await self._manager.schedule_add(
            f.name,
            f.when,
            f.prompt,
            config,
            missed=f.missed,
            worktree=f.worktree or None,
            priority=f.priority,
        )

    async def _saved(self, schedule: Schedule | None) -> None:
        await self.reload()
        if schedule is not None:
            table: DataTable[Text] = self.query_one("#schedules", DataTable)
            ids = [s.id for s in self._schedules]
            if schedule.id in ids:
                table.focus()
                table.move_cursor(row=ids.index(schedule.id), animate=False)

    # -- moving around -------------------------------------------------------------------

    def action_switch(self) -> None:
        other = "#schedules" if self._on_queue() else "#queue"
        self.query_one(other).focus()

    def action_close(self) -> None:
        self.dismiss(None)
