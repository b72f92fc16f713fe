"""Add or edit a schedule (from the queue and schedules page).

The form only gathers the fields; ``save`` (the page's) hands them to the dispatcher and
raises what is wrong (a ``when`` it cannot read, a name in use), which the form shows under
the fields and stays open, so a mistyped schedule is fixed in place rather than lost.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import ClassVar, cast, get_args

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Checkbox, Input, Label, Static

from cctui.core.dispatch import MissedRule, Schedule
from cctui.errors import CctuiError, ValidationFailed
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import FormModal
from cctui.tui.widgets.ticks import TickBox

_RULES: tuple[str, ...] = get_args(MissedRule)


@dataclass(frozen=True)
class ScheduleFields:
    """What the form edits."""

    name: str
    when: str
    prompt: str
    directory: str
    model: str = ""
    mode: str = ""
    missed: MissedRule = "once"
    worktree: bool | str = False
    """Each run in a new git worktree: True, or the name typed."""
    priority: int = 0
    """Each run's place when queued (higher first)."""
    existing: str | None = None
    """The schedule's id when editing (directory, model and mode are then shown, not
    changed: they belong to the schedule as made)."""


Save = Callable[[ScheduleFields], Awaitable[Schedule]]
"""Saves the fields (the core's call: an attached window's goes to the owner)."""


class ScheduleForm(FormModal[Schedule | None]):
    """The fields of a schedule; dismisses with the saved one."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("ScheduleForm")

    def __init__(self, title: str, fields: ScheduleFields, save: Save) -> None:
        super().__init__()
        self._title = title
        self._fields = fields
        self._save = save

    def compose(self) -> ComposeResult:
        f = self._fields
        new = f.existing is None
        with Vertical(id="dialog"):
            yield Static(Content.styled(self._title, "bold"), id="title")
            yield Label("Name")
            yield Input(f.name, id="name")
            yield Label("When: cron, 'every weekday 09:00', 'every 15 minutes', 'in 10 minutes'")
            yield Input(f.when, id="when")
            yield Label("Prompt")
            yield Input(f.prompt, id="prompt")
            yield Label("Directory" + ("" if new else " (kept)"))
            yield Input(f.directory, id="directory", disabled=not new)
            yield Label("Model (empty: the default) · permission mode (empty: the default)")
            yield Input(f.model, id="model", disabled=not new, placeholder="model")
            yield Input(
                f.mode, id="mode", disabled=not new, placeholder="default, acceptEdits, plan…"
            )
            yield Label("Each run in its own git worktree · priority when queued (higher first)")
            with Horizontal(id="worktree-row"):
                yield TickBox("Own git worktree", bool(f.worktree), id="worktree")
                yield Input(
                    f.worktree if isinstance(f.worktree, str) else "",
                    placeholder="name (optional)",
                    id="worktree-name",
                    disabled=not f.worktree,
                )
                yield Input(str(f.priority), placeholder="0", id="priority")
            yield Label("Missed runs: once, skip or all")
            yield Input(f.missed, id="missed")
            yield Static(id="error")
            yield Static(key_line([("ctrl+s", "save"), ("esc", "cancel")]), id="keys")

    SHORT_ROWS = 34
    """Below this many rows the fields go compact (one line each): at 80x24 the form's
    seven fields in boxes scrolled past the screen."""

    def on_resize(self, event: events.Resize) -> None:
        self._shorten(event.size.height < self.SHORT_ROWS)

    def _shorten(self, short: bool) -> None:
        self.set_class(short, "-short")
        for field in self.query(Input):
            field.compact = short
        self.query_one("#worktree", Checkbox).compact = short

    def on_mount(self) -> None:
        self._shorten(self.app.size.height < self.SHORT_ROWS)
        self.query_one("#error").display = False
        self.query_one("#name" if not self._fields.name else "#when", Input).focus()

    def _value(self, field: str) -> str:
        return self.query_one(f"#{field}", Input).value.strip()

    @on(Checkbox.Changed, "#worktree")
    def _worktree_toggled(self, event: Checkbox.Changed) -> None:
        self.query_one("#worktree-name", Input).disabled = not event.value

    @on(Input.Submitted)
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.action_save()

    async def action_save(self) -> None:
        try:
            missed = self._value("missed") or "once"
            if missed not in _RULES:
                raise ValidationFailed("Missed runs: once, skip or all.")
            mode = self._value("mode")
            try:
                priority = int(self._value("priority") or "0")
            except ValueError:
                raise ValidationFailed("Priority: a whole number (higher starts first).") from None
            worktree: bool | str = False
            if self.query_one("#worktree", Checkbox).value:
                worktree = self._value("worktree-name") or True
            fields = replace(
                self._fields,
                name=self._value("name"),
                when=self._value("when"),
                prompt=self._value("prompt"),
                directory=self._value("directory"),
                model=self._value("model"),
                mode=mode,
                missed=cast("MissedRule", missed),
                worktree=worktree,
                priority=priority,
            )
            schedule = await self._save(fields)
        except CctuiError as exc:
            self.show_error(exc.message + (f" {exc.suggestion}" if exc.suggestion else ""))
            return
        self.dismiss(schedule)
