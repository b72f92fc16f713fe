"""Full-text search over the index: one query line in, hits grouped by session out.

Query syntax (what ``cctui search``, the TUI and ``claude_search_transcripts`` accept):

- words: every word must appear (``auth token``); ``"a phrase"``; ``prefix*``; ``-word``
  excludes;
- identifiers with punctuation (``Session._pump``, ``src/api/auth.ts``, ``error-401``) are
  matched as written: an FTS phrase of their parts, then checked literally (case-insensitive);
- filters: ``project:NAME|PATH``, ``since:DATE``, ``until:DATE`` (``2026-11-01``, ``7d``,
  ``12h``, ``2w``, ``today``, ``yesterday``), ``role:user|assistant|tool``, ``session:ID``
  (a prefix of the id is enough).

Every term is quoted before it reaches FTS5, so no user input can raise a "malformed MATCH";
an unbalanced ``"`` closes at the end of the line. Matches are read newest first (see
``_run``); a session ranks by its best message (recent, short) and how many of its messages
match. When requiring every word finds fewer than ``LOOSE_BELOW``
sessions, a second pass asks for any of the words (stopwords dropped) and ranks by how many
of them a message holds: a question typed as a sentence still finds its session.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from cctui.errors import CctuiError, ValidationFailed
from cctui.history.extract import ROLE_NAMES
from cctui.history.models import SearchHit, SearchResult
from cctui.history.prepare import msg_id_floor
from cctui.history.snippets import Located, Read, read_piece, snippet, words
from cctui.history.snippets import Term as SnipTerm
from cctui.history.store import IndexStore

CANDIDATES = 2000
"""Messages ranked per query at most: the newest matches; ``capped`` says when more matched."""
ENOUGH_SESSIONS = 50
"""Sessions found (newest first) after which a search stops reading older matches, unless a
page reaches further. Pages within it rank the same set, so they never overlap."""
LOOSE_CANDIDATES = 1000
"""The same for the looser any-word pass (one more FTS look-up per word to count them)."""
LOOSE_BELOW = 3
"""Sessions an all-words pass must find before the looser any-word pass is skipped."""
RECENCY_WEIGHT = 1.0
"""Points a message from today gains over a very old one (halved at 30 days)."""
LENGTH_WEIGHT = 0.5
"""Points a short piece gains over a very long one (halved at 2,000 bytes)."""
COUNT_WEIGHT = 0.25
"""Points a session gains each time its matching messages double."""
ROLES = ("user", "assistant", "tool")

_STOPWORDS = """a an and are as at be but by can could did do does for from had has have how i
if in into is it its me my no not of on or our so that the their them then there these they this
to was we were what when where which who why will with would you your"""
_STOP = frozenset(re.findall(r"\w+", _STOPWORDS))
_WORD = re.compile(r"\w+", re.UNICODE)


class SearchError(ValidationFailed):
    """The query cannot be run (no words, a bad filter value)."""

    code = "bad_query"


@dataclass(slots=True)
class Term:
    text: str
    prefix: bool = False
    negate: bool = False

    @property
    def literal(self) -> bool:
        """Holds punctuation FTS does not index: check it literally after the FTS match."""
        return any(not (c.isalnum() or c.isspace()) for c in self.text)

    def fts(self) -> str:
        return '"' + self.text.replace('"', '""') + '"' + ("*" if self.prefix else "")


@dataclass(slots=True)
class Query:
    """A parsed query line."""

    terms: list[Term] = field(default_factory=list)
    project: str | None = None
    since: float | None = None
    until: float | None = None
    role: str | None = None
    session: str | None = None

    @property
    def positive(self) -> list[Term]:
        return [t for t in self.terms if not t.negate]

    def match_all(self) -> str:
        pos = " AND ".join(t.fts() for t in self.positive)
        neg = [t.fts() for t in self.terms if t.negate]
        return self._scoped(f"({pos}) NOT ({' OR '.join(neg)})" if neg else pos)

    def match_any(self) -> str | None:
        words = [t for t in self.positive if t.text.casefold() not in _STOP]
        return self._scoped(" OR ".join(t.fts() for t in words)) if len(words) >= 2 else None

    def _scoped(self, expr: str) -> str:
        """Words match the text column only; a role filter is the index's ``role`` column."""
        body = f"body : ({expr})"
        return f'role : "{self.role}" AND {body}' if self.role else body


def _split(line: str) -> list[tuple[str, bool]]:
    """Words and quoted phrases; (text, was_quoted). An unbalanced quote runs to the end."""
    out: list[tuple[str, bool]] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c.isspace():
            i += 1
            continue
        neg = c == "-" and i + 1 < n and line[i + 1] == '"'
        if c == '"' or neg:
            start = i + (2 if neg else 1)
            end = line.find('"', start)
            end = n if end < 0 else end
            out.append((("-" if neg else "") + line[start:end], True))
            i = end + 1
            continue
        j = i
        while j < n and not line[j].isspace():
            j += 1
        out.append((line[i:j], False))
        i = j
    return out


def parse_query(line: str, *, now: float | None = None) -> Query:
    """Parse a query line (see the module docstring).

    Raises:
        SearchError: no word to look for, or a filter value that cannot be read.
    """
    q = Query()
    for text, quoted in _split(line):
        negate = text.startswith("-") and len(text) > 1
        if negate:
            text = text[1:]
        key, sep, value = text.partition(":")
        if not quoted and sep and value and key.lower() in _FILTERS:
            _FILTERS[key.lower()](q, value, now if now is not None else time.time())
            continue
        prefix = not quoted and text.endswith("*") and len(text) > 1
        text = text.rstrip("*") if prefix else text
        if not text.strip() or not _WORD.search(text):
            continue
        q.terms.append(Term(text, prefix=prefix, negate=negate))
    if not q.positive:
        raise SearchError(
            "the query has no word to look for",
            suggestion='type words, a "quoted phrase" or prefix*; filters alone '
            "(project:, since:, role:) only narrow a search",
        )
    return q


def _set_project(q: Query, v: str, now: float) -> None:
    q.project = v


def _set_session(q: Query, v: str, now: float) -> None:
    q.session = v


def _set_role(q: Query, v: str, now: float) -> None:
    if v.lower() not in ROLES:
        raise SearchError(f"role:{v} is not one of {', '.join(ROLES)}")
    q.role = v.lower()


def _set_since(q: Query, v: str, now: float) -> None:
    q.since = parse_when(v, now=now)


def _set_until(q: Query, v: str, now: float) -> None:
    q.until = parse_when(v, now=now, end=True)


_FILTERS = {
    "project": _set_project, "p": _set_project, "session": _set_session,
    "role": _set_role, "since": _set_since, "until": _set_until,
}  # fmt: skip

_REL = re.compile(r"^(\d+)([hdwm])$")


def parse_when(value: str, *, now: float | None = None, end: bool = False) -> float:
    """Epoch seconds of a date as people type it: ``2026-11-01`` (local midnight; its end
    with ``end``), an ISO date-time, ``7d``/``12h``/``2w``/``3m`` ago, ``today``, ``yesterday``.

    Raises:
        SearchError: the value is none of those.
    """
    now = time.time() if now is None else now
    v = value.strip().lower()
    rel = _REL.match(v)
    if rel:
        n, unit = int(rel.group(1)), rel.group(2)
        return now - n * {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400}[unit]
    local_today = (
        datetime.fromtimestamp(now).astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    )
    if v in ("today", "yesterday"):
        day = local_today - timedelta(days=1 if v == "yesterday" else 0)
        return (day + timedelta(days=1 if end else 0)).timestamp()
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise SearchError(
            f"cannot read the date {value!r}",
            suggestion="use 2026-11-01, 2026-11-01T14:00, 7d, 12h, 2w, today or yesterday",
        ) from None
    date_only = len(value.strip()) <= 10
    if when.tzinfo is None:
        when = when.astimezone()  # local time, as typed
    if date_only and end:
        when += timedelta(days=1)
    return when.timestamp()


@dataclass(slots=True)
class _Row:
    msg_id: int
    session_id: str
    ts: float | None
    role: str
    sidechain: int
    loc: tuple[str, int, int, int, int]
    """(path, offset, length, crc, part): a ``Located``, made only for the rows shown."""
    matched: int = 0
    score: float = 0.0
    count: int = 1


def search(
    store: IndexStore,
    line: str,
    *,
    limit: int = 20,
    offset: int = 0,
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
    role: str | None = None,
    now: float | None = None,
    stale: set[str] | None = None,
) -> SearchResult:
    """Run one query; hits are sessions (their best message), best first.

    The keyword arguments add to the filters written in ``line``. Transcripts whose hit line
    changed since it was indexed are added to ``stale`` (their hits are left out).

    Raises:
        SearchError: an unreadable query or filter (the message says what to type instead).
    """
    now = time.time() if now is None else now
    q = parse_query(line, now=now)
    if project:
        q.project = project
    if since:
        q.since = parse_when(since, now=now)
    if until:
        q.until = parse_when(until, now=now, end=True)
    if role:
        _set_role(q, role, now)
    conn = store.reader()
    started = time.perf_counter()
    want = max(ENOUGH_SESSIONS, offset + limit + 1)
    rows, capped = _run(conn, q, q.match_all(), now, loose=False, want=want)
    loose = False
    sessions = _group(rows, loose=False)
    exact = len(sessions)
    any_expr = q.match_any()
    if len(sessions) < LOOSE_BELOW and any_expr is not None:
        extra, capped2 = _run(conn, q, any_expr, now, loose=True, want=want)
        seen = {r.session_id for r in sessions}
        more = [r for r in _group(extra, loose=True) if r.session_id not in seen]
        if more:
            loose = True
            sessions += more
            capped = capped or capped2
    hits: list[SearchHit] = []
    i = 0
    # The page is read from the transcripts: a hit whose line changed is dropped (and its file
    # named in ``stale``), one whose identifier is not there as written is no hit at all.
    while i < len(sessions) and len(hits) < limit:
        r = sessions[i]
        at = Located(*r.loc)
        text = read_piece(at)
        is_loose = loose and r.matched > 0
        if text is None:
            if stale is not None:
                stale.add(at.path)
        elif _literal_ok(q, text.text, is_loose):
            if i >= offset:
                hits.append(_hit(conn, q, r, is_loose, text))
            i += 1
            continue
        del sessions[i]
        exact -= i < exact
    end = i
    return SearchResult(
        query=line,
        hits=hits,
        total=len(sessions),
        exact=exact,
        next_cursor=str(end) if end < len(sessions) else None,
        loose=loose,
        capped=capped,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _filters(conn: sqlite3.Connection, q: Query) -> tuple[str, list[object]]:
    """The filters as SQL on ``m`` (the message), with their arguments.

    ``project:`` and ``session:`` are resolved to source ids once here, and each time window's
    statement looks them up in that list; resolved inside every statement (a subquery over
    the cards), they cost a project filter more than its FTS work at 20,000 sessions."""
    where: list[str] = []
    args: list[object] = []
    if q.since is not None:
        where.append("m.ts >= ?")
        args.append(q.since)
    if q.until is not None:
        where.append("m.ts < ?")
        args.append(q.until)
    if q.session or q.project:
        sql = "SELECT s.id FROM source s"
        sargs: list[object] = []
        if q.project:
            # Matched in Python over the few distinct directories (the ``card_cwd`` index),
            # not by LIKE over every card: 20 -> 3 ms at 20,000 sessions.
            p = (q.project.rstrip("/") or "/").lower()
            cwds = [
                c
                for (c,) in conn.execute("SELECT DISTINCT cwd FROM card")
                if c
                and ((low := c.lower()) == p or low.startswith(p + "/") or low.endswith("/" + p))
            ]
            sql += (
                " JOIN card c ON c.session_id = s.session_id "
                "AND c.cwd IN (SELECT value FROM json_each(?))"
            )
            sargs.append(json.dumps(cwds))
        if q.session:
            sql += " WHERE s.session_id LIKE ? ESCAPE '\\'"
            sargs.append(_like(q.session) + "%")
        ids = [r[0] for r in conn.execute(sql, sargs)]
        where.append("m.source_id IN (SELECT value FROM json_each(?))")
        args.append(json.dumps(ids))
    return "".join(f" AND {w}" for w in where), args


def _like(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _run(
    conn: sqlite3.Connection, q: Query, expr: str, now: float, *, loose: bool, want: int
) -> tuple[list[_Row], bool]:
    """The newest matching messages, scored.

    Message ids follow time, so FTS5 hands rows back newest first (``ORDER BY rowid DESC``)
    and the read stops at ``CANDIDATES`` messages or ``want`` sessions. A query whose matches
    are few among many messages holding its words (a phrase with a stopword, a common word in
    one project) then reads only as far back as it must, instead of every doclist to the
    oldest row. ``capped`` says older matches were not read. Tombstones (``source_id = 0``)
    find no source and drop out of the join.

    No bm25: FTS5 computes its IDF by walking each phrase's whole doclist once per query
    (~10 ms per common word at 20,000 sessions; a phrase's whole evaluation again, 100 ms for
    one with a stopword), which alone broke the 50 ms budget. The score is recency, a shorter
    piece, and (per session, in ``_group``) how many of its messages match.
    """
    where, args = _filters(conn, q)
    cap = LOOSE_CANDIDATES if loose else CANDIDATES
    # Two subqueries: min() and max() together in one SELECT would scan the whole table.
    lo, hi = conn.execute("SELECT (SELECT min(id) FROM msg), (SELECT max(id) FROM msg)").fetchone()
    if hi is None:
        return [], False
    if q.since is not None:
        lo = max(lo, msg_id_floor(q.since))
    if q.until is not None:
        hi = min(hi, msg_id_floor(q.until) - 1)
    if hi < lo:
        return [], False
    sql = (
        "SELECT m.id, s.session_id, m.ts, m.role, m.sidechain, m.len, "
        "s.path, m.off, m.len, m.crc, m.part "
        "FROM msg_fts JOIN msg m ON m.id = msg_fts.rowid JOIN source s ON s.id = m.source_id "
        f"WHERE msg_fts MATCH ? AND msg_fts.rowid >= ? AND msg_fts.rowid <= ?{where} "
        "ORDER BY msg_fts.rowid DESC"
    )
    raw: list[tuple[Any, ...]] = []
    sessions: set[str] = set()
    capped = False
    try:
        cur = conn.execute(sql, [expr, lo, hi, *args])
        while batch := cur.fetchmany(64):
            for r in batch:
                if len(raw) >= cap or (len(sessions) >= want and r[1] not in sessions):
                    capped = True
                    break
                raw.append(r)
                sessions.add(r[1])
            if capped:
                break
        cur.close()
    except sqlite3.OperationalError as exc:
        raise SearchError(
            f"the search index could not read this query ({exc})",
            suggestion='put unusual characters inside "double quotes"',
        ) from None
    rows: list[_Row] = []
    for r in raw:
        ts = r[2]
        age_days = max(0.0, (now - (ts or 0.0)) / 86400)
        row = _Row(r[0], r[1], ts, ROLE_NAMES.get(r[3], "tool"), r[4], r[6:])
        # Lower is better: recency (halved at 30 days), then a shorter piece (a word in a
        # prompt says more than the same word somewhere in a 200 KB log).
        row.score = -RECENCY_WEIGHT / (1 + age_days / 30) - LENGTH_WEIGHT / (1 + r[5] / 2000)
        rows.append(row)
    if loose and rows:
        _count_words(conn, q, rows)
        rows.sort(key=lambda x: (-x.matched, x.score))
    else:
        rows.sort(key=lambda x: x.score)
    return rows, capped


def _count_words(conn: sqlite3.Connection, q: Query, rows: list[_Row]) -> None:
    """How many of the query's words each candidate holds: one FTS look-up per word over the
    candidates' id range (the index keeps no text to count them in)."""
    lo, hi = min(r.msg_id for r in rows), max(r.msg_id for r in rows)
    by_id = {r.msg_id: r for r in rows}
    for t in q.positive:
        if t.text.casefold() in _STOP:
            continue
        expr = q._scoped(t.fts())
        for (rowid,) in conn.execute(
            "SELECT rowid FROM msg_fts WHERE msg_fts MATCH ? AND rowid >= ? AND rowid <= ?",
            (expr, lo, hi),
        ):
            row = by_id.get(rowid)
            if row is not None:
                row.matched += 1


def _group(rows: list[_Row], *, loose: bool) -> list[_Row]:
    """Each session's best message (``rows`` are best first), its session's score raised by
    how many of its messages match; best session first."""
    best: dict[str, _Row] = {}
    for r in rows:
        b = best.get(r.session_id)
        if b is None:
            best[r.session_id] = r
        else:
            b.count += 1
    out = list(best.values())
    for r in out:
        r.score -= COUNT_WEIGHT * math.log2(r.count)
    out.sort(key=(lambda x: (-x.matched, x.score)) if loose else (lambda x: x.score))
    return out


def _hit(conn: sqlite3.Connection, q: Query, r: _Row, loose: bool, text: Read) -> SearchHit:
    terms = [
        SnipTerm(tuple(words(t.text)), t.prefix) for t in (q.positive if not loose else
        [t for t in q.positive if t.text.casefold() not in _STOP])
    ]  # fmt: skip
    snip, spans = snippet(text.text, terms)
    card = conn.execute(
        "SELECT cwd, title FROM card WHERE session_id=? ORDER BY mtime DESC LIMIT 1",
        (r.session_id,),
    ).fetchone()
    cwd, title = (card[0], card[1]) if card else (None, None)
    return SearchHit(
        session_id=r.session_id,
        cwd=cwd,
        title=title,
        timestamp=datetime.fromtimestamp(r.ts, tz=UTC) if r.ts is not None else None,
        role=r.role,
        message_uuid=text.uuid,
        snippet=snip,
        highlights=spans,
        score=round(-r.score, 4),
        matches=r.count,
        matched_words=r.matched if loose else None,
        sidechain=bool(r.sidechain),
    )


def _literal_ok(q: Query, text: str, loose: bool) -> bool:
    """Identifiers with punctuation matched as FTS phrases are checked as written."""
    if loose:
        return True
    low = text.lower()
    return all(t.text.lower() in low for t in q.positive if t.literal and not t.prefix)


__all__ = ["CctuiError", "SearchError", "parse_query", "parse_when", "search"]
