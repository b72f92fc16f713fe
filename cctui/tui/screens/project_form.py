"""Register or rename a project from the projects page.

The form only gathers the fields; ``save`` (the projects page's) writes the registry and
raises what is wrong, which the form shows under the fields and stays open, so a mistyped
directory is fixed in place rather than lost.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label, Static

from cctui.errors import CctuiError
from cctui.projects import Project
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import FormModal

Save = Callable[[str, str], Project]
"""(name, root directory) -> the project written; raises ``CctuiError`` when refused."""


class ProjectForm(FormModal[Project | None]):
    """A name and (when registering) a root directory; dismisses with the saved project."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("ProjectForm")

    def __init__(self, title: str, save: Save, *, name: str, root: Path | None) -> None:
        """``root`` None: renaming (the directory is shown, not edited)."""
        super().__init__()
        self._title = title
        self._save = save
        self._name = name
        self._root = root

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled(self._title, "bold"), id="title")
            yield Label("Name")
            yield Input(self._name, id="name")
            if self._root is not None:
                yield Label("Directory (absolute)")
                yield Input(str(self._root), id="root")
            yield Static(id="error")
            yield Static(key_line([("enter", "save"), ("esc", "cancel")]), id="keys")

    def on_mount(self) -> None:
        self.query_one("#error").display = False
        self.query_one("#name", Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        roots = self.query("#root")
        root = roots.first(Input).value.strip() if roots else ""
        try:
            project = self._save(name, root)
        except CctuiError as exc:
            self.show_error(exc.message + (f" {exc.suggestion}" if exc.suggestion else ""))
            return
        self.dismiss(project)
