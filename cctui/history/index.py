"""One incremental index of every Claude Code session on the machine.

Three sources under Claude Code's directory, merged by session id:

- ``projects/*/<uuid>.jsonl`` transcripts (every session, ``-p``/SDK ones included) and their
  subagents: kept in the persisted index file (``indexer.TranscriptIndexer``), so a start
  shows every known session from the file at once (``load``) and a build (``build_steps``)
  only reads what changed since, newest files first;
- ``history.jsonl`` (interactive prompts): tailed from a remembered offset;
- ``sessions/<pid>.json`` (running processes): re-read each refresh, dead pids ignored.

A history line without ``sessionId`` (older CLIs) is attributed to the session of the same
project whose transcript spans the prompt's time (first entry - slack .. last write + slack; the
latest-started one wins when several do). A line that matches none is kept as an *orphan*: it
is counted in ``Problems.orphan_prompts`` and retried when transcripts change, but it never
becomes a session of its own, since nothing could resume it.

Refreshes are synchronous and may run in a worker thread (``arefresh`` does that); readers
(``sessions``, ``get``, ``problems``) may run concurrently on the event loop's thread.
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from cctui.config import Settings
from cctui.history import prompt_cache
from cctui.history.extract import NOT_INDEXED
from cctui.history.indexer import Job, Plan, TranscriptIndexer
from cctui.history.models import (
    HistoryPrompt,
    IndexChange,
    IndexProgress,
    IndexStats,
    Problems,
    RunningProcess,
    SearchResult,
    SessionSummary,
    SourceName,
    UsageReport,
)
from cctui.history.prepare import PREFETCH_MIN_FILES, SEGMENT, Prefetch
from cctui.history.pricing import Pricer
from cctui.history.processes import ProcessScanner
from cctui.history.prompt_cache import PromptState
from cctui.history.prompts import HistoryFileReader, HistoryRead, PromptFold, fold_into
from cctui.history.store import SCHEMA_VERSION, IndexStore
from cctui.history.transcripts import ReadStats
from cctui.pids import pid_alive

if TYPE_CHECKING:  # anyio and watchfiles load when a watch or a thread is first used:
    # the one-shot commands (``cctui sessions``) never need them; search and usage when asked
    from cctui.history.usage import UsageLines
    from cctui.history.watch import StopEvent

logger = logging.getLogger(__name__)

COMPACT_MIN_DEAD = 100_000
"""Tombstones (see ``store``) below this never cause a rebuild, however few rows are live."""
ATTRIBUTION_SLACK = timedelta(minutes=2)
"""How far outside a transcript's time span an id-less prompt may fall and still belong to it."""


class HistoryIndex:
    """Sessions known from Claude Code's files; call ``refresh`` (or ``watch``) to update."""

    def __init__(
        self,
        config_dir: Path,
        *,
        is_alive: Callable[[int], bool] = pid_alive,
        attribution_slack: timedelta = ATTRIBUTION_SLACK,
        index_file: Path | None = None,
        pricer: Pricer | None = None,
        thinking: bool = False,
    ) -> None:
        """``index_file=None`` keeps the index in a private temporary file (tests);
        ``thinking`` indexes assistant thinking blocks too."""
        self.config_dir = config_dir
        self.store = IndexStore(index_file)
        self.pricer = pricer or Pricer()
        self.thinking = thinking
        self._check_options()
        self.transcripts = self._indexer()
        self.progress = IndexProgress()
        """The running build's progress (for the status bar); ``active`` is False when idle."""
        self.history = HistoryFileReader(config_dir / "history.jsonl")
        self.processes = ProcessScanner(config_dir / "sessions", is_alive=is_alive)
        self._slack = attribution_slack
        self._read = PromptState({}, [])
        """What history.jsonl gave (kept between runs: ``prompt_cache``)."""
        self._prompt_cache = (
            None if index_file is None else index_file.with_name(index_file.name + ".prompts")
        )
        self._cache_at: tuple[int | None, int] | None = None
        """(inode, offset) of history.jsonl as the cache holds it (None: not looked at)."""
        self._attributed: dict[str, PromptFold] = {}
        """Prompts without a session id given to the transcript that spans them."""
        self._orphans: list[HistoryPrompt] = []
        """Prompts without a session id that no transcript spans (yet)."""
        self._summaries: dict[str, SessionSummary] = {}
        self._sorted: list[SessionSummary] | None = None
        self._lazy = False
        """``refresh(cards=False)``: the sessions are not composed into ``_summaries`` until a
        reader asks for every one (``sessions``, ``get``); ``newest`` composes only a page."""
        self._problems = Problems()
        self._lock = threading.Lock()  # guards what readers see
        self._refresh_lock = threading.Lock()  # one refresh at a time
        self._prefetch: Prefetch | None = None
        """The worker process preparing a build's next files, while a large build runs."""
        self._prefetch_jobs: Iterator[tuple[str, str, str, int]] = iter(())
        """The plan's files ``_prefetch`` has not been asked for yet, in the plan's order."""

    @classmethod
    def from_settings(cls, settings: Settings) -> HistoryIndex:
        """The index of ``settings.claude_config_dir``, persisted in ``settings.index_file``."""
        return cls(
            settings.claude_config_dir,
            index_file=settings.index_file,
            pricer=Pricer(settings.prices),
            thinking=settings.index_thinking,
        )

    def _indexer(self) -> TranscriptIndexer:
        return TranscriptIndexer(
            self.config_dir / "projects", self.store, self.pricer, thinking=self.thinking
        )

    def _check_options(self) -> None:
        """An index built with thinking blocks in (or out) and asked for the other: rebuilt."""
        flag = "1" if self.thinking else "0"
        had = self.store.get_meta("thinking")
        if had is not None and had != flag:
            self.store.reset(note="index_thinking changed; rebuilding the index")
        with self.store.write() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('thinking', ?)", (flag,))

    def close(self) -> None:
        """Keep what history.jsonl gave for the next run, close the index file (a temporary
        one is removed) and stop a build's worker."""
        self._stop_prefetch()
        self.save_prompts()
        self.store.close()

    def save_prompts(self) -> None:
        """Keep what history.jsonl gave for the next run (``prompt_cache``), if it changed
        since it was restored or last kept; ``close`` does it too."""
        if self._prompt_cache is None or self._cache_at is None:
            return
        # Not while a refresh (an abandoned one, say) changes the state being written.
        if not self._refresh_lock.acquire(timeout=1.0):
            return
        try:
            if (self.history.inode, self.history.consumed) != self._cache_at:
                prompt_cache.save(self._prompt_cache, self.history, self._read)
                self._cache_at = (self.history.inode, self.history.consumed)
        except OSError as exc:
            logger.warning("prompt cache %s not written: %s", self._prompt_cache, exc)
        finally:
            self._refresh_lock.release()

    # -- reading -------------------------------------------------------------------------

    def sessions(self) -> list[SessionSummary]:
        """Every session, newest activity first."""
        self._compose_all()
        with self._lock:
            if self._sorted is None:
                self._sorted = sorted(
                    self._summaries.values(), key=lambda s: s.last_activity, reverse=True
                )
            return list(self._sorted)

    def get(self, session_id: str) -> SessionSummary | None:
        """One session's summary, if any source mentions it."""
        self._compose_all()
        with self._lock:
            return self._summaries.get(session_id)

    def activity(self) -> dict[str, float]:
        """Session id -> its summary's ``last_activity`` as epoch seconds, for every session
        (what orders a page).

        After ``refresh(cards=False)`` read from the index file and the in-memory sources
        without composing a summary: 20,000 sessions in ~40 ms, against ~0.9 s for
        ``sessions()``."""
        if self._lazy:
            with self._refresh_lock:
                return self._lazy_activity()
        with self._lock:
            return {sid: s.last_activity.timestamp() for sid, s in self._summaries.items()}

    def _lazy_activity(self) -> dict[str, float]:
        out = self.transcripts.latest()
        procs = self.processes.by_session
        for sid in self._read.folds.keys() | self._attributed.keys() | procs.keys():
            last = out.get(sid)
            card = None if last is None else datetime.fromtimestamp(last, tz=UTC)
            out[sid] = _activity(card, self._prompts(sid), procs.get(sid)).timestamp()
        return out

    def places(self) -> dict[str, tuple[str | None, datetime | None, datetime]]:
        """Session id -> its summary's (``cwd``, ``created_at``, ``last_activity``), for every
        session: what places it in a list. After ``load(cards=False)`` read from the index
        file and the in-memory sources without composing a summary (5,000 sessions: ~15
        against ~170 ms for ``sessions()``)."""
        if not self._lazy:
            with self._lock:
                return {
                    sid: (s.cwd, s.created_at, s.last_activity)
                    for sid, s in self._summaries.items()
                }
        with self._refresh_lock:
            cards: dict[str, tuple[str | None, float | None, float]] = {
                sid: (cwd, created, last)
                for sid, cwd, created, last in self.transcripts.card_places()
            }
            procs = self.processes.by_session
            out: dict[str, tuple[str | None, datetime | None, datetime]] = {}
            for sid in (
                cards.keys() | self._read.folds.keys() | self._attributed.keys() | procs.keys()
            ):
                card = cards.get(sid)
                out[sid] = _place(
                    None if card is None else card[0],
                    None if card is None or card[1] is None else _utc(card[1]),
                    None if card is None else _utc(card[2]),
                    self._prompts(sid),
                    procs.get(sid),
                )
            return out

    def summaries(self, session_ids: Iterable[str]) -> list[SessionSummary]:
        """These sessions' summaries (those any source knows), in the order asked."""
        ids = list(session_ids)
        if self._lazy:
            with self._refresh_lock:
                self.transcripts.cards_of(ids)
                found = [self._compose(sid) for sid in ids]
        else:
            with self._lock:
                found = [self._summaries.get(sid) for sid in ids]
        return [s for s in found if s is not None]

    def transcript_only(self) -> tuple[list[tuple[Any, ...]], set[str]]:
        """For a list that writes every session out (``cctui sessions --json``): the card rows
        (``TranscriptIndexer.newest_cards``) of the sessions only a transcript names, whose
        summary is their card's fields as they are; and the ids of every other session (named
        by history.jsonl or a running process too, or by those alone), for ``summaries``."""
        with self._refresh_lock:
            procs = self.processes.by_session
            others = self._read.folds.keys() | self._attributed.keys() | procs.keys()
            rows = self.transcripts.newest_cards()
        return [r for r in rows if r[0] not in others], others

    def _compose_all(self) -> None:
        """After ``refresh(cards=False)``: compose every session, as a full refresh would."""
        if self._lazy:  # (read without the lock: a reader must not wait out a build step)
            with self._refresh_lock:
                self._compose_lazy()

    def _compose_lazy(self) -> None:
        if self._lazy:
            self.transcripts.load_cards()
            self._lazy = False
            sids = (
                {m.session_id for m in self.transcripts.metas()}
                | self._read.folds.keys()
                | self._attributed.keys()
                | self.processes.by_session.keys()
            )
            self._apply(sids)

    @property
    def problems(self) -> Problems:
        """What the last refresh could not read."""
        with self._lock:
            return self._problems

    @property
    def read_stats(self) -> ReadStats:
        """Transcript head/tail reads so far (for tests and the benchmark)."""
        return self.transcripts.stats

    # -- search, usage, stats (from the index file; safe from any thread) -----------------

    def search(self, query: str, **kwargs: Any) -> SearchResult:
        """Full-text search; see ``cctui.history.search.search`` for the syntax and options.

        A hit whose line changed in its transcript since it was indexed is never shown: its
        file is indexed again and the query runs once more.
        """
        from cctui.history.search import search

        stale: set[str] = set()
        result = search(self.store, query, stale=stale, **kwargs)
        if stale:
            self.reindex(Path(p) for p in stale)
            result = search(self.store, query, **kwargs)
        return result

    def reindex(self, paths: Iterable[Path]) -> IndexChange:
        """Read these transcripts again from their first byte (a line changed under a hit)."""
        todo = [str(p) for p in paths]
        with self._refresh_lock:
            with self.store.write() as conn:
                conn.executemany(
                    "UPDATE source SET size=-1, tail_sig=NULL WHERE path=?", [(p,) for p in todo]
                )
            for p in todo:
                logger.info("transcript changed under the index, reading it again: %s", p)
            return self._apply(self.transcripts.refresh_paths(Path(p) for p in todo))

    def usage(self, period: str = "daily", **kwargs: Any) -> UsageReport:
        """A usage report; see ``cctui.history.usage.usage_report``."""
        from cctui.history.usage import usage_report

        return usage_report(self.store, period, pricing=self.pricer.fingerprint, **kwargs)

    def usage_lines(
        self, period: str = "daily", *, table: bool = False, **kwargs: Any
    ) -> UsageLines:
        """``usage``'s lines, not made into models (``cctui.history.usage.usage_lines``)."""
        from cctui.history.usage import usage_lines

        return usage_lines(self.store, period, table=table, **kwargs)

    def stats(self) -> IndexStats:
        """What the index holds (``cctui index --stats``)."""
        conn = self.store.reader()
        files, subagents, tbytes, last, skipped, oversized, bad, deferred = conn.execute(
            "SELECT count(*), total(kind = 'subagent'), total(offset), max(indexed_at), "
            "total(skipped), total(oversized), total(bad_utf8), total(deferred > 0) FROM source"
        ).fetchone()
        return IndexStats(
            path=self.store.path,
            files=files,
            subagent_files=int(subagents),
            sessions=conn.execute("SELECT count(DISTINCT session_id) FROM card").fetchone()[0],
            messages=conn.execute("SELECT count(*) FROM msg WHERE source_id != 0").fetchone()[0],
            stale_messages=conn.execute("SELECT count(*) FROM msg WHERE source_id = 0").fetchone()[
                0
            ],
            not_indexed=NOT_INDEXED,
            replies=conn.execute("SELECT count(*) FROM usage").fetchone()[0],
            transcript_bytes=int(tbytes),
            index_bytes=self.store.size_bytes(),
            last_update=datetime.fromtimestamp(last, tz=UTC) if last else None,
            skipped_lines=int(skipped),
            oversized_lines=int(oversized),
            invalid_utf8_lines=int(bad),
            deferred_files=int(deferred),
            schema_version=SCHEMA_VERSION,
            note=self.store.note,
        )

    def rebuild(self) -> IndexChange:
        """Drop everything the index file holds and index every transcript again."""
        with self._refresh_lock:
            self.store.reset()
            self._check_options()
            self.transcripts = self._indexer()
        return self.refresh()

    # -- refreshing ----------------------------------------------------------------------

    def load(self, *, cards: bool = True) -> IndexChange:
        """Every session the index file knows, without touching the transcripts (fast: the
        TUI calls it before its first frame). A second call changes nothing.

        ``cards=False``: as ``refresh(cards=False)``, nothing is composed until a reader
        asks (``places`` and ``summaries`` answer for some sessions without composing the
        others: the TUI's first screen of thousands of sessions)."""
        with self._refresh_lock:
            if self.transcripts.loaded:
                return IndexChange()
            self._lazy = not cards
            return self._apply(self.transcripts.load(cards=cards))

    async def aload(self) -> IndexChange:
        """``load`` in a worker thread."""
        return await _to_thread(self.load, abandon_on_cancel=True)

    def refresh(self, *, cards: bool = True) -> IndexChange:
        """Full refresh: stat every transcript and index what changed, read history.jsonl's new
        lines, rescan processes. A first build of a large history takes a while: the TUI uses
        ``build_steps`` instead.

        ``cards=False`` on a first refresh (a command that prints one page): the sessions the
        index file knows are not read and composed; ``activity`` and ``summaries`` answer
        from the file, and ``sessions``/``get`` compose every one when first called. The
        change returned is then empty."""
        with self._refresh_lock:
            if not cards and not self.transcripts.loaded:
                self._lazy = True
                self.transcripts.load(cards=False)
            return self._apply(self.transcripts.refresh())

    def plan(self, *, cards: bool = True) -> Plan:
        """Sweep: what changed since the index was last brought up to date, newest first.

        ``cards=False`` (a command that shows no session list): the sessions the index file
        knows are not loaded into ``sessions()`` first, only those a change touches."""
        with self._refresh_lock:
            if self._compact_due():
                self.store.reset(note="most of the index was stale rows; rebuilding it")
                self._check_options()
                self.transcripts = self._indexer()
            if not self.transcripts.loaded:
                self._lazy = not cards
                self._apply(self.transcripts.load(cards=cards))
            plan = self.transcripts.scan()
            self._stop_prefetch()
            if sum(self._prefetchable(j) for j in plan.jobs) >= PREFETCH_MIN_FILES:
                self._prefetch = Prefetch(self.thinking)
                # One pass over the plan's files for the whole build (a new generator over
                # the plan per file re-read every file already ahead, hundreds, each time),
                # made as it goes: 20,000 paths as strings at once are ~5 MB of a build's RSS.
                # Over a copy of the queue (``step`` takes from its front) that lets go of each
                # job once handed over (``_to_prefetch``).
                self._prefetch_jobs = self._to_prefetch(deque(plan.jobs))
        self.progress = IndexProgress(
            active=bool(plan.jobs), files_total=len(plan.jobs), bytes_total=plan.bytes_total
        )
        return plan

    def step(self, plan: Plan, *, seconds: float = 0.5) -> IndexChange:
        """Work through ``plan`` for about ``seconds`` (at least one file); what changed."""
        deadline = time.monotonic() + seconds
        with self._refresh_lock:
            touched: set[str] = set()
            # One transaction per step: FTS writes fewer, larger segments (much faster), and
            # another process waits at most one step for the write lock.
            with self.store.write(), self.transcripts.batch():
                while plan.gone:
                    touched |= self.transcripts.forget(plan.gone.pop())
                while plan.jobs:
                    ready = None
                    pf = self._prefetch  # (close() may stop it from another thread)
                    if pf is not None:
                        pf.feed(self._prefetch_jobs)
                        ready = pf.take(str(plan.jobs[0].path))
                    job = plan.jobs.popleft()
                    touched |= self.transcripts.ingest(job.path, job.session_id, job.kind, ready)
                    p = self.progress
                    self.progress = p.model_copy(
                        update={"files_done": p.files_done + 1,
                                "bytes_done": p.bytes_done + job.size}
                    )  # fmt: skip
                    if time.monotonic() >= deadline:
                        break
            if not plan.jobs:
                self.progress = self.progress.model_copy(update={"active": False})
                self._stop_prefetch()
                self.store.checkpoint()
            return self._apply(touched)

    def _to_prefetch(self, jobs: deque[Job]) -> Iterator[tuple[str, str, str, int]]:
        """(path, session id, kind, size) of each prefetchable job, in order, each taken out
        of ``jobs`` as it is handed over. A list held to the build's end kept every ``Job``
        and its ``Path`` (~0.7 KB each) alive while the cards the build writes piled up
        beside them: ~15 MB of the writer's peak RSS at 20,000 files, which comes at the end."""
        while jobs:
            job = jobs.popleft()
            if self._prefetchable(job):
                yield str(job.path), job.session_id, job.kind, job.size

    def _prefetchable(self, job: Job) -> bool:
        """A new file a worker can read whole (one segment)."""
        return job.size <= SEGMENT and self.transcripts.is_new(job.path)

    def _stop_prefetch(self) -> None:
        pf, self._prefetch = self._prefetch, None
        if pf is not None:
            pf.close()

    def _compact_due(self) -> bool:
        """Tombstones (rows of files read again, see ``store``) outnumber the live rows."""
        # Two counts SQLite answers from its indexes (a sum over every row's source_id read
        # all 410,000 of a 20,000-session index: ~0.04 s of every search or usage command).
        conn = self.store.reader()
        dead = conn.execute("SELECT count(*) FROM msg WHERE source_id = 0").fetchone()[0]
        every = conn.execute("SELECT count(*) FROM msg").fetchone()[0]
        return bool(dead > max(every - dead, COMPACT_MIN_DEAD))

    async def build_steps(
        self, *, first: float = 0.5, seconds: float = 2.0
    ) -> AsyncIterator[IndexChange]:
        """Sweep, then index what changed in a worker thread, yielding after each step: the
        first of about ``first`` seconds (the newest files, so the list fills from the top),
        then of ``seconds`` (each yield redraws a list of thousands: not too often)."""
        plan = await _to_thread(self.plan, abandon_on_cancel=True)
        budget = first
        try:
            while True:
                yield await _to_thread(
                    partial(self.step, plan, seconds=budget), abandon_on_cancel=True
                )
                budget = seconds
                if not plan.jobs and not plan.gone:
                    return
        finally:  # cancelled (cctui quits mid-build): the worker process ends with it
            pf, self._prefetch = self._prefetch, None
            if pf is not None:
                pf.close(wait=False)

    def refresh_paths(self, paths: Iterable[Path]) -> IndexChange:
        """Refresh after a watcher named these paths: only those transcripts are re-checked.

        history.jsonl and the process files are always checked; both are cheap.
        """
        with self._refresh_lock:
            return self._apply(self.transcripts.refresh_paths(paths))

    async def arefresh(self, *, full: bool = True, paths: Iterable[Path] = ()) -> IndexChange:
        """``refresh`` (or ``refresh_paths``) in a worker thread, so the event loop never waits."""
        # abandon_on_cancel: a cancelled caller (app quitting) need not wait for a cold sweep;
        # the abandoned thread finishes under the refresh lock and leaves the index consistent.
        if full:
            return await _to_thread(self.refresh, abandon_on_cancel=True)
        todo = list(paths)
        return await _to_thread(lambda: self.refresh_paths(todo), abandon_on_cancel=True)

    def watch(
        self,
        stop_event: StopEvent,
        *,
        tick: float = 0.5,
        full_sweep_every: float = 60.0,
    ) -> AsyncIterator[IndexChange]:
        """Live updates: see ``cctui.history.watch.watch_index``."""
        from cctui.history.watch import watch_index

        return watch_index(self, stop_event, tick=tick, full_sweep_every=full_sweep_every)

    def _apply(self, touched: set[str]) -> IndexChange:
        touched = set(touched)
        transcripts_changed = bool(touched)
        restored = self._restore_prompts()
        touched |= restored
        read = self.history.read_new()
        touched |= self._ingest(read)
        if self._orphans and (transcripts_changed or restored or read.prompts or read.reset):
            self.transcripts.load_cards()  # (lazy) a prompt may belong to any transcript
            touched |= self._attribute_orphans()
        touched |= self.processes.refresh()
        if self._lazy:  # nothing composed: readers compose what they ask for
            problems = self._collect_problems()
            with self._lock:
                self._problems = problems
            return IndexChange()

        changed: set[str] = set()
        removed: set[str] = set()
        updates: dict[str, SessionSummary | None] = {}
        for sid in touched:
            new = self._compose(sid)
            old = self._summaries.get(sid)
            if new == old:
                continue
            updates[sid] = new
            (changed if new is not None else removed).add(sid)
        problems = self._collect_problems()
        with self._lock:
            for sid, summary in updates.items():
                if summary is None:
                    self._summaries.pop(sid, None)
                else:
                    self._summaries[sid] = summary
            if updates:
                self._sorted = None
            self._problems = problems
        return IndexChange(changed=frozenset(changed), removed=frozenset(removed))

    def _restore_prompts(self) -> set[str]:
        """Once, before history.jsonl is first read: what an earlier run read of it (its
        sessions are returned), so only the lines appended since are parsed."""
        if self._cache_at is not None:
            return set()
        self._cache_at = (None, 0)
        if self._prompt_cache is None:
            return set()
        state = prompt_cache.restore(self._prompt_cache, self.history)
        if state is None:
            return set()
        self._read = state
        self._orphans = list(state.idless)
        self._cache_at = (self.history.inode, self.history.consumed)
        return set(state.folds)

    def _ingest(self, read: HistoryRead) -> set[str]:
        touched: set[str] = set()
        if read.reset:
            touched |= self._read.folds.keys() | self._attributed.keys()
            self._read = PromptState({}, [])
            self._attributed.clear()
            self._orphans.clear()
        self._read.skipped += read.skipped
        for prompt in read.prompts:
            if prompt.session_id is None:
                self._read.idless.append(prompt)
                self._orphans.append(prompt)
            else:
                fold_into(self._read.folds, prompt.session_id, prompt)
                touched.add(prompt.session_id)
        return touched

    def _prompts(self, sid: str) -> PromptFold | None:
        """The session's history.jsonl prompts: those naming it, then those attributed."""
        own = self._read.folds.get(sid)
        attributed = self._attributed.get(sid)
        return attributed if own is None else own.merged(attributed)

    def _attribute_orphans(self) -> set[str]:
        """Give id-less prompts to the transcript of their project that spans their time."""
        spans: dict[str, list[tuple[datetime, datetime, str]]] = {}
        for meta in self.transcripts.metas():
            if meta.cwd and meta.created_at:
                spans.setdefault(meta.cwd, []).append(
                    (meta.created_at, meta.last_entry_at, meta.session_id)
                )
        for items in spans.values():
            items.sort()
        touched: set[str] = set()
        still: list[HistoryPrompt] = []
        for prompt in self._orphans:
            sid = self._match(spans.get(prompt.project or ""), prompt.timestamp)
            if sid is None:
                still.append(prompt)
            else:
                fold_into(self._attributed, sid, prompt)
                touched.add(sid)
        self._orphans = still
        return touched

    def _match(
        self, items: list[tuple[datetime, datetime, str]] | None, ts: datetime
    ) -> str | None:
        if not items:
            return None
        # Latest-started sessions first, looking back a few in case sessions overlapped.
        i = bisect.bisect_right(items, (ts + self._slack, _MAX_DT, "\uffff"))
        for created, last, sid in reversed(items[max(0, i - 8) : i]):
            if created - self._slack <= ts <= last + self._slack:
                return sid
        return None

    def _compose(self, sid: str) -> SessionSummary | None:
        meta = self.transcripts.meta(sid)
        prompts = self._prompts(sid)
        proc = self.processes.by_session.get(sid)
        if meta is None and prompts is None and proc is None:
            return None
        sources: set[SourceName] = set()
        if meta is not None:
            sources.add("transcript")
        if prompts is not None:
            sources.add("history")
        if proc is not None:
            sources.add("process")
        cwd, created_at, last_activity = _place(
            meta.cwd if meta else None,
            meta.created_at if meta else None,
            meta.last_entry_at if meta else None,
            prompts,
            proc,
        )
        # Validated, not model_construct: pydantic-core checks these typed values faster than
        # model_construct's Python loop sets them (0.11 against 0.18 s for 20,000).
        return SessionSummary(
            session_id=sid,
            cwd=cwd,
            title=_first(
                meta.title if meta else None,
                prompts.title if prompts else None,
                proc.name if proc else None,
            ),
            first_prompt=_first(
                meta.first_prompt if meta else None, prompts.title if prompts else None
            ),
            last_activity=last_activity,
            created_at=created_at,
            git_branch=meta.git_branch if meta else None,
            is_running=proc is not None,
            pid=proc.pid if proc else None,
            process_status=proc.status if proc else None,
            sources=frozenset(sources),
            total_cost_usd=meta.total_cost_usd if meta else None,
            transcript_path=meta.path if meta else None,
            file_size=meta.size if meta else None,
            prompt_count=prompts.count if prompts else 0,
        )

    def _collect_problems(self) -> Problems:
        counts = (
            self.store.reader()
            .execute(
                "SELECT total(skipped), total(oversized), total(bad_utf8), total(deferred > 0) "
                "FROM source"
            )
            .fetchone()
        )
        unreadable = [str(p) for p in self.transcripts.unreadable]
        unreadable += [str(p) for p in self.processes.unreadable]
        if self.history.unreadable is not None:
            unreadable.append(str(self.history.path))
        return Problems(
            skipped_lines=self._read.skipped + self.processes.skipped,
            unreadable_files=tuple(sorted(unreadable)),
            orphan_prompts=len(self._orphans),
            config_dir_missing=not self.config_dir.is_dir(),
            transcript_lines_skipped=int(counts[0]),
            oversized_lines=int(counts[1]),
            invalid_utf8_lines=int(counts[2]),
            deferred_lines=int(counts[3]),
            index_note=self.store.note,
        )


_T = TypeVar("_T")


async def _to_thread(func: Callable[[], _T], *, abandon_on_cancel: bool) -> _T:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(func, abandon_on_cancel=abandon_on_cancel)


_MAX_DT = datetime.max.replace(tzinfo=UTC)


def _place(
    cwd: str | None,
    created_at: datetime | None,
    last_entry_at: datetime | None,
    prompts: PromptFold | None,
    proc: RunningProcess | None,
) -> tuple[str | None, datetime | None, datetime]:
    """A session's (cwd, created_at, last_activity) from its transcript's card (its fields
    given), its history.jsonl prompts and its running process: what ``_compose`` and
    ``places`` give it."""
    return (
        _first(cwd, proc.cwd if proc else None, prompts.project if prompts else None),
        _first(
            created_at,
            prompts.first if prompts else None,
            proc.started_at if proc else None,
        ),
        _activity(last_entry_at, prompts, proc),
    )


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


def _activity(
    transcript: datetime | None, prompts: PromptFold | None, proc: RunningProcess | None
) -> datetime:
    """A session's last activity: the newest time any of its sources gives."""
    times = [] if transcript is None else [transcript]
    if prompts is not None:
        times.append(prompts.last)
    if proc is not None:
        times += [t for t in (proc.updated_at, proc.started_at) if t is not None]
    return max(times) if times else datetime.now(UTC)


def _first(*values: _T | None) -> _T | None:
    for v in values:
        if v is not None:
            return v
    return None
