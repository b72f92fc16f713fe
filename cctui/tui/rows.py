"""What one line of the session list shows, built from the merged catalog."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from cctui.core.catalog import CatalogEntry, CatalogQuery, matches
from cctui.tui.format import one_line, project_name


@dataclass(frozen=True)
class SessionRow:
    """One session as the list shows it."""

    session_id: str
    status: str
    """A ``SessionStatus`` value."""
    project: str
    title: str
    last_activity: datetime | None
    cost_usd: float | None
    cwd: Path | None
    live: bool
    """A ``claude`` process has it open right now."""
    pending: int = 0
    created_at: datetime | None = None
    transcript_path: Path | None = None
    ours: bool = True
    """cctui started it, so it can interrupt and kill it."""
    waiting_since: datetime | None = None
    """When its oldest open pending input was asked (None: it waits for nobody)."""
    branch: str | None = None
    """Its git branch, when known (a worktree session's own branch)."""
    worktree: str | None = None
    """It runs in a worktree of its own: ``active``, ``gone`` (removed by hand), or how it
    was finished (``merged``, ``kept``, ``discarded``)."""
    dispatch_note: str | None = None
    """What the dispatcher says of it: ``queued 3rd``, ``waits for 2 sessions``, ``paused
    until 14:05 (usage limit)``, ``run of schedule nightly``."""
    entry: CatalogEntry | None = field(default=None, compare=False, repr=False)
    """The catalog entry the row was made from (what the filter reads)."""

    @classmethod
    def from_entry(
        cls, entry: CatalogEntry, *, waiting_since: datetime | None = None
    ) -> SessionRow:
        """A row of the merged catalog (history and cctui's own sessions)."""
        return cls(
            session_id=entry.session_id,
            status=entry.status.value,
            project=project_name(entry.cwd, entry.project),
            title=one_line(entry.title or "", 200),
            last_activity=entry.last_activity,
            cost_usd=entry.total_cost_usd or None,
            cwd=Path(entry.cwd) if entry.cwd else None,
            live=entry.is_active,
            pending=entry.pending_inputs,
            created_at=entry.created_at,
            transcript_path=entry.transcript_path,
            ours=entry.started_by_cctui,
            waiting_since=waiting_since,
            branch=entry.git_branch,
            worktree=entry.worktree,
            dispatch_note=entry.dispatch_note,
            entry=entry,
        )

    @property
    def worktree_label(self) -> str | None:
        """``⎇ worktree-a``, ``⎇ worktree-a (gone)``; None outside a worktree of its own."""
        if self.worktree is None:
            return None
        state = "" if self.worktree == "active" else f" ({self.worktree})"
        return f"⎇ {self.branch or 'worktree'}{state}"

    def matches(self, query: CatalogQuery | None) -> bool:
        """The core's filter (``catalog.matches``): the list shows what the MCP tool would."""
        return query is None or self.entry is None or matches(self.entry, query)
