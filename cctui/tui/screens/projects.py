"""The projects view: registered projects (seed 000) and how many sessions each has.

``enter`` filters the session list to the highlighted project (``project:<id>``); ``n``
registers a directory (the one cctui was started in, by default), ``r`` renames, ``x``
removes (after a yes/no); ``esc`` closes. Every change goes through the project registry
(``cctui.projects``), which writes the file atomically; what it refuses is shown as it says.
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
from textual.widgets import DataTable, Static

from cctui.errors import CctuiError, ValidationFailed
from cctui.projects import Project, ProjectRegistry, ago
from cctui.projects.registry import check_root
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal
from cctui.tui.rows import SessionRow
from cctui.tui.screens.ask import AskScreen
from cctui.tui.screens.project_form import ProjectForm


def sessions_in(project: Project, rows: Sequence[SessionRow]) -> int:
    """How many listed sessions run under the project's root."""
    root = project.root
    return sum(1 for r in rows if r.cwd is not None and Path(r.cwd).is_relative_to(root))


_KEYS = [("enter", "show sessions"), ("n", "register"), ("r", "rename"), ("x", "remove")]


class ProjectsScreen(Modal[str | None]):
    """Registered projects; returns the id to filter by, or None."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("ProjectsScreen")

    def __init__(
        self, registry: ProjectRegistry, rows: Sequence[SessionRow], *, default_root: Path
    ) -> None:
        super().__init__()
        self._registry = registry
        self._rows = rows
        self._default_root = default_root
        """What ``n`` offers to register: the directory cctui was started in."""
        self._projects: list[Project] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Projects", "bold"), id="title")
            yield DataTable(id="projects", cursor_type="row")
            yield Static(key_line([*_KEYS, ("esc", "close")]), id="keys")
            yield Static(
                Content.styled(f"registry: {self._registry.path}", "$text-muted"), id="hint"
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
        self.reload()
        table.focus()

    def reload(self, *, select: str | None = None) -> None:
        """Re-read the registry into the table (the cursor on ``select``, else where it was)."""
        table: DataTable[Text] = self.query_one(DataTable)
        current = self._selected()
        select = select or (current.id if current is not None else None)
        table.clear()
        self._projects = []
        title = self.query_one("#title", Static)
        try:
            projects = self._registry.all()
        except CctuiError as exc:
            title.update(Content.styled(f"Projects: {exc.message}", "bold $text-error"))
            return
        if projects:
            title.update(
                Content.assemble(("Projects", "bold"), (f"  {len(projects)}", "$text-muted"))
            )
        else:
            title.update(
                Content.from_markup(
                    "[b]No projects registered[/b] · [b]n[/b] registers a directory "
                    "(an MCP client can too, with register_project)"
                )
            )
        for p in projects:
            self._projects.append(p)
            table.add_row(
                Text(p.id, style="bold" if p.active else "dim"),
                Text(p.name),
                Text(p.root_path),
                Text(str(sessions_in(p, self._rows)), justify="right"),
                Text(ago(p.last_accessed) or "", justify="right"),
                key=p.id,
            )
        ids = [p.id for p in projects]
        if select in ids:
            table.move_cursor(row=ids.index(select), animate=False)

    def _selected(self) -> Project | None:
        table = self.query_one(DataTable)
        if not self._projects or table.cursor_row >= len(self._projects):
            return None
        return self._projects[table.cursor_row]

    def action_choose(self) -> None:
        project = self._selected()
        if project is not None:
            self.dismiss(project.id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_choose()

    # -- changes -------------------------------------------------------------------------

    def action_register(self) -> None:
        root = self._default_root
        self.app.push_screen(
            ProjectForm("Register a project", self._register, name=root.name, root=root),
            callback=self._saved,
        )

    def _register(self, name: str, root: str) -> Project:
        if not name:
            raise ValidationFailed("Give the project a name.")
        resolved = check_root(root)
        for p in self._registry.all():
            if p.root == resolved:
                raise ValidationFailed(
                    f"{resolved} is registered already, as {p.id!r} ({p.name}).",
                    suggestion="Rename that one (r) instead.",
                )
        return self._registry.register(name, str(resolved))

    def action_rename(self) -> None:
        project = self._selected()
        if project is None:
            return

        def rename(name: str, _root: str) -> Project:
            return self._registry.rename(project.id, name)

        self.app.push_screen(
            ProjectForm(f"Rename {project.id}", rename, name=project.name, root=None),
            callback=self._saved,
        )

    def _saved(self, project: Project | None) -> None:
        if project is not None:
            self.reload(select=project.id)
            self.notify(f"{project.name} ({project.id}) saved in {self._registry.path}.")

    def action_remove(self) -> None:
        project = self._selected()
        if project is None:
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self._registry.remove(project.id)
            except CctuiError as exc:
                self.notify(exc.message, title="Not removed", severity="error")
            else:
                self.notify(f"{project.id} removed from the registry.")
            self.reload()

        self.app.push_screen(
            AskScreen(
                f"Remove project {project.id}?",
                f"{project.name} at {project.root_path} leaves the registry. The directory, its "
                "files and its .claude/session_state.json stay as they are; register it again "
                "to get it back.",
                yes="remove",
            ),
            callback=answered,
        )

    def action_close(self) -> None:
        self.dismiss(None)
