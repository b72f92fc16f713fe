"""The projects view: registered projects (seed 000) and how many sessions each has.

``enter`` filters the session list to the highlighted project (``project:<id>``), ``esc``
closes. The registry is read, never written, here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from cctui.errors import CctuiError
from cctui.projects import Project, ProjectRegistry, ago
from cctui.tui.keymap import bindings
from cctui.tui.rows import SessionRow


def sessions_in(project: Project, rows: Sequence[SessionRow]) -> int:
    """How many listed sessions run under the project's root."""
    root = project.root
    return sum(1 for r in rows if r.cwd is not None and Path(r.cwd).is_relative_to(root))


class ProjectsScreen(ModalScreen[str | None]):
    """Registered projects; returns the id to filter by, or None."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("ProjectsScreen")

    def __init__(self, registry: ProjectRegistry, rows: Sequence[SessionRow]) -> None:
        super().__init__()
        self._registry = registry
        self._rows = rows
        self._ids: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Projects", "bold"), id="title")
            yield DataTable(id="projects", cursor_type="row")
            yield Static(
                Content.from_markup(
                    "[b]enter[/b] show this project's sessions · [b]esc[/b] close · "
                    f"registry: {self._registry.path}"
                ),
                id="hint",
            )

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        for key, label in (
            ("id", "id"),
            ("name", "name"),
            ("root", "root"),
            ("sessions", "sessions"),
            ("accessed", "accessed"),
        ):
            table.add_column(label, key=key)
        try:
            projects = self._registry.all()
        except CctuiError as exc:
            self.query_one("#title", Static).update(
                Content.styled(f"Projects: {exc.message}", "bold $text-error")
            )
            return
        if not projects:
            self.query_one("#title", Static).update(
                Content.from_markup(
                    "[b]No projects registered[/b] · an MCP client adds them with register_project"
                )
            )
        for p in projects:
            self._ids.append(p.id)
            table.add_row(
                Text(p.id, style="bold" if p.active else "dim"),
                Text(p.name),
                Text(p.root_path),
                Text(str(sessions_in(p, self._rows)), justify="right"),
                Text(ago(p.last_accessed) or "", justify="right"),
                key=p.id,
            )
        table.focus()

    def action_choose(self) -> None:
        table = self.query_one(DataTable)
        if self._ids and table.cursor_row < len(self._ids):
            self.dismiss(self._ids[table.cursor_row])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_choose()

    def action_close(self) -> None:
        self.dismiss(None)
