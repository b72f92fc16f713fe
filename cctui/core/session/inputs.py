"""A pending input and its answer: the models. What a session (or cctui itself, for a
confirmation) waits for a person or a client to decide (``PendingInput``), the answer
(``Decision``) and who gave it (``Resolution``).

Below the session machinery and the decisions alike: a session's events carry pending
inputs (``InputRequestedEvent``), and ``decisions/`` opens, routes and answers them
(``decisions/requests.py`` turns the CLI's asks into them and answers back).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.core.policy.verdict import Verdict

InputKind = Literal["permission", "plan_review", "user_question", "confirmation"]


class QuestionOption(BaseModel):
    """One choice of an AskUserQuestion question."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    label: str
    description: str = ""


class Question(BaseModel):
    """One AskUserQuestion question; ``multiSelect`` keeps the CLI's spelling."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)

    question: str
    header: str = ""
    options: tuple[QuestionOption, ...] = ()
    multi_select: bool = Field(default=False, alias="multiSelect")


class PendingInput(BaseModel):
    """A decision a session waits for."""

    model_config = ConfigDict(frozen=True, defer_build=True)

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

    model_config = ConfigDict(frozen=True, defer_build=True)

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

    model_config = ConfigDict(frozen=True, defer_build=True)

    input_id: str
    decision: Decision
    decided_by: str
    """``tui``, ``mcp:<client>``, ``timeout`` or ``session-ended``."""
    why: Verdict | None = None
    """Which rung decided, on what basis (``None``: withdrawn, or nothing to say)."""
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))
