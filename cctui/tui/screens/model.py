"""The model picker: the models claude offers, the session's current one marked.

``enter`` picks the highlighted model, ``esc`` cancels. Returns the model's value (``default``
for the CLI's default), or None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cctui.core import ModelOption
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal


class ModelScreen(Modal[str | None]):
    """Pick a model for one session."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("ModelScreen")

    def __init__(
        self, models: Sequence[ModelOption], *, current: str | None, context: str = ""
    ) -> None:
        super().__init__()
        self.models = tuple(models)
        self.current = current or "default"
        """The session's model as cctui asked for it (``default``: the CLI's default)."""
        self.context = context

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Model", "bold"), id="title")
            if self.context:
                yield Static(Content.styled(self.context, "$text-muted"), id="context")
            options = []
            for model in self.models:
                mark = "● " if model.value == self.current else "  "
                label = Content.assemble(
                    (mark, "$text-accent"),
                    (model.display_name, "bold"),
                    (f"  {model.value}", "$text-muted"),
                )
                if model.description:
                    label = Content("\n").join(
                        [label, Content.styled(f"  {model.description}", "$text-muted")]
                    )
                options.append(Option(label, id=model.value))
            yield OptionList(*options, id="models")
            yield Static(
                Content.styled(
                    "A live session switches at once (its next request uses the model); an "
                    "ended one resumes with it.",
                    "$text-muted",
                ),
                id="hint",
            )
            yield Static(key_line([("enter", "use it"), ("esc", "cancel")]), id="keys")

    def on_mount(self) -> None:
        models = self.query_one(OptionList)
        values = [m.value for m in self.models]
        if self.current in values:
            models.highlighted = values.index(self.current)
        models.focus()

    @on(OptionList.OptionSelected, "#models")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
