"""The review menu (seed 001): four fixed-prompt tools, thin over ``cctui.review``, and
``claude_review``, the seed's other name for the Judge.

Parameter names are the seed's own (snake_case). The caller passes paths only; the prompt
Claude sees is one of the fixed templates in ``cctui.review.templates``.

No ``from __future__ import annotations``: the SDK reads the evaluated annotations.
"""

import inspect
import itertools
from collections.abc import Awaitable, Callable
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui.mcp_server.asking.progress import notify
from cctui.review import (
    AuditOut,
    ConflictOut,
    JudgeReviewOut,
    ProposalOut,
    ReviewOut,
    ReviewService,
)

# Reviews read the project and run Claude; only the Judge writes (its two report files).
REVIEW = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=True)
JUDGE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=True
)

PathArg = Annotated[str, Field(min_length=1, max_length=4096)]
Timeout = Annotated[
    int, Field(ge=1, description="Maximum time for the review, in seconds (no maximum)")
]

OUTPUTS: dict[str, type[ReviewOut]] = {
    "claude_judge_review": JudgeReviewOut,
    "claude_review": JudgeReviewOut,
    "claude_validate_proposal": ProposalOut,
    "claude_security_audit": AuditOut,
    "claude_resolve_conflict": ConflictOut,
}
"""Each review tool's result model: a refused call is answered in it too (``success``
false), as seed 001's clients parse every answer."""

TOOL_NAMES = tuple(OUTPUTS)


def _progress(ctx: Context) -> Callable[[str], Awaitable[None]]:
    """Progress notifications for a long review (a client gone mid-run does not end it)."""
    counter = itertools.count(1)

    async def report(message: str) -> None:
        await notify(ctx, next(counter), message)

    return report


def register(server: MCPServer, review: ReviewService) -> None:
    """Add the four review tools (and the Judge's seed alias) to ``server``."""

    @server.tool(annotations=JUDGE)
    async def claude_judge_review(
        contract_path: Annotated[PathArg, Field(description="Path to TASK_CONTRACT.json")],
        ctx: Context,
        report_dir: Annotated[
            str,
            Field(
                min_length=1,
                max_length=4096,
                description="Directory to write JUDGE_REPORT.md and JUDGE_REPORT.json "
                "(relative to the contract's project)",
            ),
        ] = "_handoff",
        timeout_seconds: Timeout = 900,
    ) -> JudgeReviewOut:
        """The Judge: an architectural review of a task's changes against its contract.

        Reads the contract (specification, requirements, acceptance criteria, changed files),
        has Claude review it with read-only tools, and writes JUDGE_REPORT.md and
        JUDGE_REPORT.json into report_dir. Returns the verdict (PASS, CONDITIONAL, FAIL,
        CRITICAL_HALT) and the number of blocking issues.
        """
        return await review.judge_review(contract_path, report_dir, timeout_seconds, _progress(ctx))

    # Seed 001's own examples (its §3.1 example, §6.1, §6.2) call the Judge ``claude_review``:
    # the same tool under that name, so a client written from the seed works as it is.
    server.tool(
        name="claude_review",
        description="Seed 001's name for claude_judge_review (the Judge review): the same "
        "inputs and result.\n\n" + inspect.cleandoc(claude_judge_review.__doc__ or ""),
        annotations=JUDGE,
    )(claude_judge_review)

    @server.tool(annotations=REVIEW)
    async def claude_validate_proposal(
        proposal_path: Annotated[PathArg, Field(description="Path to PROPOSAL_FINAL.md")],
        ctx: Context,
        timeout_seconds: Timeout = 900,
    ) -> ProposalOut:
        """Check that a proposal is complete and actionable before it becomes a contract.

        Returns valid and the issues found.
        """
        return await review.validate_proposal(proposal_path, timeout_seconds, _progress(ctx))

    @server.tool(annotations=REVIEW)
    async def claude_security_audit(
        files: Annotated[
            list[PathArg],
            Field(min_length=1, max_length=50, description="Files to audit"),
        ],
        working_directory: Annotated[
            PathArg, Field(description="The project directory; files are relative to it")
        ],
        ctx: Context,
        timeout_seconds: Timeout = 900,
    ) -> AuditOut:
        """A deep security review of specific files.

        Returns findings, each with file, line, severity and description.
        """
        return await review.security_audit(
            files, working_directory, timeout_seconds, _progress(ctx)
        )

    @server.tool(annotations=REVIEW)
    async def claude_resolve_conflict(
        contract_path: Annotated[PathArg, Field(description="Path to TASK_CONTRACT.json")],
        rebuttal_path: Annotated[PathArg, Field(description="The Floor Manager's rebuttal")],
        judge_report_path: Annotated[PathArg, Field(description="The Judge's report")],
        ctx: Context,
        timeout_seconds: Timeout = 900,
    ) -> ConflictOut:
        """A fresh perspective when the Floor Manager and the Judge disagree.

        Returns side (floor_manager or judge) and the reasoning.
        """
        return await review.resolve_conflict(
            contract_path, rebuttal_path, judge_report_path, timeout_seconds, _progress(ctx)
        )
