"""The review menu: four operations that take paths, fill a fixed prompt, and return a verdict.

Inputs are checked first (every path inside an allowed root, documents readable); a bad
input raises a ``CctuiError`` and nothing runs. A run that then fails is reported in the
result (``success`` false), which is what seed 001's clients read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.errors import ValidationFailed
from cctui.review import answers, documents, reports, templates
from cctui.review.documents import PathGuard, RootsProvider
from cctui.review.models import AuditOut, ConflictOut, JudgeReviewOut, ProposalOut, ReviewOut
from cctui.review.runner import Progress, ReviewFailed, ReviewRunner, RunResult

DEFAULT_TIMEOUT_S = 900
MAX_AUDIT_FILES = 50

A = TypeVar("A", bound=BaseModel)


def _no_projects() -> list[Path]:
    return []


def _label(path: Path, base: Path) -> str:
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)


class ReviewService:
    """Runs the review menu over the session core."""

    def __init__(
        self,
        manager: SessionManager,
        settings: Settings,
        project_roots: RootsProvider = _no_projects,
    ) -> None:
        """``project_roots`` lists the registered projects' directories (asked per call)."""
        self.settings = settings
        # Configured roots first: relative caller paths are taken against the first one.
        self.guard = PathGuard(lambda: [*settings.review_root_dirs, *project_roots()])
        self.runner = ReviewRunner(manager, settings)

    async def judge_review(
        self,
        contract_path: str,
        report_dir: str = "_handoff",
        timeout_seconds: int = DEFAULT_TIMEOUT_S,
        progress: Progress | None = None,
    ) -> JudgeReviewOut:
        """Judge a task contract's changes; cctui writes JUDGE_REPORT.md and .json.

        Raises:
            PathNotAllowed, DocumentNotFound, InvalidContract: bad input, nothing run.
        """
        started = time.monotonic()
        contract = self.guard.check(contract_path, what="contract_path")
        base = self.guard.project_root(contract)
        out_dir = self.guard.check(report_dir, base=base, what="report_dir")
        if out_dir.exists() and not out_dir.is_dir():
            raise ValidationFailed(f"report_dir {report_dir} exists and is not a directory.")
        data = documents.load_contract(contract, _label(contract, base))
        listed = documents.changed_files(data)
        paths = [self.guard.check(f, base=base, what="changed file") for f in listed]
        files = documents.read_documents((p, _label(p, base)) for p in paths)
        prompt = templates.judge_prompt(_label(contract, base), data, files)
        task = documents.task_id(data)
        try:
            run = await self.runner.run(
                kind="judge",
                title=f"Judge review: {task or contract.name}",
                prompt=prompt,
                cwd=base,
                answer=answers.JudgeAnswer,
                schema=templates.JUDGE_SCHEMA,
                timeout_s=timeout_seconds,
                progress=progress,
            )
        except ReviewFailed as exc:
            return JudgeReviewOut(**ReviewOut.failed(exc, _ms(started)))
        answer = run.answer
        if task is not None:  # the contract's id is authoritative, not Claude's copy of it
            answer = answer.model_copy(update={"task_id": task})
        body = reports.report_json(
            answer,
            contract_path=contract,
            session_id=run.session_id,
            duration_ms=_ms(started),
            cost_usd=run.cost_usd,
            tokens_used=run.tokens_used,
        )
        verdict = {
            "verdict": answer.verdict,
            "blocking_issues_count": len(answer.blocking_issues),
            "task_id": answer.task_id,
            "summary": answer.summary,
            "blocking_issues": answer.blocking_issues,
            "suggestions": answer.suggestions,
            "acceptance_criteria": answer.acceptance_criteria,
        }
        try:
            md, js = reports.write_reports(out_dir, body, answer)
        except OSError as exc:
            failure = {
                "success": False,
                "error": "report_error",
                "error_code": "report_error",
                "error_message": f"The reports could not be written to {out_dir}: {exc.strerror}.",
                "suggestion": "Fix report_dir; the verdict is in this result.",
            }
            return JudgeReviewOut(**(ReviewOut.ran(run, _ms(started)) | verdict | failure))
        return JudgeReviewOut(
            **ReviewOut.ran(run, _ms(started)),
            **verdict,
            report_md_path=str(md),
            report_json_path=str(js),
        )

    async def validate_proposal(
        self,
        proposal_path: str,
        timeout_seconds: int = DEFAULT_TIMEOUT_S,
        progress: Progress | None = None,
    ) -> ProposalOut:
        """Is the proposal complete and actionable?"""
        started = time.monotonic()
        path = self.guard.check(proposal_path, what="proposal_path")
        base = self.guard.project_root(path)
        doc = documents.read_document(path, _label(path, base))
        try:
            run = await self._run("proposal", f"Proposal check: {path.name}", base,
                                  templates.proposal_prompt(doc), answers.ProposalAnswer,
                                  templates.PROPOSAL_SCHEMA, timeout_seconds, progress)  # fmt: skip
        except ReviewFailed as exc:
            return ProposalOut(**ReviewOut.failed(exc, _ms(started)))
        return ProposalOut(
            **ReviewOut.ran(run, _ms(started)),
            valid=run.answer.valid,
            issues=run.answer.issues,
        )

    async def security_audit(
        self,
        files: Sequence[str],
        working_directory: str,
        timeout_seconds: int = DEFAULT_TIMEOUT_S,
        progress: Progress | None = None,
    ) -> AuditOut:
        """Audit the files (relative to ``working_directory``) for vulnerabilities."""
        started = time.monotonic()
        if not files or len(files) > MAX_AUDIT_FILES:
            raise ValidationFailed(f"files must list 1 to {MAX_AUDIT_FILES} paths.")
        cwd = self.guard.check(working_directory, what="working_directory")
        if not cwd.is_dir():
            raise ValidationFailed(f"working_directory {working_directory} is not a directory.")
        paths = [self.guard.check(f, base=cwd, what="file") for f in files]
        for p, raw in zip(paths, files, strict=True):
            if not p.is_file():
                raise documents.DocumentNotFound(f"file {raw} is not a readable file.")
        docs = documents.read_documents((p, _label(p, cwd)) for p in paths)
        try:
            run = await self._run("audit", f"Security audit: {len(files)} file(s)", cwd,
                                  templates.audit_prompt(str(cwd), docs), answers.AuditAnswer,
                                  templates.AUDIT_SCHEMA, timeout_seconds, progress)  # fmt: skip
        except ReviewFailed as exc:
            return AuditOut(**ReviewOut.failed(exc, _ms(started)))
        return AuditOut(
            **ReviewOut.ran(run, _ms(started)),
            findings=run.answer.findings,
            findings_count=len(run.answer.findings),
            summary=run.answer.summary,
        )

    async def resolve_conflict(
        self,
        contract_path: str,
        rebuttal_path: str,
        judge_report_path: str,
        timeout_seconds: int = DEFAULT_TIMEOUT_S,
        progress: Progress | None = None,
    ) -> ConflictOut:
        """Who is right, the Floor Manager's rebuttal or the Judge's report?"""
        started = time.monotonic()
        contract = self.guard.check(contract_path, what="contract_path")
        base = self.guard.project_root(contract)
        rebuttal = self.guard.check(rebuttal_path, base=base, what="rebuttal_path")
        report = self.guard.check(judge_report_path, base=base, what="judge_report_path")
        docs = [documents.read_document(p, _label(p, base)) for p in (contract, report, rebuttal)]
        try:
            run = await self._run("conflict", "Conflict resolution", base,
                                  templates.conflict_prompt(*docs), answers.ConflictAnswer,
                                  templates.CONFLICT_SCHEMA, timeout_seconds, progress)  # fmt: skip
        except ReviewFailed as exc:
            return ConflictOut(**ReviewOut.failed(exc, _ms(started)))
        return ConflictOut(
            **ReviewOut.ran(run, _ms(started)),
            side=run.answer.side,
            reasoning=run.answer.reasoning,
        )

    async def _run(
        self,
        kind: str,
        title: str,
        cwd: Path,
        prompt: str,
        answer: type[A],
        schema: str,
        timeout_s: float,
        progress: Progress | None,
    ) -> RunResult[A]:
        return await self.runner.run(
            kind=kind,
            title=title,
            prompt=prompt,
            cwd=cwd,
            answer=answer,
            schema=schema,
            timeout_s=timeout_s,
            progress=progress,
        )


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
