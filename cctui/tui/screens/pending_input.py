"""Pending input modals: one per pending input, typed to return a ``Decision`` (or ``None``: later).

``y`` allows, ``n`` denies (asking for an optional reason), ``A`` allows for the rest of the
session, ``P`` always allows in this project (the rule and the settings file it goes into are
shown before the key is pressed), ``esc`` puts it back in the inbox. Plan reviews and
questions use the same keys.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from cctui.core import Decision, PendingInput
from cctui.tui import render
from cctui.tui.keymap import bindings
from cctui.tui.markdown import MarkdownView
from cctui.tui.screens.decision import DecisionModal
from cctui.tui.widgets.questions import QuestionForm, one_choice

_TITLES = {"permission": "Permission", "plan_review": "Plan review", "user_question": "Question"}


def allow_scope(pending: PendingInput) -> str:
    """What ``A`` will allow, in words: the core's text (the rule Claude Code suggested), or,
    when it has none, the whole tool, as the core then remembers it."""
    return (
        pending.allow_for_session
        or f"Allow every {pending.tool_name} call for the rest of this session."
    )


def project_scope(pending: PendingInput) -> Content:
    """What ``P`` will write and where, or why there is nothing to keep for the project."""
    if pending.allow_for_project:
        return Content.assemble(("P ", "bold $text-accent"), pending.allow_for_project)
    return Content.styled(
        "P  nothing to keep for the project: Claude Code suggested no rule with a command or "
        "path pattern (a whole tool, a mode or a directory is never written).",
        "$text-muted",
    )


_CHOICES = {
    "permission": ("allow", "allow_always", "deny"),
    "plan_review": ("allow", "deny"),
}
"""What each number key does on a request, in Claude Code's own order (its prompt's 1, 2, 3)."""


def choice_of(kind: str, number: int) -> str | None:
    """The action (``allow``, ``allow_always``, ``deny``) number ``number`` picks on a request
    of ``kind``; None when it picks nothing."""
    choices = _CHOICES.get(kind, ())
    return choices[number - 1] if 1 <= number <= len(choices) else None


def choose_by_number(owner: Widget, kind: str, number: int) -> None:
    """A number key on a request (the modal's or the peek's): a question's option (a single
    question with one answer is answered at once), else the choice ``choice_of`` names, run
    as ``owner``'s own ``action_allow`` / ``action_allow_always`` / ``action_deny``."""
    forms = owner.query(QuestionForm)
    if kind == "user_question" and forms:
        if forms.first().pick(number) and forms.first().one_choice:
            getattr(owner, "action_allow")()  # noqa: B009 - the owner's own action
        return
    choice = choice_of(kind, number)
    if choice is not None:
        getattr(owner, f"action_{choice}")()


def _escalation(reason: str | None) -> Content:
    return Content.styled(f"↑ escalated to you: {reason}", "$text-warning") if reason else Content()


class ReasonInput(Input):
    """The optional deny reason / plan feedback; ``esc`` backs out of denying."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("ReasonInput")

    class Cancelled(Message):
        """The user backed out of denying."""

    def action_cancel(self) -> None:
        self.post_message(self.Cancelled())


class PendingInputScreen(DecisionModal):
    """Asks the human about one pending input."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("PendingInputScreen")

    def __init__(self, pending: PendingInput, *, context: str = "", queued: int = 0) -> None:
        super().__init__(pending, context=context, queued=queued, classes=f"-{pending.kind}")
        self._denying = False

    def escalated(self, reason: str) -> None:
        """The ladder sent this input up to the human while it was open: say why."""
        self.pending = self.pending.model_copy(update={"escalation": reason})
        note = self.query_one("#escalation", Static)
        note.update(_escalation(reason))
        note.display = True

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
            # Why the ladder sent it up to you (as the inbox's preview says); filled in later
            # when it is escalated while this is open (a delegate's answer beyond its grant).
            note = Static(_escalation(p.escalation), id="escalation")
            note.display = bool(p.escalation)
            yield note
            described = render.request_description(p.description, p.tool_name, p.tool_input)
            if described and p.kind == "permission":
                yield Static(Content(described), id="description")
            with VerticalScroll(id="body"):
                yield self._body()
            if p.kind == "permission":
                yield Static(
                    Content.assemble(("A ", "bold $text-accent"), allow_scope(p)),
                    id="allow-scope",
                )
                yield Static(project_scope(p), id="project-scope")
            yield ReasonInput(placeholder=self._reason_placeholder(), id="reason")
            yield Static(self.key_line(), id="keys")

    def _body(self) -> Widget:
        p = self.pending
        if p.kind == "plan_review":
            return MarkdownView(p.plan or "_(the plan is empty)_", id="plan")
        if p.kind == "user_question" and p.questions:
            return QuestionForm(p.questions, id="questions")
        # Nothing is cut: the approver scrolls through every field of what they allow.
        return Static(render.tool_input(p.tool_name, p.tool_input, limit=None), id="tool-input")

    def _reason_placeholder(self) -> str:
        if self.pending.kind == "plan_review":
            return "What should change? enter rejects with this feedback · esc back"
        return "Reason (optional) · enter denies · esc back"

    def key_pairs(self) -> list[tuple[str, str]]:
        kind = self.pending.kind
        if self._denying:
            return [("enter", "deny" if kind != "plan_review" else "reject"), ("esc", "back")]
        if kind == "plan_review":
            return [("y 1", "approve"), ("n 2", "reject with feedback"), ("esc", "later")]
        if kind == "user_question":
            if one_choice(self.pending.questions):
                return [("1-9", "answer"), ("n", "decline"), ("esc", "later")]
            return [("1-9", "choose"), ("y", "send answers"), ("n", "decline"), ("esc", "later")]
        pairs = [("y 1", "allow"), ("A 2", "allow for this session"), ("n 3", "deny")]
        if self.pending.allow_for_project:
            pairs.append(("P", "always allow in this project"))
        return [*pairs, ("esc", "later")]

    def on_mount(self) -> None:
        self.query_one("#reason").display = False
        form = self.query("#questions")
        (form.first() if form else self.query_one("#body")).focus()
        self.call_after_refresh(self._fit_body)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_body)

    SHORT_ROWS = 34
    """Below this many rows the dialog takes the whole height and drops its blank lines
    (``-short`` in its stylesheet), so what is asked keeps the most room."""

    def _fit_body(self) -> None:
        """The body scrolls within what the dialog's other lines leave: at 80x24 a question
        or a long command would otherwise push the key line off the screen."""
        if not self.is_attached or not self.query("#dialog"):
            # Answered elsewhere (a client, the timeout) between the refresh this waited for
            # and now: the screen is gone, and so is its dialog (querying it crashed cctui).
            return
        short = self.size.height < self.SHORT_ROWS
        if short != self.has_class("-short"):
            self.set_class(short, "-short")
            self.call_after_refresh(self._fit_body)  # measured again without the blanks
            return
        dialog = self.query_one("#dialog")
        body = self.query_one("#body")
        others = sum(
            w.outer_size.height + max(w.styles.margin.top, w.styles.margin.bottom)
            for w in dialog.children
            if w is not body and w.display
        )
        chrome = dialog.outer_size.height - dialog.size.height  # its border and padding
        room = int(self.size.height * (1 if short else 0.9)) - chrome - others
        body.styles.max_height = max(3, min(30, room))

    def action_allow(self) -> None:
        if not self.armed() or self._denying:
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
        if not self.armed() or self._denying:
            return
        if self.pending.kind != "permission":
            self.action_allow()
            return
        self.dismiss(Decision(behavior="allow", always=True))

    def action_allow_project(self) -> None:
        if not self.armed() or self._denying:
            return
        if self.pending.kind != "permission":
            return  # a plan or a question has nothing to keep for the project
        if not self.pending.allow_for_project:
            self.notify(
                "Nothing to keep for the project: Claude Code suggested no rule with a command "
                "or path pattern. A allows for this session.",
                severity="warning",
            )
            return
        self.dismiss(Decision(behavior="allow", for_project=True))

    def action_choose(self, number: int) -> None:
        """``1``-``9``: see ``choose_by_number``."""
        if self.armed() and not self._denying:
            choose_by_number(self, self.pending.kind, number)

    def action_deny(self) -> None:
        if not self.armed() or self._denying:
            return
        self._denying = True
        reason = self.query_one("#reason", ReasonInput)
        reason.display = True
        reason.focus()
        self.query_one("#keys", Static).update(self.key_line())
        self.call_after_refresh(self._fit_body)

    @on(QuestionForm.Done)
    def _questions_done(self) -> None:
        self.action_allow()

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
        self.query_one("#keys", Static).update(self.key_line())
