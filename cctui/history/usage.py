"""Usage reports from the index: tokens and cost by day, week, month, session, project, model,
and ccusage's 5-hour blocks.

Each API reply is one ``usage`` row (deduplicated when indexed, see ``indexer``), so every
report is an SQL aggregate over the index and never re-reads a transcript. Days, weeks
(Monday to Sunday) and months are local time, as ccusage's default. A group whose replies
have no known price keeps its tokens and shows ``cost_usd=None`` ("no price"), never $0;
a group with some priced replies shows their cost and counts the rest in ``unpriced_replies``.

Blocks follow ccusage (``blocks.rs``): a block starts at its first reply's time floored to the
hour (UTC) and ends 5 hours later; a reply more than 5 hours after the block's start or after
the previous reply starts a new block; a block is active while its last reply is less than
5 hours old and its end is still ahead. Replies are grouped per hour first, so a report reads
at most one row per hour of use.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypedDict, Unpack

from pydantic import TypeAdapter

from cctui.history.models import UsageReport, UsageRow
from cctui.history.search import SearchError, parse_when
from cctui.history.store import IndexStore, has_session_rollup
from cctui.timestamps import iso_z

Period = Literal["daily", "weekly", "monthly", "session", "project", "model", "blocks"]
PERIODS: tuple[str, ...] = ("daily", "weekly", "monthly", "session", "project", "model", "blocks")
TIME_PERIODS = ("daily", "weekly", "monthly")
GROUPS = ("session", "project", "model")
"""What ``group_by`` may split a time period's lines by."""
BLOCK_SECONDS = 5 * 3600
_TOKEN_FIELDS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read", "replies")

_TOKEN_SUMS = (
    "sum(u.input), sum(u.output), sum(u.cw5m), sum(u.cw1h), sum(u.cr), sum(u.n), "
    "sum(u.cost), sum(u.unpriced)"
)
_SUMS = f"{_TOKEN_SUMS}, group_concat(u.model)"
"""Over ``usage_q u``, the 15-minute rollup. The models are made distinct in Python, as
every reader does anyway (``DISTINCT`` kept a B-tree per group: ~8 ms of a report by session's
20,000)."""
_QUARTER = 900
"""Time reports group replies per 15 minutes in SQL, then per local day in Python: every
time zone's offset is a multiple of 15 minutes, and ``localtime()`` per reply is slow."""


@dataclass(slots=True)
class _Acc:
    """Sums of one report line."""

    sums: list[int] = field(default_factory=lambda: [0] * 6)
    cost: float = 0.0
    unpriced: int = 0
    models: set[str] = field(default_factory=set)
    sessions: set[str] = field(default_factory=set)
    session_count: int = 0
    """Counted in SQL when the ids are not collected."""

    def add(self, r: Sequence[Any]) -> None:
        for i in range(6):
            self.sums[i] += r[i] or 0
        self.cost += r[6] or 0.0
        self.unpriced += r[7] or 0
        if r[8]:
            self.models.update(str(r[8]).split(","))

    def data(self, key: str, **extra: Any) -> dict[str, Any]:
        """The line as ``UsageRow``'s fields (a report validates its lines in one call)."""
        return {
            "key": key,
            "tokens": dict(zip(_TOKEN_FIELDS, self.sums, strict=True)),
            # No priced reply at all: "no price", never $0.
            "cost_usd": None if self.unpriced >= self.sums[5] else round(self.cost, 9),
            "unpriced_replies": self.unpriced,
            "models": sorted(self.models),
            "sessions": len(self.sessions) or self.session_count,
            **extra,
        }


@functools.cache
def _rows_adapter() -> TypeAdapter[list[UsageRow]]:
    return TypeAdapter(list[UsageRow])


def _period_key(period: str, quarter: int) -> str:
    day = datetime.fromtimestamp(quarter * _QUARTER).date()  # local time
    if period == "daily":
        return day.isoformat()
    if period == "weekly":
        return (day - timedelta(days=day.weekday())).isoformat()  # Monday
    return day.strftime("%Y-%m")


class UsageFilters(TypedDict, total=False):
    """What a report covers: ``since``/``until`` (as ``search.parse_when`` reads them), a
    ``project`` directory, a ``group_by`` splitting a time period, and ``now`` (tests)."""

    since: str | None
    until: str | None
    project: str | None
    group_by: str | None
    now: float | None


def usage_report(
    store: IndexStore, period: str = "daily", *, pricing: str = "", **filters: Unpack[UsageFilters]
) -> UsageReport:
    """One report (see the module docstring).

    Raises:
        SearchError: an unknown period or grouping, or an unreadable date.
    """
    started = time.perf_counter()
    lines = usage_lines(store, period, **filters)
    return UsageReport(
        period=period,
        rows=_rows_adapter().validate_python(lines.row_fields()),
        total=UsageRow.model_validate(lines.total),
        since=lines.since,
        until=lines.until,
        project=filters.get("project"),
        group_by=filters.get("group_by"),
        pricing=pricing,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


SessionLine = tuple[
    str, str | None, str | None, int, int, int, int, int, int, float | None, int, str
]
"""A report by session's line as its SQL row gives it: session id, title, cwd; input, output,
cache writes (5 minutes, 1 hour), cache reads, replies; ``cost_usd`` (None: no price),
unpriced replies; the models, comma-joined."""


TableLine = tuple[str, str | None, str, float | None, int]
"""A report by session's line for the text table: session id, title, the five token columns
as the table prints them (input, output, cache writes, cache reads, total; formatted by SQL),
``cost_usd`` (None: no price), unpriced replies."""


def _table_tokens(total: str) -> str:
    """The table's token columns, formatted as ``f"{n:>12,}"`` would (SQLite's ``,`` flag):
    one string per line instead of five Python ints to make and format: 20,000 sessions' lines
    made this way cost ~0.07 s less CPU (``docs/benchmarks.md``, 2026-11-29 night). ``total``:
    ``sum`` over ``usage_q``'s rows, ``""`` for ``usage_s``'s ready line."""
    i, o, w5, w1, cr = (f"{total}(u.{c})" for c in ("input", "output", "cw5m", "cw1h", "cr"))
    return (
        f"printf('%,12d %,10d %,12d %,14d %,14d', {i}, {o}, {w5} + {w1}, {cr}, "
        f"{i} + {o} + {w5} + {w1} + {cr})"
    )


@dataclass(frozen=True, slots=True)
class UsageLines:
    """A report's lines as ``UsageRow``'s fields, not validated into models."""

    rows: list[dict[str, Any]]
    """Every period's lines but ``session``'s (``by_session``)."""
    total: dict[str, Any]
    since: datetime | None
    until: datetime | None
    by_session: list[SessionLine] = field(default_factory=list)
    """A report by session's lines (then ``rows`` is empty), in the report's order, left as
    tuples: 20,000 sessions' lines made into dicts cost ``cctui usage session`` ~0.15 s."""
    table: list[TableLine] = field(default_factory=list)
    """A report by session's lines as ``cctui usage`` prints them (``usage_lines(table=True)``;
    then ``by_session`` is empty), in the report's order."""

    def row_fields(self) -> list[dict[str, Any]]:
        """Every line as ``UsageRow``'s fields."""
        return self.rows + [_session_fields(line) for line in self.by_session]


def _session_fields(line: SessionLine) -> dict[str, Any]:
    sid, title, cwd, i, o, w5, w1, cr, n, cost, unpriced, models = line
    return {
        "key": sid,
        "tokens": {"input": i, "output": o, "cache_write_5m": w5, "cache_write_1h": w1,
                   "cache_read": cr, "replies": n},
        "cost_usd": cost,
        "unpriced_replies": unpriced,
        "models": sorted(set(models.split(","))),
        "sessions": 1,
        "label": title,
        "project": cwd,
    }  # fmt: skip


def usage_lines(
    store: IndexStore,
    period: str = "daily",
    *,
    table: bool = False,
    **filters: Unpack[UsageFilters],
) -> UsageLines:
    """``usage_report``'s lines, for a caller that only prints them (``cctui usage``): a
    report by session at 20,000 sessions spent ~0.3 s of CPU making their models.
    ``table``: a report by session's lines as the text table shows them
    (``UsageLines.table``), not as ``UsageRow``'s fields.

    Raises:
        SearchError: as ``usage_report``.
    """
    since, until, project = filters.get("since"), filters.get("until"), filters.get("project")
    group_by, now = filters.get("group_by"), filters.get("now")
    _check(period, group_by)
    now = time.time() if now is None else now
    lo = parse_when(since, now=now) if since else None
    hi = parse_when(until, now=now, end=True) if until else None
    where, args = _where(lo, hi, project, rollup=True)
    conn = store.reader()
    rows: list[dict[str, Any]] = []
    by_session: list[SessionLine] = []
    lines: list[TableLine] = []
    whole = False
    if period == "blocks":
        rows = _blocks(conn, *_where(lo, hi, project, rollup=False), now)
    elif period == "session" and table:
        # No time bounds: each session's line ready from ``usage_s`` (its filter, a project,
        # is on the session id alone).
        whole = lo is None and hi is None and has_session_rollup(conn)
        lines = _session_table(conn, where, args, whole=whole)
    elif period == "session":
        by_session = _by_session(conn, where, args, _cards(conn))
    else:
        rows = _grouped(conn, period, group_by, where, args)
    return UsageLines(
        rows=rows,
        total=_total(conn, where, args, whole=bool(lines) and whole),
        since=datetime.fromtimestamp(lo, tz=UTC) if lo is not None else None,
        until=datetime.fromtimestamp(hi, tz=UTC) if hi is not None else None,
        by_session=by_session,
        table=lines,
    )


def _cards(conn: sqlite3.Connection) -> dict[str, tuple[str | None, str | None]]:
    """Each session's title and directory, from its newest card."""
    return {sid: (title, cwd) for sid, title, cwd in conn.execute(
        "SELECT session_id, title, cwd FROM card ORDER BY mtime")}  # fmt: skip


def _check(period: str, group_by: str | None) -> None:
    if period not in PERIODS:
        raise SearchError(f"unknown period {period!r}", suggestion="one of " + ", ".join(PERIODS))
    if group_by is not None and group_by not in GROUPS:
        raise SearchError(
            f"unknown grouping {group_by!r}", suggestion="one of " + ", ".join(GROUPS)
        )
    if group_by is not None and period not in TIME_PERIODS:
        raise SearchError(
            f"group_by splits a time period; {period!r} is a grouping itself",
            suggestion="use daily, weekly or monthly with group_by, or the grouping as period",
        )


def _where(
    lo: float | None, hi: float | None, project: str | None, *, rollup: bool
) -> tuple[str, list[object]]:
    """Filters over ``usage u`` or, with ``rollup``, ``usage_q u`` (whose times are quarters
    of an hour: a bound inside a quarter takes the whole quarter)."""
    where = ["1=1"]
    args: list[object] = []
    col, scale = ("u.q", _QUARTER) if rollup else ("u.ts", 1)
    if lo is not None:
        where.append(f"{col} >= ?")
        args.append(int(lo // scale) if rollup else lo)
    if hi is not None:
        where.append(f"{col} < ?")
        args.append(-int(-hi // scale) if rollup else hi)
    if project:
        p = project.rstrip("/") or "/"
        name = p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.append(
            "u.session_id IN (SELECT session_id FROM card WHERE cwd = ? OR cwd LIKE ? "
            "ESCAPE '\\' OR cwd LIKE ? ESCAPE '\\')"
        )
        args += [p, name + "/%", "%/" + name]
    return " AND ".join(where), args


def _grouped(
    conn: sqlite3.Connection,
    period: str,
    group_by: str | None,
    where: str,
    args: list[object],
) -> list[dict[str, Any]]:
    """Fold the rollup into report lines: by a time period, by a group, or by both."""
    timed = period in TIME_PERIODS
    group = group_by if timed else period
    dims = (["u.q"] if timed else []) + ["u.session_id"] + (["u.model"] if group == "model" else [])
    cards = _cards(conn) if group in ("session", "project") else {}
    accs: dict[tuple[str, str | None], _Acc] = defaultdict(_Acc)
    extra: dict[tuple[str, str | None], dict[str, Any]] = {}
    periods: dict[int, str] = {}
    n = len(dims)
    for r in conn.execute(
        f"SELECT {', '.join(dims)}, {_SUMS} FROM usage_q u WHERE {where} "
        f"GROUP BY {', '.join(dims)}",
        args,
    ):
        when: str | None = None
        if timed:
            when = periods.get(r[0]) or periods.setdefault(r[0], _period_key(period, r[0]))
        sid = r[1] if timed else r[0]
        name: str | None = None
        if group == "session":
            name = sid
            title, cwd = cards.get(sid, (None, None))
            extra[(when or sid, name)] = {"label": title, "project": cwd}
        elif group == "project":
            name = cards.get(sid, (None, None))[1] or "(unknown)"
            extra[(when or name, name)] = {"project": name}
        elif group == "model":
            name = r[n - 1]
        key = (when or name or "", name if timed else None)
        acc = accs[key]
        acc.add(r[n:])
        acc.sessions.add(sid)
    rows = [
        acc.data(k[0], group=k[1], **extra.get(k if timed else (k[0], k[0]), {}))
        for k, acc in accs.items()
    ]
    if timed:
        rows.sort(key=lambda r: (r["key"], r["cost_usd"] is None, -(r["cost_usd"] or 0.0),
                                 r["group"] or ""))  # fmt: skip
    else:
        rows.sort(key=lambda r: (r["cost_usd"] is None, -(r["cost_usd"] or 0.0), r["key"]))
    return rows


def _by_session(
    conn: sqlite3.Connection,
    where: str,
    args: list[object],
    cards: dict[str, tuple[str | None, str | None]],
) -> list[SessionLine]:
    """A report by session: one SQL row is one line (what ``_Acc`` would sum once), left a
    tuple (``UsageLines.by_session``), in ``_grouped``'s order."""
    lines: list[SessionLine] = []
    add = lines.append
    none = (None, None)
    # usage_q's columns are NOT NULL and a group has a row at least: no sum is NULL.
    for sid, i, o, w5, w1, cr, n, cost, unpriced, models in conn.execute(
        f"SELECT u.session_id, {_SUMS} FROM usage_q u WHERE {where} GROUP BY u.session_id", args
    ):
        title, cwd = cards.get(sid, none)
        # No priced reply at all: "no price", never $0 (as ``_Acc.data``).
        price = None if unpriced >= n else round(cost, 9)
        add((sid, title, cwd, i, o, w5, w1, cr, n, price, unpriced, models))
    lines.sort(key=lambda r: (r[9] is None, -(r[9] or 0.0), r[0]))
    return lines


def _session_table(
    conn: sqlite3.Connection, where: str, args: list[object], *, whole: bool
) -> list[TableLine]:
    """A report by session for the text table: ``_by_session``'s lines and order, with the
    token columns formatted in SQL and only the titles read from the cards. ``whole`` (no
    time bounds): each session's line read ready from ``usage_s``, not summed from
    ``usage_q``'s rows."""
    # In mtime order, so each session keeps its newest card's title (as ``_cards``); a dict
    # made in C from the rows.
    titles: dict[str, str | None] = dict(
        conn.execute("SELECT session_id, title FROM card ORDER BY mtime")
    )
    get = titles.get
    keyed: list[tuple[bool, float, str, str, float | None, int]] = []
    add = keyed.append
    sql = (
        f"SELECT u.session_id, {_table_tokens('')}, u.cost, u.unpriced, u.n "
        f"FROM usage_s u WHERE {where}"
        if whole
        else f"SELECT u.session_id, {_table_tokens('sum')}, sum(u.cost), sum(u.unpriced), "
        f"sum(u.n) FROM usage_q u WHERE {where} GROUP BY u.session_id"
    )
    for sid, tokens, cost, unpriced, n in conn.execute(sql, args):
        # No priced reply at all: "no price", never $0 (as ``_Acc.data``).
        price = None if unpriced >= n else round(cost, 9)
        add((price is None, -(price or 0.0), sid, tokens, price, unpriced))
    keyed.sort()  # (no price last, dearest first, by id): ``_by_session``'s order
    return [
        (sid, get(sid), tokens, price, unpriced) for _, _, sid, tokens, price, unpriced in keyed
    ]


def _total(
    conn: sqlite3.Connection, where: str, args: list[object], *, whole: bool = False
) -> dict[str, Any]:
    """The report's total line; ``whole``: from ``usage_s`` (one row per session), the models
    from ``usage_q``."""
    acc = _Acc()
    if whole:
        sql = (
            f"SELECT {_TOKEN_SUMS}, "
            f"(SELECT group_concat(DISTINCT u.model) FROM usage_q u WHERE {where}), count(*) "
            f"FROM usage_s u WHERE {where}"
        )
        r = conn.execute(sql, args + args).fetchone()
    else:
        r = conn.execute(
            f"SELECT {_SUMS}, count(DISTINCT u.session_id) FROM usage_q u WHERE {where}", args
        ).fetchone()
    acc.add(r)
    acc.session_count = r[9]
    return acc.data("total")


@dataclass(slots=True)
class _Block:
    start: float
    last: float
    sums: list[int] = field(default_factory=lambda: [0] * 6)
    cost: float = 0.0
    unpriced: int = 0
    models: set[str] = field(default_factory=set)

    def data(self, now: float) -> dict[str, Any]:
        """The block's line as ``UsageRow``'s fields."""
        end = self.start + BLOCK_SECONDS
        return {
            "key": iso_z(datetime.fromtimestamp(self.start, tz=UTC)),
            "start": datetime.fromtimestamp(self.start, tz=UTC),
            "end": datetime.fromtimestamp(end, tz=UTC),
            "active": now - self.last < BLOCK_SECONDS and now < end,
            "tokens": dict(zip(_TOKEN_FIELDS, self.sums, strict=True)),
            "cost_usd": self.cost,
            "unpriced_replies": self.unpriced,
            "models": sorted(self.models),
        }


def _blocks(
    conn: sqlite3.Connection, where: str, args: list[object], now: float
) -> list[dict[str, Any]]:
    hours = conn.execute(
        "SELECT CAST(u.ts / 3600 AS INTEGER) AS h, min(u.ts), max(u.ts), "
        "sum(u.input), sum(u.output), sum(u.cw5m), sum(u.cw1h), sum(u.cr), count(*), "
        "sum(u.cost), sum(u.cost IS NULL), group_concat(DISTINCT u.model) "
        f"FROM usage u WHERE {where} GROUP BY h ORDER BY h",
        args,
    ).fetchall()
    blocks: list[_Block] = []
    for h, first, last, *sums in hours:
        cur = blocks[-1] if blocks else None
        if cur is None or first - cur.start > BLOCK_SECONDS or first - cur.last > BLOCK_SECONDS:
            cur = _Block(start=h * 3600.0, last=last)
            blocks.append(cur)
        cur.last = last
        for i in range(6):
            cur.sums[i] += sums[i] or 0
        if sums[6] is not None:
            cur.cost = (cur.cost or 0.0) + sums[6]
        cur.unpriced += sums[7] or 0
        if sums[8]:
            cur.models.update(str(sums[8]).split(","))
    return [b.data(now) for b in blocks]
