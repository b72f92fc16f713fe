"""Turning the CLI's permission asks into pending inputs, and decisions back into answers
(the models themselves are ``core/session/inputs.py``, below the session machinery).

Four kinds of pending input: ExitPlanMode is a ``plan_review``, AskUserQuestion a
``user_question``, any other tool a ``permission``; a ``confirmation`` is asked by cctui
itself (``confirmations.py``).
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from cctui.claude.frames import PermissionAnswer, PermissionAsk
from cctui.core.decisions.allowances import ProjectAllowance, project_words, session_allowance
from cctui.core.session.inputs import Decision, InputKind, PendingInput, Question
from cctui.errors import ValidationFailed

log = logging.getLogger(__name__)

OTHER_PREFIX = "Other:"
"""Marks a free-text answer to a question (not one of its options)."""
PLAN_TOOL = "ExitPlanMode"
QUESTION_TOOL = "AskUserQuestion"


def kind_of(tool_name: str) -> InputKind:
    """Which kind of pending input a tool's permission ask becomes."""
    if tool_name == PLAN_TOOL:
        return "plan_review"
    if tool_name == QUESTION_TOOL:
        return "user_question"
    return "permission"


def parse_questions(tool_input: dict[str, Any]) -> tuple[Question, ...]:
    """AskUserQuestion's questions; malformed entries are skipped (and logged)."""
    out: list[Question] = []
    raw = tool_input.get("questions")
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Question.model_validate(item))
        except ValidationError as exc:
            log.warning("skipping a malformed AskUserQuestion question: %s", exc)
    return tuple(out)


def from_ask(
    session_id: str,
    ask: PermissionAsk,
    plan: str | None,
    project: ProjectAllowance | None = None,
) -> PendingInput:
    """The pending input for ``ask``; ``plan`` is the plan text found for a plan review,
    ``project`` what allow-for-the-project would write."""
    kind = kind_of(ask.tool_name)
    project = project if kind == "permission" else None
    return PendingInput(
        session_id=session_id,
        kind=kind,
        tool_name=ask.tool_name,
        tool_input=dict(ask.input),
        tool_use_id=ask.tool_use_id,
        description=ask.description or ask.title,
        plan=plan if kind == "plan_review" else None,
        questions=parse_questions(ask.input) if kind == "user_question" else (),
        allow_for_session=(
            session_allowance(ask.tool_name, ask.input, ask.suggestions).description
            if kind == "permission"
            else None
        ),
        allow_for_project=project_words(project, ask.suggestions) if project else None,
        project_rules=project.rules if project else (),
        project_file=str(project.file) if project else None,
    )


def check_answers(item: PendingInput, decision: Decision) -> Decision:
    """An allowed question's answers, checked against its questions and options and spelled
    as the option labels (case-insensitive match; several labels joined by ", ").

    An answer of the form ``Other: <text>`` is free text (the CLI offers "Other" with every
    question) and goes to the CLI as ``<text>``; on a question with several answers it may
    follow the ticked labels (``ruff, Other: black``), and goes as ``ruff, black``.

    Raises:
        ValidationFailed: an unknown question, a missing answer, or an answer that is not
            one of the options.
    """
    if item.kind != "user_question" or decision.behavior != "allow" or not item.questions:
        return decision
    given: dict[str, Any] = {}
    raw_answers = (decision.updated_input or {}).get("answers")
    if isinstance(raw_answers, dict):
        given.update(raw_answers)
    elif isinstance(raw_answers, list):  # seed 002: answers in the order of the questions
        given.update((q.question, a) for q, a in zip(item.questions, raw_answers, strict=False))
    elif raw_answers is not None:
        raise ValidationFailed(
            "updatedInput.answers must map question text to a label, or list labels in order."
        )
    given.update(decision.answers or {})
    by_text = {q.question: q for q in item.questions}
    unknown = [k for k in given if k not in by_text]
    if unknown:
        raise ValidationFailed(
            f"No question {unknown[0]!r} in input {item.id}.",
            suggestion="Key answers by the question text: " + "; ".join(by_text) + ".",
        )
    checked: dict[str, str] = {}
    for q in item.questions:
        raw = given.get(q.question)
        if not isinstance(raw, str) or not raw.strip():
            raise ValidationFailed(
                f"No answer for {q.question!r}.",
                suggestion="Answer every question, or deny with your reply as the reason.",
            )
        if raw.strip().casefold().startswith(OTHER_PREFIX.casefold()):
            free = raw.strip()[len(OTHER_PREFIX) :].strip()
            if free:
                checked[q.question] = free
                continue
        labels = {o.label.casefold(): o.label for o in q.options}
        free = ""
        if q.multi_select:
            # Ticked labels and typed text together: "ruff, mypy, Other: black, isort".
            at = raw.casefold().find(", " + OTHER_PREFIX.casefold())
            if at >= 0:
                free = raw[at + 2 + len(OTHER_PREFIX) :].strip()
                raw = raw[:at]
        parts = [p.strip() for p in raw.split(",")] if q.multi_select else [raw.strip()]
        if labels:
            wrong = [p for p in parts if p.casefold() not in labels]
            if wrong or (not q.multi_select and len(parts) != 1):
                raise ValidationFailed(
                    f"{(wrong or parts)[0]!r} is not an option of {q.question!r}.",
                    suggestion="Options: "
                    + ", ".join(o.label for o in q.options)
                    + f". For anything else answer '{OTHER_PREFIX} <your text>'.",
                )
            parts = [labels[p.casefold()] for p in parts]
        checked[q.question] = ", ".join([*parts, free] if free else parts)
    updated = decision.updated_input
    if updated is not None and "answers" in updated:
        updated = {k: v for k, v in updated.items() if k != "answers"}  # the checked ones win
    return decision.model_copy(update={"answers": checked, "updated_input": updated})


def to_answer(
    item: PendingInput,
    decision: Decision,
    suggestions: tuple[int, ...] = (),
    persist: tuple[int, ...] = (),
) -> PermissionAnswer:
    """The CLI-facing answer for ``decision``.

    An allowed question sends the original input plus ``answers`` (what the CLI reads);
    a denied plan sends the feedback as the deny message, which the model receives.
    """
    if decision.behavior == "deny":
        default = (
            "The user rejected the plan."
            if item.kind == "plan_review"
            else "The user denied this tool use."
        )
        return PermissionAnswer(allow=False, message=decision.message or default)
    updated = (
        dict(decision.updated_input)
        if decision.updated_input is not None
        else dict(item.tool_input)
    )
    if item.kind == "user_question":
        answers = dict(updated.get("answers") or {})
        answers.update(decision.answers or {})
        updated["answers"] = answers
    return PermissionAnswer(
        allow=True,
        updated_input=updated,
        always=(always := decision.always or decision.for_project),
        suggestions=suggestions if always else (),
        persist=persist if always else (),
    )
