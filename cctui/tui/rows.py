"""What one line of the session list shows, built from the merged catalog."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from cctui.core.catalog import CatalogEntry, CatalogQuery, matches
from cctui.fs.worktree import WORKTREES_DIR
from cctui.tui.format import one_line, project_name

_WORKTREES = "/" + "/".join(WORKTREES_DIR) + "/"


@functools.lru_cache(maxsize=4096)
def _path(cwd: str) -> Path:
    """A directory's ``Path``, parsed once: thousands of rows share a few dozen (parsing
    each again was most of what 5,000 rows cost a first frame)."""
    return Path(cwd)


def _checkout(cwd: Path | None) -> str:
    """The directory, with a worktree of Claude Code's (``<repo>/.claude/worktrees/<name>``)
    folded into the repository it belongs to."""
    text = str(cwd or "")
    head, sep, _ = text.partition(_WORKTREES)
    return head if sep else text


class RowPlace(NamedTuple):
    """What places a row in the list (``SessionList``'s order), known before the row is made:
    the list's first screen is made of rows, the thousands of past sessions below it only
    once it is on screen (``SessionSource.load_now``)."""

    session_id: str
    group: str
    """``SessionRow.group``."""
    created_at: datetime | None
    last_activity: datetime | None
    host_rank: int = 0

    @classmethod
    def past(
        cls,
        session_id: str,
        cwd: str | None,
        created_at: datetime | None,
        last_activity: datetime,
    ) -> RowPlace:
        """The place of the row ``SessionRow.from_entry`` makes of a session cctui does not
        know, from its summary's fields (``HistoryIndex.places``): the catalog's past entry
        has its directory and a project named after it."""
        return cls(session_id, _past_group(cwd), created_at, last_activity)


@functools.lru_cache(maxsize=4096)
def _past_group(cwd: str | None) -> str:
    """``SessionRow.group`` of a row of the catalog's past entry in ``cwd`` (thousands of
    sessions share a few dozen directories)."""
    return _checkout(_path(cwd) if cwd else None) or project_name(cwd)


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
    host: str | None = None
    """The machine it runs on: None for this one, else a ``[[hosts]]`` name (``session_id``
    is then the list's key, ``HOST/ID``)."""
    host_rank: int = 0
    """The list's order: this machine's sessions first (0), then each host's in turn."""
    offline_since: datetime | None = None
    """Its host's link is down: when it was last seen (the row is its last known state)."""
    unseen: bool = False
    """Its turn ended (or it failed) while nobody looked at it: "done, not seen yet"
    (``tui.attention`` decides; the pane, a peek or opening it clears it)."""
    archived: bool = False
    """Hidden from the list unless the filter asks for ``status:archived`` (``core.archive``)."""
    has_past: bool = False
    """Its live output begins after a conversation in its transcript (resumed, forked):
    the pane offers that part (``SessionInfo.has_past``)."""

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
            cwd=_path(entry.cwd) if entry.cwd else None,
            live=entry.is_active,
            pending=entry.pending_inputs,
            created_at=entry.created_at,
            transcript_path=entry.transcript_path,
            ours=entry.started_by_cctui,
            waiting_since=waiting_since,
            branch=entry.git_branch,
            worktree=entry.worktree,
            dispatch_note=entry.dispatch_note,
            archived=entry.archived,
            has_past=entry.has_past,
            entry=entry,
        )

    def on_host(
        self, key: str, host: str, rank: int, *, offline_since: datetime | None = None
    ) -> SessionRow:
        """This row as a host's: keyed ``key``, labelled, and (``offline_since``) stale.
        cctui started it there, not here: nothing of this machine's applies to it."""
        return replace(
            self,
            session_id=key,
            host=host,
            host_rank=rank,
            offline_since=offline_since,
            ours=False,
            transcript_path=None,
        )

    @property
    def remote_id(self) -> str:
        """The session's own id (on its host, for a remote row)."""
        return self.entry.session_id if self.entry is not None else self.session_id

    @property
    def checkout(self) -> str:
        """Its project's checkout: the directory, with a worktree of Claude Code's
        (``<repo>/.claude/worktrees/<name>``) folded into the repository it belongs to."""
        return _checkout(self.cwd)

    @property
    def group(self) -> str:
        """What the list groups it by: its checkout, else its project label."""
        return self.checkout or self.project

    @property
    def worktree_label(self) -> str | None:
        """``⎇ worktree-a``, ``⎇ worktree-a (gone)``; None outside a worktree of its own."""
        if self.worktree is None:
            return None
        state = "" if self.worktree == "active" else f" ({self.worktree})"
        return f"⎇ {self.branch or 'worktree'}{state}"

    def matches(self, query: CatalogQuery | None, host: str | None = None) -> bool:
        """The core's filter (``catalog.matches``): the list shows what the MCP tool would;
        ``host``: only that host's rows (``local``: this machine's). An archived row is left
        out unless the query asks for ``status:archived``."""
        if host is not None and (self.host or "local") != host:
            return False
        if query is None:
            return not self.archived
        if self.entry is None:
            return self.archived == query.archived
        if self.entry.archived != self.archived:  # archived since the entry was built
            return matches(self.entry.model_copy(update={"archived": self.archived}), query)
        return matches(self.entry, query)
