"""The approvals inbox: every pending input across sessions, answered in turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from cctui.core import Decision, PendingInput
from cctui.tui import format as fmt
from cctui.tui import render

_KIND = {"permission": "permission", "plan_review": "plan", "user_question": "question"}


class InboxScreen(ModalScreen[None]):
    """Lists pending inputs; ``enter`` opens one, ``y``/``n`` answer a permission in place."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", priority=True),
        Binding("y", "quick('allow')", "Allow"),
        Binding("n", "quick('deny')", "Deny"),
        Binding("escape,a", "close", "Close"),
    ]

    class Answer(Message):
        """Answer ``input_id`` with ``decision``, or open its modal when ``decision`` is None."""

        def __init__(self, input_id: str, decision: Decision | None) -> None:
            super().__init__()
            self.input_id = input_id
            self.decision = decision

    def __init__(
        self, items: Callable[[], list[PendingInput]], context: Callable[[str], str]
    ) -> None:
        super().__init__()
        self._items = items
        self._describe = context
        self._shown: list[PendingInput] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            yield DataTable[Text](id="table", cursor_type="row")
            with VerticalScroll(id="preview"):
                yield Static(id="preview-body")
            yield Static(_keys(), id="keys")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label in (
            ("age", "asked"),
            ("session", "session"),
            ("kind", "request"),
            ("what", "what"),
            ("who", "asks"),
        ):
            table.add_column(label, key=key)
        self.reload()
        table.focus()

    def reload(self) -> None:
        """Re-read the pending inputs (one was answered or a new one arrived)."""
        table = self.query_one(DataTable)
        selected = self._selected()
        self._shown = self._items()
        table.clear()
        for p in self._shown:
            who = (p.route_label or "client") if p.route == "client" else "you"
            table.add_row(
                Text(fmt.age(p.created_at)),
                Text(fmt.one_line(self._describe(p.session_id), 30)),
                Text(p.tool_name if p.kind == "permission" else _KIND.get(p.kind, p.kind)),
                Text(
                    fmt.pending_summary(
                        p.kind,
                        p.tool_name,
                        p.tool_input,
                        p.plan,
                        tuple(q.question for q in p.questions),
                        48,
                    )
                ),
                Text(who),
                key=p.id,
            )
        ids = [p.id for p in self._shown]
        if selected is not None and selected.id in ids:
            table.move_cursor(row=ids.index(selected.id), animate=False)
        count = len(self._shown)
        self.query_one("#title", Static).update(
            Content.assemble(
                ("Approvals inbox", "bold"),
                (f"  {count} waiting" if count else "  nothing is waiting for you", "$text-muted"),
            )
        )
        self.set_class(count == 0, "-empty")
        self._preview()

    def _selected(self) -> PendingInput | None:
        table = self.query_one(DataTable)
        if not self._shown or table.cursor_row >= len(self._shown):
            return None
        return self._shown[table.cursor_row]

    @on(DataTable.RowHighlighted)
    def _preview(self) -> None:
        p = self._selected()
        body = self.query_one("#preview-body", Static)
        if p is None:
            body.update(Content.styled("Approvals from every session land here.", "$text-muted"))
        elif p.kind == "plan_review":
            body.update(Content(p.plan or "(empty plan)"))
        elif p.kind == "user_question":
            body.update(
                Content(
                    "\n".join(
                        f"{q.question}  [{' / '.join(o.label for o in q.options)}]"
                        for q in p.questions
                    )
                )
            )
        else:
            body.update(render.tool_input(p.tool_name, p.tool_input))

    def action_open(self) -> None:
        p = self._selected()
        if p is not None:
            self.post_message(self.Answer(p.id, None))

    def action_quick(self, behavior: str) -> None:
        p = self._selected()
        if p is None:
            return
        if p.kind != "permission":
            # Plans and questions need reading (and answers): open the full modal.
            self.post_message(self.Answer(p.id, None))
            return
        self.post_message(
            self.Answer(
                p.id,
                Decision(
                    behavior="allow" if behavior == "allow" else "deny",
                    message="" if behavior == "allow" else "Denied from the cctui inbox.",
                ),
            )
        )

    def action_close(self) -> None:
        self.dismiss(None)


def _keys() -> Content:
    parts: list[Content | str] = []
    for key, label in (("enter", "open"), ("y", "allow"), ("n", "deny"), ("esc", "close")):
        parts += [Content.styled(f" {key} ", "bold reverse $text-accent"), f" {label}   "]
    return Content.assemble(*parts)
