"""The answer form of an AskUserQuestion: one block per question, options plus free text."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, RadioButton, RadioSet, SelectionList, Static

from cctui.core import OTHER_PREFIX, Question


class QuestionBlock(Vertical):
    """One question: single choice (radio), several (checklist), and an 'other' line."""

    def __init__(self, question: Question, index: int) -> None:
        super().__init__(classes="question")
        self.question = question
        self.index = index

    def compose(self) -> ComposeResult:
        q = self.question
        head: list[Content | tuple[str, str] | str] = []
        if q.header:
            head.append((f" {q.header} ", "bold reverse $text-primary"))
            head.append(" ")
        head.append((q.question, "bold"))
        if q.multi_select:
            head.append(("  (choose any)", "$text-muted"))
        yield Static(Content.assemble(*head), classes="question-text")
        if q.options and q.multi_select:
            yield SelectionList[str](
                *[(_option_label(o.label, o.description), o.label) for o in q.options],
                classes="choices",
            )
        elif q.options:
            with RadioSet(classes="choices"):
                for number, o in enumerate(q.options):
                    yield RadioButton(_option_label(o.label, o.description), value=number == 0)
        yield Input(
            placeholder="Other: type your own answer" if q.options else "Your answer",
            classes="other",
        )

    def answer(self) -> str:
        """The chosen label(s), joined by ", "; free text wins when given."""
        other = self.query_one(".other", Input).value.strip()
        if other:
            return f"{OTHER_PREFIX} {other}"
        q = self.question
        if q.options and q.multi_select:
            chosen = self.query_one(".choices", SelectionList).selected
            return ", ".join(str(c) for c in chosen)
        if q.options:
            pressed = self.query_one(".choices", RadioSet).pressed_index
            return q.options[pressed].label if pressed >= 0 else ""
        return ""


def _option_label(label: str, description: str) -> Content:
    if not description:
        return Content(label)
    return Content.assemble((label, "bold"), (f" — {description}", "$text-muted"))


class QuestionForm(Vertical):
    """All questions of one request."""

    def __init__(self, questions: Sequence[Question], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.questions = tuple(questions)

    def compose(self) -> ComposeResult:
        for index, question in enumerate(self.questions):
            yield QuestionBlock(question, index)

    def focus(self, scroll_visible: bool = True) -> QuestionForm:
        """Focus the first question's choices (or its text line)."""
        first = self.query(".choices, .other")
        if first:
            first.first().focus(scroll_visible)
        return self

    def answers(self) -> dict[str, str]:
        """Question text -> answer, as the CLI expects in ``updatedInput.answers``."""
        return {b.question.question: b.answer() for b in self.query(QuestionBlock)}
