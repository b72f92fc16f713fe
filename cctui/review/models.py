"""What the review operations return (the MCP tools return these as they are).

Field names are seed 001's own, snake_case. A run that fails after its inputs were accepted
(CLI missing or crashed, timeout, an answer that is not the required JSON) is still a normal
result, in seed 001's shapes (§4.4): ``success`` false; ``error`` the CLI's stderr for a crash,
otherwise the code (``parse_error``, ``timeout`` with ``timed_out`` true, ...); ``error_code``
always the code, for clients that branch on it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cctui.review.answers import Criterion, Finding, Issue, Verdict
from cctui.review.runner import ReviewFailed, RunResult

ErrorCode = Literal[
    # the input, refused before anything ran
    "path_not_allowed",
    "document_not_found",
    "invalid_contract",
    "validation_error",
    "internal_error",
    # the run
    "cli_missing",
    "cli_crash",
    "claude_error",
    "timeout",
    "parse_error",
    "session_limit",
    "report_error",
]


class ReviewOut(BaseModel):
    """Fields every review result has."""

    # Built at the first review, not at import: the TUI's first frame shows none.
    model_config = ConfigDict(defer_build=True)

    success: bool
    """Claude answered with the required JSON (and, for the Judge, the reports are written)."""
    error: str | None = None
    """Why not, as seed 001 reports it: for a crash the CLI's stderr (redacted), otherwise
    the same as ``error_code``."""
    error_code: ErrorCode | None = None
    """Why not, always a code. The input, refused before anything ran: path_not_allowed,
    document_not_found, invalid_contract, validation_error (the arguments), internal_error.
    The run: cli_missing, cli_crash, claude_error, timeout, parse_error, session_limit,
    report_error (the Judge's verdict is in the result but its reports could not be
    written)."""
    error_message: str | None = None
    """What happened, secrets redacted."""
    suggestion: str | None = None
    """What to do next."""
    retryable: bool = False
    """Trying again may help."""
    timed_out: bool = False
    """The run passed its timeout and its process was killed."""
    stderr: str | None = None
    """The CLI's last stderr lines when it crashed (redacted)."""
    duration_ms: int = 0
    """Wall-clock time of the call."""
    session_id: str | None = None
    """The read-only cctui session that did the review (its transcript shows the work)."""
    attempts: int = 0
    """Prompts sent: 1, or 2 when the first answer was not valid JSON."""
    cost_usd: float = 0.0
    """What the review's Claude turns cost, failed runs included (as the CLI reports it)."""
    tokens_used: int | None = None
    """Tokens the review's turns used (input, output and cache), when the CLI reported them."""
    refused_tools: list[str] = Field(default_factory=list)
    """Tools Claude tried that the read-only session refused."""

    @classmethod
    def ran(cls, run: RunResult[Any], duration_ms: int) -> dict[str, Any]:
        """The common fields of a successful run."""
        return {
            "success": True,
            "duration_ms": duration_ms,
            "session_id": run.session_id,
            "attempts": run.attempts,
            "cost_usd": run.cost_usd,
            "tokens_used": run.tokens_used,
            "refused_tools": run.refused_tools,
        }

    @classmethod
    def failed(cls, exc: ReviewFailed, duration_ms: int) -> dict[str, Any]:
        """The common fields of a failed run."""
        # Seed 001 §4.4: a crash is ``{success: false, error: stderr}``.
        error = (exc.stderr or exc.message) if exc.code == "cli_crash" else exc.code
        return {
            "success": False,
            "error": error,
            "error_code": exc.code,
            "error_message": exc.message,
            "suggestion": exc.suggestion,
            "retryable": exc.retryable,
            "timed_out": exc.timed_out,
            "stderr": exc.stderr,
            "duration_ms": duration_ms,
            "session_id": exc.session_id,
            "attempts": exc.attempts,
            "cost_usd": exc.cost_usd,
            "tokens_used": exc.tokens_used,
            "refused_tools": exc.refused_tools,
        }


class JudgeReviewOut(ReviewOut):
    """claude_judge_review's result."""

    verdict: Verdict | None = None
    """PASS, CONDITIONAL, FAIL or CRITICAL_HALT."""
    blocking_issues_count: int | None = None
    report_md_path: str | None = None
    """JUDGE_REPORT.md, written by cctui."""
    report_json_path: str | None = None
    """JUDGE_REPORT.json, written by cctui."""
    task_id: str | None = None
    summary: str | None = None
    blocking_issues: list[Issue] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    """Non-blocking improvements (as in JUDGE_REPORT.json)."""
    acceptance_criteria: list[Criterion] = Field(default_factory=list)


class ProposalOut(ReviewOut):
    """claude_validate_proposal's result."""

    valid: bool | None = None
    """The proposal is complete and actionable."""
    issues: list[str] = Field(default_factory=list)
    """What stops it from being so."""


class AuditOut(ReviewOut):
    """claude_security_audit's result."""

    findings: list[Finding] = Field(default_factory=list)
    """Each with file, line, severity, description (and a recommendation)."""
    findings_count: int | None = None
    summary: str | None = None


class ConflictOut(ReviewOut):
    """claude_resolve_conflict's result."""

    side: Literal["floor_manager", "judge"] | None = None
    """Who is correct."""
    reasoning: str | None = None
