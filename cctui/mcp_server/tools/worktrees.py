"""Worktree and diff tools: finish a session's worktree, read what a session changed."""
# ruff: noqa: N803 -- parameter names are the wire names (camelCase, as in the seeds)

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from cctui.core import SessionManager
from cctui.mcp_server.schemas.common import READ, SessionId
from cctui.mcp_server.schemas.worktrees import DiffOut, FinishOut

FINISH = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)
"""Merges or removes a worktree and a branch: changes the repository."""
MAX_DIFF_BYTES = 1_000_000


def register(server: MCPServer, manager: SessionManager) -> None:
    """Add the worktree and diff tools to ``server``."""

    @server.tool(annotations=FINISH)
    async def claude_finish_worktree(
        sessionId: SessionId,
        action: Annotated[
            Literal["merge", "keep", "discard"],
            Field(
                description="merge: commit its uncommitted work, merge its branch into the "
                "branch it came from (fast-forward or a merge commit), remove the worktree "
                "and the merged branch; keep: leave worktree and branch as they are; "
                "discard: remove the worktree and its branch"
            ),
        ],
        force: Annotated[
            bool,
            Field(
                description="discard even with uncommitted work, unmerged commits or a live "
                "process (it is killed); merge or keep even while a turn runs"
            ),
        ] = False,
    ) -> FinishOut:
        """Finish a session's git worktree (a session started with worktree): merge, keep or
        discard.

        A merge conflict changes nothing and names the files (error merge_conflict). A
        discard that would lose work is refused with a list of it (error
        worktree_refused) unless force.
        """
        return FinishOut.of(await manager.finish_worktree(sessionId, action, force=force))

    @server.tool(annotations=READ)
    async def claude_get_diff(
        sessionId: SessionId,
        path: Annotated[
            str | None,
            Field(
                max_length=4096,
                description="Only this file or directory (relative to the repository's top)",
            ),
        ] = None,
        stat: Annotated[
            bool, Field(description="Only the files and their +/- line counts, no diff")
        ] = False,
        maxBytes: Annotated[
            int,
            Field(ge=1000, le=MAX_DIFF_BYTES, description="Cut the diff at about this size"),
        ] = 256_000,
    ) -> DiffOut:
        """What a Claude Code session changed: files with +/- counts and the unified diff.

        The base is the commit the session started from (for a session in a worktree: the
        merge-base of its branch with the branch it came from), never the default branch;
        uncommitted and untracked files count. Outside git: the files its edit tools wrote.
        """
        found = await manager.diff(sessionId, path=path, patch=not stat, max_bytes=maxBytes)
        return DiffOut.of(found)
