"""The review menu (seed 001): fixed-prompt reviews run in read-only Claude sessions.

Callers pass paths, never instructions. Imports the session core; never textual or mcp.
"""

from cctui.review.documents import DocumentNotFound, InvalidContract, PathNotAllowed
from cctui.review.models import AuditOut, ConflictOut, JudgeReviewOut, ProposalOut, ReviewOut
from cctui.review.runner import READ_ONLY_TOOLS, WRITE_TOOLS, ReviewFailed
from cctui.review.service import ReviewService

__all__ = [
    "READ_ONLY_TOOLS",
    "WRITE_TOOLS",
    "AuditOut",
    "ConflictOut",
    "DocumentNotFound",
    "InvalidContract",
    "JudgeReviewOut",
    "PathNotAllowed",
    "ProposalOut",
    "ReviewFailed",
    "ReviewOut",
    "ReviewService",
]
