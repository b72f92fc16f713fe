"""JUDGE_REPORT.md and JUDGE_REPORT.json, written by cctui from the Judge's parsed answer.

Claude never writes them (its session is read-only); each file is replaced atomically, so a
reader sees the old report or the new one, never half of one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cctui.fs.atomic import write_atomic
from cctui.review.answers import JudgeAnswer
from cctui.timestamps import now_iso

REPORT_MD = "JUDGE_REPORT.md"
REPORT_JSON = "JUDGE_REPORT.json"


def report_json(
    answer: JudgeAnswer,
    *,
    contract_path: Path,
    session_id: str,
    duration_ms: int,
    cost_usd: float,
    tokens_used: int | None = None,
) -> dict[str, Any]:
    """The machine-readable report (seed 001's fields first, then cctui's).

    ``tokens_used`` is the review's tokens (input, output and cache, every turn) as the CLI
    reported them; null when it reported none.
    """
    return {
        "task_id": answer.task_id,
        "verdict": answer.verdict,
        "blocking_issues": [i.model_dump() for i in answer.blocking_issues],
        "suggestions": answer.suggestions,
        "tokens_used": tokens_used,
        "summary": answer.summary,
        "acceptance_criteria": [c.model_dump() for c in answer.acceptance_criteria],
        "contract_path": str(contract_path),
        "reviewed_at": now_iso(),
        "reviewer": "claude via cctui (read-only)",
        "session_id": session_id,
        "duration_ms": duration_ms,
        "cost_usd": cost_usd,
    }


def report_markdown(answer: JudgeAnswer, data: dict[str, Any]) -> str:
    """The human-readable report."""
    lines = [
        f"# Judge report: {answer.task_id or 'task'}",
        "",
        f"**Verdict: {answer.verdict}**",
        "",
        f"Contract: `{data['contract_path']}`  ",
        f"Reviewed: {data['reviewed_at']} (session `{data['session_id']}`)",
        "",
    ]
    if answer.summary:
        lines += ["## Summary", "", answer.summary, ""]
    lines += [f"## Blocking issues ({len(answer.blocking_issues)})", ""]
    if not answer.blocking_issues:
        lines.append("None.")
    for issue in answer.blocking_issues:
        where = ""
        if issue.file:
            where = f" `{issue.file}" + (f":{issue.line}" if issue.line else "") + "`"
        lines.append(f"- **{issue.severity}**{where}: {issue.description}")
    lines.append("")
    if answer.acceptance_criteria:
        lines += ["## Acceptance criteria", ""]
        for c in answer.acceptance_criteria:
            note = f" ({c.note})" if c.note else ""
            lines.append(f"- [{'x' if c.met else ' '}] {c.criterion}{note}")
        lines.append("")
    if answer.suggestions:
        lines += ["## Suggestions", ""]
        lines += [f"- {s}" for s in answer.suggestions]
        lines.append("")
    return "\n".join(lines)


def write_reports(report_dir: Path, data: dict[str, Any], answer: JudgeAnswer) -> tuple[Path, Path]:
    """Both reports into ``report_dir`` (created if missing); returns (md, json) paths."""
    report_dir.mkdir(parents=True, exist_ok=True)
    md, js = report_dir / REPORT_MD, report_dir / REPORT_JSON
    write_atomic(js, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o644)
    write_atomic(md, report_markdown(answer, data), mode=0o644)
    return md, js
