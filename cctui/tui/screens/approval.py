"""Approval modals: one per pending input, typed to return a ``Decision`` (or ``None``: later).

``y`` allows, ``n`` denies (asking for an optional reason), ``A`` allows for the rest of the
session, ``esc`` puts it back in the inbox. Plan reviews and questions use the same keys.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Markdown, Static

from cctui.core import Decision, PendingInput
from cctui.tui import render
from cctui.tui.widgets.questions import QuestionForm

_TITLES = {"permission": "Permission", "plan_review": "Plan review", "user_question": "Question"}


def allow_scope(pending: PendingInput) -> str:
    """What ``A`` will allow, in words: the core's text (the rule Claude Code suggested), or,
    when it has none, the whole tool, as the core then remembers it."""
    return (
        pending.allow_for_session
        or f"Allow every {pending.tool_name} call for the rest of this session."
    )


class ReasonInput(Input):
    """The optional deny reason / plan feedback; ``esc`` backs out of denying."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    class Cancelled(Message):
        """The user backed out of denying."""

    def action_cancel(self) -> None:
        self.post_message(self.Cancelled())


class ApprovalScreen(ModalScreen[Decision | None]):
    """Asks the human about one pending input."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "allow", "Allow"),
        Binding("n", "deny", "Deny"),
        Binding("A", "allow_always", "Allow for session"),
        Binding("escape", "later", "Later"),
    ]

    ARM_DELAY_S: ClassVar[float] = 0.4
    """Keys are ignored this long after the modal appears, so a 'y' typed into another
    field a moment earlier cannot approve a tool call nobody has read yet."""

    def __init__(self, pending: PendingInput, *, context: str = "", queued: int = 0) -> None:
        super().__init__(classes=f"-{pending.kind}")
        self.pending = pending
        self.context = context
        self.queued = queued
        self.withdrawn_by: str | None = None
        """Set when another channel answered first and this modal closed itself."""
        self._armed_at = 0.0
        self._denying = False

    def compose(self) -> ComposeResult:
        p = self.pending
        with Vertical(id="dialog"):
            title = _TITLES.get(p.kind, p.kind)
            tool = p.tool_name if p.kind == "permission" else ""
            yield Static(
                Content.assemble(
                    ("◆ ", "$text-warning"), (title, "bold"), (f"  {tool}", "bold $text-accent")
                ),
                id="title",
            )
            if self.context:
                yield Static(Content.styled(self.context, "$text-muted"), id="context")
            if p.description and p.kind == "permission":
                yield Static(Content(p.description), id="description")
            with VerticalScroll(id="body"):
                yield self._body()
            if p.kind == "permission":
                yield Static(
                    Content.assemble(("A ", "bold $text-accent"), allow_scope(p)),
                    id="allow-scope",
                )
            yield ReasonInput(placeholder=self._reason_placeholder(), id="reason")
            yield Static(self._keys(), id="keys")

    def _body(self) -> Widget:
        p = self.pending
        if p.kind == "plan_review":
            return Markdown(p.plan or "_(the plan is empty)_", id="plan")
        if p.kind == "user_question" and p.questions:
            return QuestionForm(p.questions, id="questions")
        # Nothing is cut: the approver scrolls through every field of what they allow.
        return Static(render.tool_input(p.tool_name, p.tool_input, limit=None), id="tool-input")

    def _reason_placeholder(self) -> str:
        if self.pending.kind == "plan_review":
            return "What should change? enter rejects with this feedback · esc back"
        return "Reason (optional) · enter denies · esc back"

    def _keys(self) -> Content:
        kind = self.pending.kind
        if self._denying:
            pairs = [("enter", "deny" if kind != "plan_review" else "reject"), ("esc", "back")]
        elif kind == "plan_review":
            pairs = [("y", "approve"), ("n", "reject with feedback"), ("esc", "later")]
        elif kind == "user_question":
            pairs = [("y", "send answers"), ("n", "decline"), ("esc", "later")]
        else:
            pairs = [
                ("y", "allow"),
                ("n", "deny"),
                ("A", "allow for this session"),
                ("esc", "later"),
            ]
        parts: list[Content | str] = []
        for key, label in pairs:
            parts += [Content.styled(f" {key} ", "bold reverse $text-accent"), f" {label}   "]
        if self.queued:
            parts.append(Content.styled(f"+{self.queued} more waiting", "$text-warning"))
        return Content.assemble(*parts)

    def on_mount(self) -> None:
        self._armed_at = time.monotonic() + self.ARM_DELAY_S
        self.query_one("#reason").display = False
        form = self.query("#questions")
        (form.first() if form else self.query_one("#body")).focus()

    def _armed(self) -> bool:
        return time.monotonic() >= self._armed_at

    def set_queued(self, queued: int) -> None:
        """How many more wait behind this one (shown in the key line)."""
        self.queued = queued
        self.query_one("#keys", Static).update(self._keys())

    def withdraw(self, decided_by: str) -> None:
        """Someone else answered first: close without a decision."""
        self.withdrawn_by = decided_by
        self.dismiss(None)

    def action_allow(self) -> None:
        if not self._armed() or self._denying:
            return
        if self.pending.kind == "user_question":
            form = self.query("#questions")
            answers = form.first(QuestionForm).answers() if form else {}
            missing = [q for q, a in answers.items() if not a]
            if missing:
                self.notify(f"Choose an answer for: {missing[0]}", severity="warning")
                return
            self.dismiss(Decision(behavior="allow", answers=answers))
            return
        self.dismiss(Decision(behavior="allow"))

    def action_allow_always(self) -> None:
        if not self._armed() or self._denying:
            return
        if self.pending.kind != "permission":
            self.action_allow()
            return
        self.dismiss(Decision(behavior="allow", always=True))

    def action_deny(self) -> None:
        if not self._armed() or self._denying:
            return
        self._denying = True
        reason = self.query_one("#reason", ReasonInput)
        reason.display = True
        reason.focus()
        self.query_one("#keys", Static).update(self._keys())

    def action_later(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#reason")
    def _deny_with_reason(self, event: Input.Submitted) -> None:
        event.stop()
        message = event.value.strip()
        if not message and self.pending.kind == "plan_review":
            message = "The user rejected the plan."
        self.dismiss(Decision(behavior="deny", message=message))

    @on(ReasonInput.Cancelled)
    def _back_from_deny(self) -> None:
        self._denying = False
        reason = self.query_one("#reason", ReasonInput)
        reason.display = False
        self.query_one("#body").focus()
        self.query_one("#keys", Static).update(self._keys())
