"""The rules page: the permission rules in force for a project, each with its settings file,
and removing one.

Read from the managed, user, project and local settings files (``core.rules``). ``d`` removes
the highlighted rule after a confirmation: the file is rewritten atomically with every other
key kept, the old one beside it as ``.bak``. Managed rules cannot be removed.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from cctui.core.api import CoreApi
from cctui.core.rules import Rule, RulesInForce
from cctui.errors import CctuiError
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal
from cctui.tui.widgets.fit_table import FitTable, cut

_STYLE = {"allow": "green", "deny": "red", "ask": "yellow"}


def _home(path: Path) -> str:
    """``path`` with the home directory written ``~``."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


class RemoveRuleScreen(Modal[bool]):
    """Asks before a rule is removed."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("RemoveRuleScreen")

    def __init__(self, rule: Rule) -> None:
        super().__init__()
        self.rule = rule

    def compose(self) -> ComposeResult:
        r = self.rule
        with Vertical(id="dialog"):
            yield Static(Content.styled("Remove this rule?", "bold"), id="title")
            yield Static(
                Content.assemble(
                    (f"{r.behavior} ", f"bold {_STYLE[r.behavior]}"), (r.rule, "bold")
                ),
                id="rule",
            )
            yield Static(
                Content.styled(
                    f"from {r.file} ({r.source}); the file as it is now stays beside it as "
                    f"{r.file.name}.bak. New sessions follow the file.",
                    "$text-muted",
                ),
                id="where",
            )
            yield Static(key_line([("y", "remove it"), ("n", "keep it")]), id="keys")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class RulesScreen(Modal[None]):
    """The allow, deny and ask rules in force for one directory."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("RulesScreen")

    def __init__(self, manager: CoreApi, directory: Path) -> None:
        super().__init__()
        self._manager = manager
        self.directory = directory
        self.view: RulesInForce | None = None
        """What was read last (None until the first read)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Permission rules", "bold"), id="title")
            yield Static(Content.styled(_home(self.directory), "$text-muted"), id="where")
            # The file column gives way at 80 columns (cut with an ellipsis; "from" says which).
            yield FitTable(["file"], id="rules", cursor_type="row", zebra_stripes=True)
            yield Static(id="files")
            yield Static(
                key_line([("d", "remove"), ("esc", "close")]),
                id="keys",
            )

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        for key, label in (
            ("behavior", "rule"),
            ("rule", ""),
            ("source", "from"),
            ("file", "file"),
        ):
            table.add_column(label, key=key)
        table.focus()
        self.load()

    @work(exclusive=True, group="rules", exit_on_error=False)
    async def load(self) -> None:
        """Read the settings files again and redraw."""
        try:
            view = await self._manager.rules_for(self.directory)
        except CctuiError as exc:
            self.query_one("#files", Static).update(Content.styled(exc.message, "$text-error"))
            return
        self.view = view
        self._draw(view)

    def _draw(self, view: RulesInForce) -> None:
        table = self.query_one(FitTable)
        table.clear()
        for index, r in enumerate(view.rules):
            table.add_row(
                Text(r.behavior, style=f"bold {_STYLE[r.behavior]}"),
                Text(r.rule),
                Text(r.source, style="dim" if r.source == "managed" else ""),
                cut(_home(r.file), "dim"),
                key=str(index),
            )
        table.fit()
        lines: list[Content] = []
        if not view.rules:
            lines.append(Content.styled("No allow, deny or ask rules apply here.", "bold"))
        local = next(f for f in view.files if f.source == "local")
        lines.append(
            Content.styled(
                f"P on a pending input adds a rule to {_home(local.path)} (the repository root's).",
                "$text-muted",
            )
        )
        lines += [
            Content.styled(f"{_home(f.path)}: {f.problem}", "$text-warning")
            for f in view.files
            if f.problem
        ]
        self.query_one("#files", Static).update(Content("\n").join(lines))

    def _highlighted(self) -> Rule | None:
        table = self.query_one(DataTable)
        if self.view is None or not self.view.rules or table.cursor_row >= len(self.view.rules):
            return None
        return self.view.rules[table.cursor_row]

    def action_remove(self) -> None:
        rule = self._highlighted()
        if rule is None:
            return
        if rule.source == "managed":
            self.notify(
                "Managed settings belong to the administrator; cctui does not change them.",
                severity="warning",
            )
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._remove(rule)

        self.app.push_screen(RemoveRuleScreen(rule), callback=answered)

    @work(group="rules", exit_on_error=False)
    async def _remove(self, rule: Rule) -> None:
        try:
            change = await self._manager.remove_rule(
                self.directory, rule.rule, source=rule.source, behavior=rule.behavior, by="tui"
            )
        except (CctuiError, OSError) as exc:
            message = exc.message if isinstance(exc, CctuiError) else str(exc)
            self.notify(message, title="Not removed", severity="error")
            return
        backup = f" (backup: {change.backup.name})" if change.backup else ""
        self.notify(f"Removed {rule.rule} from {change.file.name}{backup}.")
        self.load()

    def action_close(self) -> None:
        self.dismiss(None)
