"""What ``claude_rewind_files`` returns."""

from __future__ import annotations

from pathlib import Path

from cctui.core import RewindResult
from cctui.mcp_server.schemas.common import Out

NOTE = (
    "Only files Claude changed with its edit tools (Write, Edit, NotebookEdit) are put back, "
    "whole: later edits to them by anyone are overwritten, and Bash's changes are not tracked. "
    "The conversation is not rewound: Claude still remembers its later edits."
)


class RewindOut(Out):
    """Files put back (or, on a dry run, what would change) to just before one prompt."""

    session_id: str
    user_message_id: str
    """The prompt's user message id (the checkpoint's name)."""
    prompt_index: int | None = None
    """Its index among the prompts cctui sent the session, from 0 (null: not one cctui sent)."""
    prompt: str | None = None
    """The start of that prompt's text."""
    dry_run: bool
    rewound: bool
    """Files were put back (never on a dry run)."""
    files: list[str]
    """The files that change, relative to the session's directory when inside it."""
    insertions: int
    """Lines the rewind adds back."""
    deletions: int
    """Lines the rewind removes."""
    skipped_links: int = 0
    """Symbolic links Claude Code left alone (a real run only)."""
    note: str = NOTE

    @classmethod
    def of(cls, result: RewindResult, cwd: Path) -> RewindOut:
        """The wire form of ``result`` for a session working in ``cwd``."""
        mark = result.prompt
        return cls(
            session_id=result.session_id,
            user_message_id=result.prompt_id,
            prompt_index=mark.index if mark else None,
            prompt=mark.text if mark else None,
            dry_run=result.dry_run,
            rewound=result.rewound,
            files=[relative(f, cwd) for f in result.files],
            insertions=result.insertions,
            deletions=result.deletions,
            skipped_links=result.skipped_links,
        )


def relative(path: str, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it is inside it, else as given."""
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return path
