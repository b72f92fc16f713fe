"""Turning the CLI's permission asks into pending inputs, and decisions back into answers.

Three kinds: ExitPlanMode is a ``plan_review``, AskUserQuestion a ``user_question``, any
other tool a ``permission``.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from cctui.claude.frames import PermissionAnswer, PermissionAsk
from cctui.core.allow import session_allowance
from cctui.core.pending import Decision, InputKind, PendingInput, Question

log = logging.getLogger(__name__)

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


def build_input(session_id: str, ask: PermissionAsk, plan: str | None) -> PendingInput:
    """The pending input for ``ask``; ``plan`` is the plan text found for a plan review."""
    kind = kind_of(ask.tool_name)
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
    )


def to_answer(
    item: PendingInput, decision: Decision, suggestions: tuple[int, ...] = ()
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
        always=decision.always,
        suggestions=suggestions if decision.always else (),
    )
