"""Where the session list's rows come from: Claude Code's files merged with cctui's sessions.

History rows are rebuilt only when the history index changes, and then only those of the
sessions that changed; cctui's own rows on every batch of activity. A running session appends
to its transcript on every tool call, so the index changes several times a second: rebuilding
two thousand rows each time took ~60 ms of the loop (and the list's diff of them ~20 ms more).

Before the first frame only the rows of the list's first screen are made (``load_now``): a
catalog entry and a row for each of 5,000 past sessions cost the first frame ~0.1 s of CPU,
for rows nobody sees until they scroll. The others are made once it is on screen
(``make_the_rest``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from datetime import datetime

from cctui.config import Settings
from cctui.core.api import CoreApi
from cctui.core.archive import Archive
from cctui.core.catalog import build_catalog
from cctui.history import HistoryIndex, IndexChange, Problems
from cctui.history.models import SessionSummary
from cctui.tui.remote import RemoteView
from cctui.tui.rows import RowPlace, SessionRow
from cctui.tui.widgets.session_list import FIRST_ROWS, first_of

log = logging.getLogger(__name__)


class SessionSource:
    """The session list's data; a session cctui drives wins over its history entry."""

    def __init__(
        self,
        settings: Settings,
        manager: CoreApi,
        index: HistoryIndex | None = None,
        remote: RemoteView | None = None,
    ) -> None:
        self._settings = settings
        self._manager = manager
        self.remote = remote if remote is not None else RemoteView(None)
        """Other machines' sessions (``[[hosts]]``), as last seen."""
        self.index = index if index is not None else HistoryIndex.from_settings(settings)
        self._history_rows: dict[str, SessionRow] = {}
        self._later: set[str] = set()
        """Past sessions whose rows are not made yet (below the first screen: ``load_now``)."""
        self._problems = Problems()
        self._failed = ""
        self.archive = Archive(settings.state_dir)
        """Sessions hidden from the list (``e``); ``status:archived`` lists them."""

    def set_archived(self, session_id: str, archived: bool) -> None:
        """Archive a session (or bring it back); its rows say so from now on.

        Raises:
            OSError: the archive file cannot be written (nothing changed).
        """
        self.archive.set(session_id, archived)
        row = self._history_rows.get(session_id)
        if row is not None:
            self._history_rows[session_id] = replace(row, archived=archived)

    def rows(self) -> list[SessionRow]:
        """Every known session, this machine's and each host's (unsorted; the list sorts);
        after ``load_now``, until ``make_the_rest``, those of the list's first screen."""
        merged = dict(self._history_rows)
        for row in self.own_rows():
            merged[row.session_id] = row
        return [*merged.values(), *self.remote.rows()]

    def own_rows(self, ids: Iterable[str] | None = None) -> list[SessionRow]:
        """cctui's own sessions (those in ``ids``), merged with what the history knows."""
        try:
            own = self._manager.list()
        except Exception:
            log.exception("manager.list failed")
            own = []
        if ids is not None:
            wanted = set(ids)
            own = [o for o in own if o.session_id in wanted]
        summaries = self.index.summaries(o.session_id for o in own)
        waiting = self.waiting_since()
        return [
            SessionRow.from_entry(e, waiting_since=waiting.get(e.session_id))
            for e in build_catalog(summaries, own, archived=self.archive.ids)
        ]

    def waiting_since(self) -> dict[str, datetime]:
        """Session id -> when its oldest open pending input was asked."""
        since: dict[str, datetime] = {}
        for pending in self._manager.pending():
            held = since.get(pending.session_id)
            if held is None or pending.created_at < held:
                since[pending.session_id] = pending.created_at
        return since

    def load_now(self, first: int = FIRST_ROWS) -> None:
        """Every session the index file knows, now (before the first frame), with the rows
        of the list's first screen (``first`` rows) made: ``unmade`` counts the others, which
        ``make_the_rest`` makes. The watcher then brings the index up to date in the
        background."""
        try:
            # Nothing composed yet: the index places every session from its file, and
            # composes the summaries of the first screen's (5,000 cards read into summaries
            # cost the first frame ~0.17 s of CPU).
            self.index.load(cards=False)
            places = self.index.places()
        except Exception as exc:  # a broken index must not take the list down
            log.exception("history index load failed")
            self._failed = f"history index not read ({type(exc).__name__})"
            return
        for sid in self._manager.spare_ids:
            places.pop(sid, None)
        if len(places) <= 2 * first:
            self.reload_history()
            return
        # The first screen is placed among every row the list will hold (cctui's own win
        # over their history; archived rows are not listed).
        own = self.own_rows()
        listed: list[RowPlace | SessionRow] = [r for r in own if not r.archived]
        mine = {r.session_id for r in own}
        archived = self.archive.ids
        listed += [
            RowPlace.past(sid, *place)
            for sid, place in places.items()
            if sid not in mine and sid not in archived
        ]
        top = set(first_of(listed, first))
        self._later = places.keys() - top
        self._make_rows(self.index.summaries(top))
        self._problems = self.index.problems

    @property
    def unmade(self) -> int:
        """Rows ``rows`` will hold once ``make_the_rest`` has made them."""
        if not self._later:
            return 0
        try:
            own = {o.session_id for o in self._manager.list()}
        except Exception:
            log.exception("manager.list failed")
            own = set()
        return len(self._later - own)

    def make_the_rest(self) -> bool:
        """Make the rows ``load_now`` left for after the first frame; False if none were."""
        later, self._later = self._later, set()
        if later:
            # Every summary composed now (the index leaves its lazy start: ``get`` and the
            # watcher's changes read them), those of the first screen again among them.
            self._make_rows(s for s in self.index.sessions() if s.session_id in later)
        return bool(later)

    def _make_rows(self, summaries: Iterable[SessionSummary]) -> None:
        spare, archived = self._manager.spare_ids, self.archive.ids
        for e in build_catalog(summaries, (), spare, archived):
            self._history_rows[e.session_id] = SessionRow.from_entry(e)

    def reload_history(self, change: IndexChange | None = None) -> None:
        """Rebuild the history rows from the index after it changed: those of ``change``'s
        sessions, or (None) every one."""
        if change is None:
            self._later = set()
            entries = build_catalog(self.index, (), self._manager.spare_ids, self.archive.ids)
            self._history_rows = {e.session_id: SessionRow.from_entry(e) for e in entries}
        else:
            summaries = (self.index.get(sid) for sid in change.changed)
            found = [s for s in summaries if s is not None]
            self._later -= change.changed | change.removed
            self._make_rows(found)
            for sid in change.removed:
                self._history_rows.pop(sid, None)
        self._problems = self.index.problems

    def rows_of(self, ids: Iterable[str]) -> tuple[list[SessionRow], list[str]]:
        """The rows of these sessions (cctui's own merged as in ``rows``), and those of
        them nobody knows any more."""
        wanted = list(dict.fromkeys(ids))
        own = {r.session_id: r for r in self.own_rows(wanted)}
        rows: list[SessionRow] = []
        gone: list[str] = []
        unmade = [sid for sid in wanted if sid in self._later]
        if unmade:  # (asked for before ``make_the_rest``)
            self._later -= set(unmade)
            self._make_rows(self.index.summaries(unmade))
        for sid in wanted:
            row = own.get(sid) or self._history_rows.get(sid)
            if row is None:
                gone.append(sid)
            else:
                rows.append(row)
        return rows, gone

    async def watch(self, stop: asyncio.Event) -> AsyncIterator[IndexChange]:
        """Yield after each history change (the first one is the initial read)."""
        try:
            later = set(self._later)
            if self.make_the_rest():  # (the app makes them at its first frame, before this)
                yield IndexChange(changed=frozenset(later))
            async for change in self.index.watch(stop):
                self.reload_history(change)
                yield change
        except Exception as exc:  # a broken watcher must not take the list down
            log.exception("history watch failed")
            self._failed = f"history not watched ({type(exc).__name__})"

    def indexing(self) -> str:
        """The history index build's progress (``indexing 1,234 of 2,000 · 420 MB``), or ""."""
        return self.index.progress.describe()

    def problems(self) -> str:
        """What reading the history skipped, in one line (empty when nothing)."""
        parts = [self._problems.describe(), self._failed]
        if self._problems.config_dir_missing:
            parts.append(f"no {self._settings.claude_config_dir} yet")
        return "; ".join(p for p in parts if p)
