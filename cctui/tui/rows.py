"""What one line of the session list shows, built from whichever source knows the session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cctui.core import LIVE, SessionInfo
from cctui.core.catalog import CatalogEntry
from cctui.tui.format import one_line, project_name


@dataclass(frozen=True)
class SessionRow:
    """One session as the list shows it."""

    session_id: str
    status: str
    """A ``SessionStatus`` value, or ``past`` for a session known only from disk."""
    project: str
    title: str
    last_activity: datetime | None
    cost_usd: float | None
    cwd: Path | None
    live: bool
    """cctui drives a process for it right now."""
    pending: int = 0
    created_at: datetime | None = None
    transcript_path: Path | None = None
    ours: bool = True
    """cctui started it, so it can interrupt and kill it."""

    @classmethod
    def from_entry(cls, entry: CatalogEntry) -> SessionRow:
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
        )

    @classmethod
    def from_info(cls, info: SessionInfo) -> SessionRow:
        """A session cctui drives or registered."""
        return cls(
            session_id=info.session_id,
            status=info.status.value,
            project=project_name(info.config.cwd, info.config.project),
            title=one_line(info.config.title or info.title or "", 200),
            last_activity=info.last_activity,
            cost_usd=info.total_cost_usd or None,
            cwd=info.config.cwd,
            live=info.status in LIVE,
            pending=len(info.pending_input_ids),
            created_at=info.created_at,
        )

    def matches(self, query: str, projects: Mapping[str, Path] | None = None) -> bool:
        """True when every word of ``query`` matches; ``status:``/``project:`` words are scoped.

        ``status:live`` matches any running state; bare words search title, project and id.
        ``project:X`` also matches sessions under the root of a registered project whose id
        or name is X (``projects``: lowercased id and name -> root).
        """
        for word in query.lower().split():
            key, sep, value = word.partition(":")
            if sep and key in ("status", "s"):
                if value == "live":
                    if not self.live:
                        return False
                elif value == "waiting":
                    if self.status != "waiting_for_input":
                        return False
                elif not self.status.startswith(value):
                    return False
            elif sep and key in ("project", "p"):
                root = (projects or {}).get(value)
                if root is not None:
                    if self.cwd is None or not Path(self.cwd).is_relative_to(root):
                        return False
                elif value not in self.project.lower() and value not in str(self.cwd or "").lower():
                    return False
            elif word not in f"{self.title} {self.project} {self.session_id}".lower():
                return False
        return True
