"""The session catalog: Claude Code's sessions on disk merged with the ones cctui drives.

The one place that decides a listed session's status, title, project and cost, and how a list
is filtered. The TUI's session list, ``cctui sessions`` and the MCP ``claude_list_sessions`` tool
all go through ``query_catalog`` (or ``list_catalog``), so they always agree.

Status of an entry, first rule that applies:

1. cctui drives it and its process is alive: cctui's own live status;
2. a ``claude`` process has it open (``sessions/<pid>.json``, pid alive): ``idle`` if the CLI
   says so, else ``running`` — a terminal or IDE session cctui only watches;
3. cctui knows it (registry or manager): its last status, except that a live status with no
   process behind it (cctui exited mid-turn) becomes ``interrupted``;
4. otherwise it is a past session: ``completed``.
"""

from __future__ import annotations

import functools
import heapq
import os
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from cctui.config import Settings
from cctui.core import spare_records
from cctui.core.archive import ARCHIVE_FILE, read_archived
from cctui.core.session.models import SessionInfo, SessionRecord
from cctui.core.session.states import LIVE, SessionStatus
from cctui.history import HistoryIndex, Problems, SessionSummary

CatalogSource = Literal["cctui", "transcript", "history", "process"]

CURRENT = LIVE | {SessionStatus.QUEUED, SessionStatus.PAUSED}
"""What ``status:live`` finds: sessions with a process, and those the dispatcher is about to
start (queued) or continue (paused at the usage limit). Neither is past work, and someone
asking for the live sessions expects the ones about to run among them (``active`` stays
"a process runs", as seed 004's ``status_filter`` means it)."""

STATUS_GROUPS: dict[str, frozenset[SessionStatus]] = {
    "active": LIVE,
    "live": CURRENT,
    "past": frozenset(SessionStatus) - CURRENT,
    "waiting": frozenset({SessionStatus.WAITING_FOR_INPUT}),
    "paused": frozenset({SessionStatus.PAUSED}),
}
"""Words a status filter accepts besides the states themselves (``queued``, ``cancelled``,
``paused_usage_limit``...)."""

ARCHIVED = "archived"
"""The status word that lists archived sessions (``core.archive``); without it they are left
out. With other words too it narrows them: ``status:archived,waiting``."""


class CatalogEntry(BaseModel):
    """One row of the merged session list."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    status: SessionStatus
    is_active: bool = False
    """A ``claude`` process has this session open right now (cctui's or anyone's)."""
    started_by_cctui: bool = False
    """cctui started (or resumed) it, so its registry keeps its config."""
    project: str | None = None
    """A project label: the configured one, else the working directory's name."""
    cwd: str | None = None
    """The session's working directory (the project path)."""
    title: str | None = None
    """Configured or custom title, else the CLI's summary, else the first prompt."""
    last_activity: datetime
    created_at: datetime | None = None
    total_cost_usd: float | None = None
    """Known cost in USD: cctui's running total, else the transcript's last cost record."""
    git_branch: str | None = None
    worktree: Literal["active", "gone", "merged", "kept", "discarded"] | None = None
    """The session runs in a worktree of its own (``git_branch`` is its branch): its state;
    ``gone`` when its directory was removed by hand."""
    team: str | None = None
    teammate: str | None = None
    tags: tuple[str, ...] = ()
    pid: int | None = None
    pending_inputs: int = 0
    """Permissions, plan reviews or questions waiting for an answer (cctui's sessions only)."""
    dispatch_note: str | None = None
    """What the dispatcher says of it (``queued 3rd``, ``waits for 2 sessions``, ``paused
    until 14:05 (usage limit)``, ``run of schedule nightly``; cctui's sessions only)."""
    model: str | None = None
    """cctui's sessions: the model in use (the CLI's name for it once a turn ran, else the one
    asked for; None: the CLI's default)."""
    permission_mode: str | None = None
    """cctui's sessions: the CLI's permission mode (the last one once its process ended;
    None: not known)."""
    sources: frozenset[CatalogSource] = frozenset()
    """Where this row came from."""
    transcript_path: Path | None = None
    file_size: int | None = None
    archived: bool = False
    """Hidden from the list (``core.archive``) until a filter asks for ``status:archived``."""
    has_past: bool = False
    """cctui's sessions: its events begin after a conversation in its transcript
    (``SessionInfo.has_past``)."""

    @field_serializer("sources", when_used="json")
    def _sources_in_order(self, sources: frozenset[CatalogSource]) -> list[CatalogSource]:
        # Sorted: a set's order follows the process's string hashes, so `cctui sessions
        # --json` listed a session's sources in another order from one run to the next.
        return sorted(sources)


class CatalogQuery(BaseModel):
    """A filter over the catalog; every field left ``None`` matches everything."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    """Words, each a case-insensitive substring of title, project, directory, id, branch, team
    or tags (every word must match somewhere)."""
    project: str | None = None
    """A directory (matches it and everything under it) or a project name (exact, any case)."""
    status: tuple[str, ...] | None = None
    """States (``running``, ``completed``...) or groups (``active``/``live``, ``past``)."""
    team: str | None = None
    is_active: bool | None = None
    started_by_cctui: bool | None = None
    limit: int | None = Field(default=None, ge=1)
    offset: int = Field(default=0, ge=0)

    @field_validator("status", mode="before")
    @classmethod
    def _known_statuses(cls, value: object) -> object:
        if value is None:
            return None
        if isinstance(value, str):
            value = value.split(",")  # "running,idle" from a command line
        if not isinstance(value, list | tuple | set | frozenset):
            raise ValueError("status must be a word or a list of words")
        words = tuple(str(v).strip().lower() for v in value if str(v).strip())
        known = set(STATUS_GROUPS) | {s.value for s in SessionStatus} | {ARCHIVED}
        bad = [w for w in words if w not in known]
        if bad:
            raise ValueError(f"unknown status {bad[0]!r}; use one of {', '.join(sorted(known))}")
        return words

    def statuses(self) -> frozenset[SessionStatus] | None:
        """The status filter as a set of states (groups expanded)."""
        words = [w for w in self.status or () if w != ARCHIVED]
        if not words:
            return None
        out: set[SessionStatus] = set()
        for word in words:
            out |= STATUS_GROUPS[word] if word in STATUS_GROUPS else {SessionStatus(word)}
        return frozenset(out)

    @property
    def archived(self) -> bool:
        """The filter lists archived sessions (and only those)."""
        return ARCHIVED in (self.status or ())


class CatalogPage(BaseModel):
    """A filtered, limited slice of the catalog."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    entries: tuple[CatalogEntry, ...]
    total: int
    """Entries that matched before ``offset``/``limit``."""
    truncated: bool
    """More matched than were returned."""
    problems: Problems = Problems()
    """What the history index could not read (shown, never fatal)."""


Own = SessionInfo | SessionRecord


def _process_status(summary: SessionSummary) -> SessionStatus:
    return SessionStatus.IDLE if summary.process_status == "idle" else SessionStatus.RUNNING


def _merge_one(sid: str, summary: SessionSummary | None, own: Own | None) -> CatalogEntry:
    if own is None and summary is not None:
        return _past_one(sid, summary)
    return _merged(sid, summary, own)


def _merged(sid: str, summary: SessionSummary | None, own: Own | None) -> CatalogEntry:
    own_active = isinstance(own, SessionInfo) and own.is_active
    disk_running = summary is not None and summary.is_running
    if own is not None and own_active:
        status = own.status
    elif summary is not None and disk_running:
        status = _process_status(summary)
    elif own is not None:
        status = SessionStatus.INTERRUPTED if own.status in LIVE else own.status
    else:
        status = SessionStatus.COMPLETED
    sources: set[CatalogSource] = set(summary.sources) if summary is not None else set()
    config = own.config if own is not None else None
    if own is not None:
        sources.add("cctui")
    cwd = str(config.cwd) if config is not None else (summary.cwd if summary else None)
    times = [t for t in (own and own.last_activity, summary and summary.last_activity) if t]
    own_cost = own.total_cost_usd if own is not None and own.total_cost_usd > 0 else None
    pid = own.pid if isinstance(own, SessionInfo) and own_active else None
    return CatalogEntry(
        session_id=sid,
        status=status,
        is_active=own_active or disk_running,
        started_by_cctui=own is not None,
        project=(config.project if config else None) or (_dir_name(cwd) if cwd else None),
        cwd=cwd,
        title=(own.title if own else None) or (summary.title if summary else None),
        last_activity=max(times),
        created_at=own.created_at if own is not None else (summary and summary.created_at),
        total_cost_usd=own_cost if own_cost is not None else (summary and summary.total_cost_usd),
        git_branch=(
            own.worktree.branch
            if own is not None and own.worktree is not None
            else (summary.git_branch if summary else None)
        ),
        worktree=_worktree_state(own),
        team=config.team if config else None,
        teammate=config.teammate if config else None,
        tags=config.tags if config else (),
        pid=pid or (summary.pid if summary else None),
        pending_inputs=len(own.pending_input_ids) if isinstance(own, SessionInfo) else 0,
        dispatch_note=(
            own.dispatch.note if isinstance(own, SessionInfo) and own.dispatch else None
        ),
        model=(own.model if isinstance(own, SessionInfo) else None)
        or (config.model if config else None),
        permission_mode=own.permission_mode if isinstance(own, SessionInfo) else None,
        sources=frozenset(sources),
        transcript_path=summary.transcript_path if summary else None,
        file_size=summary.file_size if summary else None,
        has_past=own.has_past if isinstance(own, SessionInfo) else own is not None,
    )


def _past_one(sid: str, summary: SessionSummary) -> CatalogEntry:
    """``_merge_one`` of a session cctui does not know, from its history alone (the
    thousands of past sessions of a first frame: each field as ``_merge_one`` has it)."""
    running = summary.is_running
    cwd = summary.cwd
    return CatalogEntry(
        session_id=sid,
        status=_process_status(summary) if running else SessionStatus.COMPLETED,
        is_active=running,
        project=_dir_name(cwd) if cwd else None,
        cwd=cwd,
        title=summary.title,
        last_activity=summary.last_activity,
        created_at=summary.created_at,
        total_cost_usd=summary.total_cost_usd,
        git_branch=summary.git_branch,
        pid=summary.pid,
        sources=summary.sources,
        transcript_path=summary.transcript_path,
        file_size=summary.file_size,
    )


_PAST_ROW: dict[str, Any] = {}
"""``CatalogEntry``'s fields at their defaults, in its order (filled on first use)."""
_TRANSCRIPT_ONLY: frozenset[CatalogSource] = frozenset({"transcript"})


def _past_row(card: Sequence[Any]) -> dict[str, Any]:
    """``_past_one(sid, summary).model_dump()`` (the path as text) of a session only its
    transcript names, straight from its card row (``HistoryIndex.transcript_only``): the
    summary ``_compose`` makes of such a session holds the card's fields as they are."""
    if not _PAST_ROW:
        _PAST_ROW.update(
            CatalogEntry(
                session_id="", status=SessionStatus.COMPLETED, last_activity=datetime.now(UTC)
            ).model_dump()
        )
    sid, path, _mtime, last, size, cwd, title, created, branch, cost = card
    row = _PAST_ROW.copy()
    row["session_id"] = sid
    row["project"] = _dir_name(cwd) if cwd else None
    row["cwd"] = cwd
    row["title"] = title
    row["last_activity"] = datetime.fromtimestamp(last, tz=UTC)
    row["created_at"] = None if created is None else datetime.fromtimestamp(created, tz=UTC)
    row["total_cost_usd"] = cost
    row["git_branch"] = branch
    row["sources"] = _TRANSCRIPT_ONLY
    row["transcript_path"] = path  # (its text: a Path each costs 20,000 rows ~0.1 s)
    row["file_size"] = size
    return row


@functools.lru_cache(maxsize=4096)
def _dir_name(cwd: str) -> str:
    """A directory's last part (20,000 sessions share a few dozen directories)."""
    return Path(cwd).name


def _worktree_state(
    own: Own | None,
) -> Literal["active", "gone", "merged", "kept", "discarded"] | None:
    wt = own.worktree if own is not None else None
    if wt is None:
        return None
    if wt.finished is not None:
        return wt.finished
    return "active" if wt.path.is_dir() else "gone"


def build_catalog(
    history: HistoryIndex | Iterable[SessionSummary],
    own: Iterable[Own] = (),
    hidden: Collection[str] = (),
    archived: Collection[str] = (),
) -> list[CatalogEntry]:
    """Every session once, newest activity first.

    ``own`` is what cctui knows of the sessions it started: ``SessionManager.list()`` (live
    status) or the registry's records (``cctui sessions`` without a running manager).
    ``hidden``: ids left out of the history (``SessionManager.spare_ids``: a process cctui
    started ahead of its first prompt has its ``sessions/<pid>.json`` like any other).
    ``archived``: ids marked archived (``core.archive``), left out unless a query asks.
    """
    summaries = history.sessions() if isinstance(history, HistoryIndex) else history
    by_id: dict[str, SessionSummary] = {
        s.session_id: s for s in summaries if s.session_id not in hidden
    }
    mine: dict[str, Own] = {o.session_id: o for o in own}
    entries = [_merge_one(sid, by_id.get(sid), mine.get(sid)) for sid in by_id.keys() | mine]
    if archived:
        entries = [
            e.model_copy(update={"archived": True}) if e.session_id in archived else e
            for e in entries
        ]
    entries.sort(key=lambda e: (e.last_activity, e.session_id), reverse=True)
    return entries


def _under(cwd: str, root: str) -> bool:
    root = root.rstrip("/") or "/"
    return cwd == root or cwd.startswith(root if root.endswith("/") else root + "/")


def matches(entry: CatalogEntry, query: CatalogQuery) -> bool:
    """True when ``entry`` passes every filter of ``query`` (``limit`` aside)."""
    return _matches(entry, query, query.statuses())


def _matches(
    entry: CatalogEntry, query: CatalogQuery, statuses: frozenset[SessionStatus] | None
) -> bool:
    if statuses is not None and entry.status not in statuses:
        return False
    if entry.archived != query.archived:
        return False
    if query.is_active is not None and entry.is_active != query.is_active:
        return False
    if query.started_by_cctui is not None and entry.started_by_cctui != query.started_by_cctui:
        return False
    if query.team is not None and (entry.team or "").casefold() != query.team.casefold():
        return False
    if query.project:
        wanted = query.project.strip()
        by_name = (entry.project or "").casefold() == wanted.casefold()
        # Either spelling matches: as given (~ expanded) or resolved (symlinks, ..), since
        # cwds are stored resolved but Claude Code's files keep what the CLI saw.
        paths = (
            {str(Path(wanted).expanduser()), os.path.realpath(Path(wanted).expanduser())}
            if "/" in wanted
            else set()
        )
        if not by_name and not (entry.cwd and any(_under(entry.cwd, p) for p in paths)):
            return False
    if query.text:
        hay = (entry.title, entry.project, entry.cwd, entry.session_id, entry.git_branch,
               entry.team, entry.teammate, *entry.tags)  # fmt: skip
        folded = [h.casefold() for h in hay if h]
        for needle in query.text.casefold().split():
            if not any(needle in h for h in folded):
                return False
    return True


_FILTER_KEYS = {"status": "status", "s": "status", "project": "project", "p": "project",
                "team": "team", "t": "team"}  # fmt: skip


def parse_filter(line: str) -> CatalogQuery:
    """A one-line filter as people type it: ``fix status:live project:api``.

    ``key:value`` words set that field (``status:`` may repeat or list ``a,b``); the other
    words are the text filter. The TUI's ``/`` filter uses it, so it matches exactly what
    ``claude_list_sessions`` and ``cctui sessions`` would.

    Raises:
        pydantic.ValidationError: an unknown status word.
    """
    fields: dict[str, list[str]] = {}
    words: list[str] = []
    for word in line.split():
        key, sep, value = word.partition(":")
        name = _FILTER_KEYS.get(key.lower()) if sep and value else None
        if name is None:
            words.append(word)
        else:
            fields.setdefault(name, []).extend(v for v in value.split(",") if v)
    data: dict[str, object] = {"text": " ".join(words) or None}
    if "status" in fields:
        data["status"] = fields["status"]
    for name in ("project", "team"):
        if name in fields:
            data[name] = fields[name][-1]
    return CatalogQuery.model_validate(data)


def query_catalog(
    entries: Sequence[CatalogEntry], query: CatalogQuery, problems: Problems | None = None
) -> CatalogPage:
    """Filter, then apply ``offset`` and ``limit``; ``total`` counts every match."""
    statuses = query.statuses()
    hits = [e for e in entries if _matches(e, query, statuses)]
    end = None if query.limit is None else query.offset + query.limit
    page = hits[query.offset : end]
    return CatalogPage(
        entries=tuple(page),
        total=len(hits),
        truncated=query.offset + len(page) < len(hits),
        problems=problems or Problems(),
    )


def list_catalog_page(
    settings: Settings,
    *,
    text: str | None = None,
    project: str | None = None,
    status: Sequence[str] | str | None = None,
    team: str | None = None,
    limit: int | None = None,
    own: Iterable[Own] | None = None,
) -> CatalogPage:
    """One-shot listing without a running app (``cctui sessions``): reads the disk once.

    The page's ``total`` counts every match, so a caller can say when ``limit`` cut the list.

    cctui's own sessions come from ``own`` when given, else from the registry file.
    """
    query = CatalogQuery.model_validate(
        {"text": text, "project": project, "status": status, "team": team, "limit": limit}
    )
    paged = query.limit is not None and _unfiltered(query)
    index = HistoryIndex.from_settings(settings)
    try:
        index.refresh(cards=not paged)  # a page composes only its own rows
        return _page_of(settings, index, query, paged, own)
    finally:
        index.close()


def _page_of(
    settings: Settings,
    index: HistoryIndex,
    query: CatalogQuery,
    paged: bool,
    own: Iterable[Own] | None,
) -> CatalogPage:
    own, hidden, archived = _marks(settings, own)
    if paged:
        return _newest_page(index, own, hidden, archived, query)
    return query_catalog(build_catalog(index, own, hidden, archived), query)


def _marks(
    settings: Settings, own: Iterable[Own] | None
) -> tuple[Iterable[Own], Collection[str], Collection[str]]:
    """cctui's own sessions (``own``, else the registry file's), and the hidden and archived
    ids, as a one-shot listing reads them."""
    if own is None:
        from cctui.core.records import SessionRecords  # only this one-shot path reads the file

        own = list(SessionRecords(settings.state_dir).load().values())
    hidden = spare_records.published(settings.state_dir)
    archived = read_archived(settings.state_dir / ARCHIVE_FILE)
    return own, hidden, archived


def list_catalog_rows(
    settings: Settings, *, own: Iterable[Own] | None = None
) -> list[dict[str, Any]]:
    """Every entry of ``list_catalog_page(settings)`` (no filter, no limit) as its
    ``model_dump()``, for a caller that only writes them out as JSON (``cctui sessions
    --json``): a past row's ``transcript_path`` is its text, which ``pydantic_core.to_json``
    writes as it writes the ``Path``.

    The thousands of past sessions only a transcript names are made straight from the index
    file's card rows, without a summary or an entry each (``_past_row``): 20,000 of them
    through the three model layers cost every-row JSON about 1.5 s of CPU."""
    index = HistoryIndex.from_settings(settings)
    try:
        index.refresh(cards=False)
        return _every_row(index, *_marks(settings, own))
    finally:
        index.close()


def _every_row(
    index: HistoryIndex, own: Iterable[Own], hidden: Collection[str], archived: Collection[str]
) -> list[dict[str, Any]]:
    """``[e.model_dump() for e in query_catalog(build_catalog(index, own, hidden, archived),
    CatalogQuery()).entries]``, the sessions only a transcript names made by ``_past_row``."""
    mine: dict[str, Own] = {o.session_id: o for o in own}
    plain, others = index.transcript_only()
    rows: list[dict[str, Any]] = []
    merged = set(others)
    for card in plain:
        sid = card[0]
        if sid in mine:
            merged.add(sid)
        elif sid not in hidden and sid not in archived:
            rows.append(_past_row(card))
    by_id = {s.session_id: s for s in index.summaries(merged - set(hidden))}
    for sid in by_id.keys() | mine.keys():
        if sid not in archived:
            rows.append(_merge_one(sid, by_id.get(sid), mine.get(sid)).model_dump())
    rows.sort(key=lambda r: (r["last_activity"], r["session_id"]), reverse=True)
    return rows


def _unfiltered(query: CatalogQuery) -> bool:
    """Only pages: every field but ``limit``/``offset`` at its default (a filter added later
    to ``CatalogQuery`` turns the short cut off by itself)."""
    paging = {"limit", "offset"}
    return query.model_dump(exclude=paging) == _NO_FILTER.model_dump(exclude=paging)


_NO_FILTER = CatalogQuery()


def _newest_page(
    index: HistoryIndex | Iterable[SessionSummary],
    own: Iterable[Own],
    hidden: Collection[str],
    archived: Collection[str],
    query: CatalogQuery,
) -> CatalogPage:
    """``query_catalog(build_catalog(...), query)`` for a query that only pages: only the
    page's sessions are composed and merged (20,000 summaries and entries cost ``cctui
    sessions --limit 50`` over a second), picked by the same order from each session's last
    activity alone."""
    if not isinstance(index, HistoryIndex):
        summaries = {s.session_id: s for s in index}
        activity = {sid: s.last_activity.timestamp() for sid, s in summaries.items()}
    else:
        activity = index.activity()
    for sid in hidden:
        activity.pop(sid, None)
    mine: dict[str, Own] = {o.session_id: o for o in own}
    keys = [(t, sid) for sid, t in activity.items() if sid not in mine and sid not in archived]
    for sid, o in mine.items():
        if sid not in archived:
            t = activity.get(sid)
            mine_t = o.last_activity.timestamp()
            keys.append((mine_t if t is None else max(t, mine_t), sid))
    assert query.limit is not None
    top = [sid for _, sid in heapq.nlargest(query.offset + query.limit, keys)][query.offset :]
    wanted = [sid for sid in top if sid in activity]
    found = (
        index.summaries(wanted)
        if isinstance(index, HistoryIndex)
        else [summaries[sid] for sid in wanted]
    )
    by_id = {s.session_id: s for s in found}
    page = [_merge_one(sid, by_id.get(sid), mine.get(sid)) for sid in top]
    return CatalogPage(
        entries=tuple(page),
        total=len(keys),
        truncated=query.offset + len(page) < len(keys),
        problems=Problems(),
    )


def list_catalog(
    settings: Settings,
    *,
    text: str | None = None,
    project: str | None = None,
    status: Sequence[str] | str | None = None,
    team: str | None = None,
    limit: int | None = None,
    own: Iterable[Own] | None = None,
) -> list[CatalogEntry]:
    """``list_catalog_page``'s entries."""
    page = list_catalog_page(
        settings, text=text, project=project, status=status, team=team, limit=limit, own=own
    )
    return list(page.entries)
