"""What a session asks and what it is told: pending inputs, decisions, and turning the
CLI's permission asks into pending inputs and decisions back into answers.

Four kinds of pending input: ExitPlanMode is a ``plan_review``, AskUserQuestion a
``user_question``, any other tool a ``permission``; a ``confirmation`` is asked by cctui
itself (``confirmations.py``).
"""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cctui.claude.frames import PermissionAnswer, PermissionAsk
from cctui.core.decisions.allowances import ProjectAllowance, project_words, session_allowance
from cctui.core.policy.verdict import Verdict
from cctui.errors import ValidationFailed

log = logging.getLogger(__name__)

InputKind = Literal["permission", "plan_review", "user_question", "confirmation"]


class QuestionOption(BaseModel):
    """One choice of an AskUserQuestion question."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    label: str
    description: str = ""


class Question(BaseModel):
    """One AskUserQuestion question; ``multiSelect`` keeps the CLI's spelling."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    question: str
    header: str = ""
    options: tuple[QuestionOption, ...] = ()
    multi_select: bool = Field(default=False, alias="multiSelect")


class PendingInput(BaseModel):
    """A decision a session waits for."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(default_factory=lambda: "in_" + uuid.uuid4().hex[:12])
    """Stable id that every answering channel uses."""
    session_id: str
    kind: InputKind
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str | None = None
    description: str | None = None
    """The CLI's one-line description of the tool use, when it gave one."""
    plan: str | None = None
    """For ``plan_review``: the plan as markdown."""
    questions: tuple[Question, ...] = ()
    """For ``user_question``: what to ask."""
    choices: tuple[str, ...] = ()
    """For ``confirmation``: the options (e.g. overwrite / append / cancel); the answer's
    ``Decision.choice`` is one of them. ``session_id`` then names what is being confirmed
    (e.g. ``project:myapp``), not a session."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    expires_at: datetime | None = None
    """When the timeout will deny it."""
    route: Literal["human", "client", "nobody"] = "human"
    """Who is being asked first: the human at the TUI, an MCP client via elicitation, or
    nobody (no client can be asked and no human is attached: it waits for an answer by id,
    ``claude_respond``, until the timeout denies it)."""
    route_label: str | None = None
    """Which client, when ``route`` is ``client``."""
    allow_for_session: str | None = None
    """For ``permission``: in words, what "allow for the rest of the session" would allow
    (the CLI's rule, or this exact call), until the process ends. None for plans/questions."""
    allow_for_project: str | None = None
    """For ``permission``: in words, what "always allow in this project" would write and
    where; None when the CLI suggested no rule that may be kept (see ``allowances``)."""
    project_rules: tuple[str, ...] = ()
    """The rules "always allow in this project" would write, e.g. ``Bash(npm test *)``."""
    project_file: str | None = None
    """The settings file they would go into (the repository root's
    ``.claude/settings.local.json``; a worktree's main checkout's)."""
    escalation: str | None = None
    """Why the ladder sent it to the human rather than a rung below (the breaker is open, a
    client answered beyond its authority); the inbox shows it."""


class Decision(BaseModel):
    """An answer to a pending input."""

    model_config = ConfigDict(frozen=True)

    behavior: Literal["allow", "deny"]
    message: str = ""
    """Deny reason, or feedback for a rejected plan."""
    updated_input: dict[str, Any] | None = None
    """Replaces the tool input when allowing (the CLI runs this instead)."""
    answers: dict[str, str] | None = None
    """For questions: question text -> chosen label(s), several joined by ", "."""
    always: bool = False
    """Allow for the rest of the session what ``PendingInput.allow_for_session`` says."""
    for_project: bool = False
    """With allow: also write what ``PendingInput.allow_for_project`` says to the project's
    settings (through the CLI); the rest of ``allow_for_session`` holds for the session."""
    choice: str | None = None
    """For a ``confirmation``: the option chosen."""


class Resolution(BaseModel):
    """A decision and who made it."""

    model_config = ConfigDict(frozen=True)

    input_id: str
    decision: Decision
    decided_by: str
    """``tui``, ``mcp:<client>``, ``timeout`` or ``session-ended``."""
    why: Verdict | None = None
    """Which rung decided, on what basis (``None``: withdrawn, or nothing to say)."""
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))


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
