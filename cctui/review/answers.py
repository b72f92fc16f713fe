"""Claude's JSON answers: one model per review, and the parser that finds and checks them.

Models are lenient where a model's JSON habitually varies (case of enum values, a string
where a list of objects was asked for) and strict where the caller decides on the value
(the verdict, the side, ``valid``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

Severity = Literal["critical", "high", "medium", "low", "info"]
Verdict = Literal["PASS", "CONDITIONAL", "FAIL", "CRITICAL_HALT"]


class _Answer(BaseModel):
    # Built at the first answer read, not at import: the TUI's first frame reads none.
    model_config = ConfigDict(extra="ignore", defer_build=True)


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def _as_objects(value: Any, key: str) -> Any:
    """``["text", ...]`` -> ``[{key: "text"}, ...]`` (models often shorten lists that way)."""
    if isinstance(value, list):
        return [{key: v} if isinstance(v, str) else v for v in value]
    return value


def _as_texts(value: Any) -> Any:
    """``[{"description": "x"}, ...]`` -> ``["x", ...]``."""
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, dict):
                v = v.get("description") or v.get("issue") or json.dumps(v, ensure_ascii=False)
            out.append(v)
        return out
    return value


class Issue(_Answer):
    """A blocking issue the Judge found."""

    description: str
    file: str | None = None
    line: int | None = None
    severity: Severity = "high"

    _sev = field_validator("severity", mode="before")(_lower)


class Criterion(_Answer):
    """One acceptance criterion and whether the change meets it."""

    criterion: str
    met: bool
    note: str | None = None


class JudgeAnswer(_Answer):
    """The Judge's verdict on a task contract."""

    task_id: str | None = None
    verdict: Verdict
    summary: str = ""
    blocking_issues: list[Issue] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    acceptance_criteria: list[Criterion] = Field(default_factory=list)

    @field_validator("verdict", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper().replace(" ", "_") if isinstance(value, str) else value

    @field_validator("blocking_issues", mode="before")
    @classmethod
    def _issues(cls, value: Any) -> Any:
        return _as_objects(value, "description")

    @field_validator("suggestions", mode="before")
    @classmethod
    def _suggestions(cls, value: Any) -> Any:
        return _as_texts(value)

    @model_validator(mode="after")
    def _consistent(self) -> JudgeAnswer:
        # A client acts on verdict and blocking_issues_count alone; they must agree.
        if self.verdict in ("FAIL", "CRITICAL_HALT") and not self.blocking_issues:
            raise ValueError(f"a {self.verdict} verdict must list its blocking_issues")
        if self.verdict == "PASS" and self.blocking_issues:
            raise ValueError("a PASS verdict cannot have blocking_issues (use CONDITIONAL or FAIL)")
        return self


class ProposalAnswer(_Answer):
    """Whether a proposal is complete and actionable."""

    valid: bool
    issues: list[str] = Field(default_factory=list)

    @field_validator("issues", mode="before")
    @classmethod
    def _issues(cls, value: Any) -> Any:
        return _as_texts(value)


class Finding(_Answer):
    """One security finding."""

    file: str
    line: int | None = None
    severity: Severity
    description: str
    recommendation: str | None = None

    _sev = field_validator("severity", mode="before")(_lower)


class AuditAnswer(_Answer):
    """The security audit's findings."""

    summary: str = ""
    findings: list[Finding]


class ConflictAnswer(_Answer):
    """Who is right in a Floor Manager / Judge disagreement."""

    side: Literal["floor_manager", "judge"]
    reasoning: str

    @field_validator("side", mode="before")
    @classmethod
    def _side(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip().lower().replace(" ", "_").replace("-", "_")
        return value


A = TypeVar("A", bound=BaseModel)

_FENCED = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


class AnswerError(ValueError):
    """The answer is not the required JSON; ``reason`` says why, for the retry prompt."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _candidates(text: str) -> list[str]:
    stripped = text.strip()
    found = [stripped, *(m.group(1) for m in _FENCED.finditer(text))]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        found.append(stripped[start : end + 1])
    return found


def parse_answer(text: str | None, model: type[A]) -> A:
    """The first JSON object in ``text`` (whole, fenced, or embedded) that fits ``model``.

    Raises:
        AnswerError: no JSON object, or none that validates (the first problem is named).
    """
    if not text or not text.strip():
        raise AnswerError("the answer was empty.")
    problem: str | None = None
    for candidate in _candidates(text):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if not isinstance(data, dict):
            problem = problem or "the JSON is not an object."
            continue
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            if problem is None:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "(object)"
                problem = f"field {where}: {first['msg']}."
    raise AnswerError(problem or "the answer is not JSON.")
