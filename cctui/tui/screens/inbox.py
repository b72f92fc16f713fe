"""The inbox screen: every pending input across sessions, answered in turn."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from cctui.core import Decision, PendingInput
from cctui.tui import format as fmt
from cctui.tui import render
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import Modal
from cctui.tui.screens.decision import DecisionModal
from cctui.tui.widgets.fit_table import FitTable, cut

_KIND = {"permission": "permission", "plan_review": "plan", "user_question": "question"}
# "asks" comes second: who decides (and the ladder's ↑) must show at 80 columns, where
# "session" and "what" give way (cut with an ellipsis; the preview shows the request whole).
_COLUMN_KEYS = ("age", "who", "session", "kind", "what")
_COLUMN_LABELS = ("waiting", "asks", "session", "request", "what")
# The keys that apply to the request under the cursor: only a permission is allowed or
# denied in place; a plan or a question opens its modal to be read and answered there.
_KEYS: dict[str | None, list[tuple[str, str]]] = {
    "permission": [("enter", "open"), ("y", "allow"), ("n", "deny"), ("esc", "close")],
    "plan_review": [("enter", "review the plan"), ("esc", "close")],
    "user_question": [("enter", "answer"), ("esc", "close")],
    None: [("esc", "close")],
}
_OPEN_KEYS = [("enter", "open"), ("esc", "close")]  # a kind this table does not know yet


class InboxScreen(Modal[None]):
    """Lists pending inputs; ``enter`` opens one, ``y``/``n`` answer a permission in place.

    ``y``/``n`` are ignored for the modal's arm delay after the inbox opens and whenever a
    different request comes under the cursor, and the cursor stays on its request (by id)
    when the list changes: a request nobody has read is never answered.
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("InboxScreen")

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
        self._armed_for: str | None = None
        self._armed_at = 0.0

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            yield FitTable(["session", "what"], id="table", cursor_type="row")
            with VerticalScroll(id="preview"):
                yield Static(id="preview-body")
            yield Static(key_line(_KEYS[None]), id="keys")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label in zip(_COLUMN_KEYS, _COLUMN_LABELS, strict=True):
            table.add_column(label, key=key)
        self.reload()
        table.focus()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        """Keep each row's "waiting" time current."""
        table = self.query_one(FitTable)
        for p in self._shown:
            table.update_cell(p.id, "age", Text(fmt.waited(p.created_at), justify="right"))
        table.fit()  # a longer age leaves "what" less room

    def _cells(self, p: PendingInput) -> tuple[Text, ...]:
        who = (p.route_label or "client") if p.route == "client" else "you"
        if p.escalation:
            who += " ↑"  # the ladder sent it up; the preview says why
        return (
            Text(fmt.waited(p.created_at), justify="right"),
            Text(who),
            cut(fmt.one_line(self._describe(p.session_id), 30)),
            Text(p.tool_name if p.kind == "permission" else _KIND.get(p.kind, p.kind)),
            cut(
                fmt.pending_summary(
                    p.kind,
                    p.tool_name,
                    p.tool_input,
                    p.plan,
                    tuple(q.question for q in p.questions),
                    48,
                )
            ),
        )

    def reload(self) -> None:
        """Re-read the pending inputs (one was answered or a new one arrived); rows are
        diffed so the cursor stays on the request it was on."""
        table = self.query_one(FitTable)
        selected = self._selected()
        row_before = table.cursor_row
        # Longest-waiting first, whatever order the source keeps (ties: by id, stable).
        items = sorted(self._items(), key=lambda p: (p.created_at, p.id))
        old = {p.id: p for p in self._shown}
        new_ids = [p.id for p in items]
        for gone in [i for i in old if i not in set(new_ids)]:
            table.remove_row(gone)
        for p in items:
            if p.id not in old:
                table.add_row(*self._cells(p), key=p.id)
            elif p != old[p.id]:
                for key, cell in zip(_COLUMN_KEYS, self._cells(p), strict=True):
                    table.update_cell(p.id, key, cell)
        if [str(r.key.value) for r in table.ordered_rows] != new_ids:
            table.clear()  # an order the diff cannot express: rebuild (rare)
            for p in items:
                table.add_row(*self._cells(p), key=p.id)
        self._shown = items
        table.fit()
        if selected is not None and selected.id in new_ids:
            table.move_cursor(row=new_ids.index(selected.id), animate=False)
        elif items:
            # Its request was answered: the neighbour comes under the cursor (and re-arms).
            table.move_cursor(row=min(row_before, len(items) - 1), animate=False)
        count = len(items)
        self.query_one("#title", Static).update(
            Content.assemble(
                ("Inbox", "bold"),
                (
                    f"  {count} waiting · longest first"
                    if count
                    else "  nothing is waiting for you",
                    "$text-muted",
                ),
            )
        )
        self.set_class(count == 0, "-empty")
        self._preview()

    def _selected(self) -> PendingInput | None:
        table = self.query_one(DataTable)
        if not self._shown or table.cursor_row >= len(self._shown):
            return None
        return self._shown[table.cursor_row]

    def _rearm(self) -> None:
        p = self._selected()
        current = p.id if p is not None else None
        if current != self._armed_for:
            self._armed_for = current
            self._armed_at = time.monotonic() + DecisionModal.ARM_DELAY_S

    def _armed(self) -> bool:
        self._rearm()
        return time.monotonic() >= self._armed_at

    @on(DataTable.RowHighlighted)
    def _preview(self) -> None:
        self._rearm()
        p = self._selected()
        kind = p.kind if p is not None else None
        self.query_one("#keys", Static).update(key_line(_KEYS.get(kind, _OPEN_KEYS)))
        body = self.query_one("#preview-body", Static)
        if p is None:
            body.update(
                Content.styled("Pending inputs from every session land here.", "$text-muted")
            )
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
            shown = render.tool_input(p.tool_name, p.tool_input, limit=None)
            if p.escalation:  # why the ladder sent it up to you, before what it is
                head = Content.styled(f"↑ escalated to you: {p.escalation}\n\n", "$warning")
                shown = head + shown
            body.update(shown)

    def action_open(self) -> None:
        p = self._selected()
        if p is not None:
            self.post_message(self.Answer(p.id, None))

    def action_quick(self, behavior: str) -> None:
        p = self._selected()
        if p is None or not self._armed():
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
