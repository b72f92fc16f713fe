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

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from cctui.history.models import TokenCounts, UsageReport, UsageRow
from cctui.history.search import SearchError, parse_when
from cctui.history.store import IndexStore

Period = Literal["daily", "weekly", "monthly", "session", "project", "model", "blocks"]
PERIODS: tuple[str, ...] = ("daily", "weekly", "monthly", "session", "project", "model", "blocks")
BLOCK_SECONDS = 5 * 3600
_TOKEN_FIELDS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read", "replies")

_KEY = {
    "daily": "date(u.ts, 'unixepoch', 'localtime')",
    "weekly": "date(u.ts, 'unixepoch', 'localtime', 'weekday 0', '-6 days')",
    "monthly": "strftime('%Y-%m', u.ts, 'unixepoch', 'localtime')",
    "session": "u.session_id",
    "project": "coalesce(c.cwd, '(unknown)')",
    "model": "u.model",
}
_SUMS = (
    "sum(u.input), sum(u.output), sum(u.cw5m), sum(u.cw1h), sum(u.cr), count(*), "
    "sum(u.cost), sum(u.cost IS NULL), group_concat(DISTINCT u.model), "
    "count(DISTINCT u.session_id)"
)
# The card of a session (the newest main transcript when there are two).
_CARD = (
    "LEFT JOIN card c ON c.source_id = (SELECT source_id FROM card c2 "
    "WHERE c2.session_id = u.session_id ORDER BY c2.mtime DESC LIMIT 1)"
)


def usage_report(
    store: IndexStore,
    period: str = "daily",
    *,
    since: str | None = None,
    until: str | None = None,
    project: str | None = None,
    pricing: str = "",
    now: float | None = None,
) -> UsageReport:
    """One report (see the module docstring).

    Raises:
        SearchError: an unknown period or an unreadable date.
    """
    if period not in PERIODS:
        raise SearchError(f"unknown period {period!r}", suggestion="one of " + ", ".join(PERIODS))
    now = time.time() if now is None else now
    started = time.perf_counter()
    lo = parse_when(since, now=now) if since else None
    hi = parse_when(until, now=now, end=True) if until else None
    where, args = _where(lo, hi, project)
    conn = store.reader()
    if period == "blocks":
        rows = _blocks(conn, where, args, now)
    else:
        rows = _grouped(conn, period, where, args)
    total = _total(conn, where, args)
    return UsageReport(
        period=period,
        rows=rows,
        total=total,
        since=datetime.fromtimestamp(lo, tz=UTC) if lo is not None else None,
        until=datetime.fromtimestamp(hi, tz=UTC) if hi is not None else None,
        project=project,
        pricing=pricing,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _where(lo: float | None, hi: float | None, project: str | None) -> tuple[str, list[object]]:
    where = ["1=1"]
    args: list[object] = []
    if lo is not None:
        where.append("u.ts >= ?")
        args.append(lo)
    if hi is not None:
        where.append("u.ts < ?")
        args.append(hi)
    if project:
        p = project.rstrip("/") or "/"
        name = p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.append(
            "u.session_id IN (SELECT session_id FROM card WHERE cwd = ? OR cwd LIKE ? "
            "ESCAPE '\\' OR cwd LIKE ? ESCAPE '\\')"
        )
        args += [p, name + "/%", "%/" + name]
    return " AND ".join(where), args


def _row(key: str, r: Sequence[Any], **extra: Any) -> UsageRow:
    inp, out, c5, c1, cr, n, cost, unpriced, models, sessions = r[:10]
    counts = (inp, out, c5, c1, cr, n)
    return UsageRow(
        key=key,
        tokens=TokenCounts(**{f: int(v or 0) for f, v in zip(_TOKEN_FIELDS, counts, strict=True)}),
        cost_usd=float(cost) if cost is not None else None,
        unpriced_replies=int(unpriced or 0),
        models=sorted(str(models).split(",")) if models else [],
        sessions=int(sessions or 0),
        **extra,
    )


def _grouped(
    conn: sqlite3.Connection, period: str, where: str, args: list[object]
) -> list[UsageRow]:
    key = _KEY[period]
    join = _CARD if period in ("session", "project") else ""
    label = ", max(c.title), max(c.cwd)" if period == "session" else ""
    order = "cost DESC NULLS LAST, key" if period in ("session", "project", "model") else "key"
    sql = (
        f"SELECT {key} AS key, {_SUMS}, sum(u.cost) AS cost{label} FROM usage u {join} "
        f"WHERE {where} GROUP BY key ORDER BY {order}"
    )
    out: list[UsageRow] = []
    for r in conn.execute(sql, args):
        extra: dict[str, Any] = {}
        if period == "session":
            extra = {"label": r[12], "project": r[13]}
        elif period == "project":
            extra = {"project": r[0]}
        out.append(_row(str(r[0]), r[1:], **extra))
    return out


def _total(conn: sqlite3.Connection, where: str, args: list[object]) -> UsageRow:
    r = conn.execute(f"SELECT {_SUMS} FROM usage u WHERE {where}", args).fetchone()
    return _row("total", r)


@dataclass(slots=True)
class _Block:
    start: float
    last: float
    sums: list[int] = field(default_factory=lambda: [0] * 6)
    cost: float | None = None
    unpriced: int = 0
    models: set[str] = field(default_factory=set)

    def row(self, now: float) -> UsageRow:
        end = self.start + BLOCK_SECONDS
        s = self.sums
        return UsageRow(
            key=datetime.fromtimestamp(self.start, tz=UTC).isoformat(),
            start=datetime.fromtimestamp(self.start, tz=UTC),
            end=datetime.fromtimestamp(end, tz=UTC),
            active=now - self.last < BLOCK_SECONDS and now < end,
            tokens=TokenCounts(
                input=s[0],
                output=s[1],
                cache_write_5m=s[2],
                cache_write_1h=s[3],
                cache_read=s[4],
                replies=s[5],
            ),
            cost_usd=self.cost,
            unpriced_replies=self.unpriced,
            models=sorted(self.models),
        )


def _blocks(conn: sqlite3.Connection, where: str, args: list[object], now: float) -> list[UsageRow]:
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
    return [b.row(now) for b in blocks]
