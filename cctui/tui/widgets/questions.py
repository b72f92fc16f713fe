"""The answer form of an AskUserQuestion: one block per question, options plus free text."""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, RadioButton, RadioSet, SelectionList, Static

from cctui.core import OTHER_PREFIX, Question
from cctui.tui.widgets.ticks import ChoiceButton, TickList


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
            yield TickList(
                *[
                    (_option_label(n, o.label, o.description), o.label)
                    for n, o in enumerate(q.options, 1)
                ],
                classes="choices",
            )
        elif q.options:
            with RadioSet(classes="choices"):
                for n, o in enumerate(q.options, 1):
                    yield ChoiceButton(_option_label(n, o.label, o.description), value=n == 1)
        yield Input(
            placeholder="Other: type your own answer" if q.options else "Your answer",
            classes="other",
        )

    def answer(self) -> str:
        """The chosen label(s), joined by ", ". Several: the ticked ones and the typed text
        together (``ruff, Other: black``); one: the typed text wins when given."""
        other = self.query_one(".other", Input).value.strip()
        free = f"{OTHER_PREFIX} {other}" if other else ""
        q = self.question
        if q.options and q.multi_select:
            chosen = [str(c) for c in self.query_one(".choices", SelectionList).selected]
            return ", ".join([*chosen, free] if free else chosen)
        if free:
            return free
        if q.options:
            # The buttons, not RadioSet.pressed_index: a number key's pick is in the buttons
            # at once, in the set only once its message has gone round.
            buttons = self.query_one(".choices", RadioSet).query(RadioButton)
            pressed = next((i for i, b in enumerate(buttons) if b.value), -1)
            return q.options[pressed].label if pressed >= 0 else ""
        return ""

    def pick(self, number: int) -> bool:
        """Choose option ``number`` (1-based; several: tick or untick it); False when there
        is no such option."""
        q = self.question
        if not 1 <= number <= len(q.options):
            return False
        if q.multi_select:
            self.query_one(".choices", SelectionList).toggle(q.options[number - 1].label)
        else:
            for index, button in enumerate(self.query_one(".choices", RadioSet).query(RadioButton)):
                button.value = index == number - 1
        return True


def _option_label(number: int, label: str, description: str) -> Content:
    # The number is the key that picks it (1-9).
    key = (f"{number} " if number <= 9 else "  ", "$text-muted")
    if not description:
        return Content.assemble(key, label)
    return Content.assemble(key, (label, "bold"), (f" — {description}", "$text-muted"))


def one_choice(questions: Sequence[Question]) -> bool:
    """A single question with one answer to pick: choosing it (a number key) is answering,
    and the keys say so (a ``y`` after it would land in the line that has the keyboard)."""
    only = questions[0] if len(questions) == 1 else None
    return only is not None and bool(only.options) and not only.multi_select


class QuestionForm(Vertical):
    """All questions of one request."""

    class Done(Message):
        """Enter in the last question's text line: send the answers."""

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

    def advance(self, line: Input) -> bool:
        """Enter in ``line`` (a question's text line): the next question gets the keyboard;
        True when ``line`` was the last question's (the answers are to be sent)."""
        blocks = list(self.query(QuestionBlock))
        at = next((i for i, b in enumerate(blocks) if line in b.query(".other")), None)
        if at is None or at == len(blocks) - 1:
            return True
        blocks[at + 1].query(".choices, .other").first().focus()
        return False

    @on(Input.Submitted, ".other")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.advance(event.input):
            self.post_message(self.Done())

    def answers(self) -> dict[str, str]:
        """Question text -> answer, as the CLI expects in ``updatedInput.answers``."""
        return {b.question.question: b.answer() for b in self.query(QuestionBlock)}

    def pick(self, number: int) -> bool:
        """Choose option ``number`` of the question with the focus (else the first); True
        when one was chosen."""
        blocks = list(self.query(QuestionBlock))
        focused = self.screen.focused
        block = next(
            (b for b in blocks if focused is not None and b in focused.ancestors_with_self),
            blocks[0] if blocks else None,
        )
        return block is not None and block.pick(number)

    @property
    def one_choice(self) -> bool:
        """A single question with one answer to pick: choosing it is answering."""
        return one_choice(self.questions)
