"""``cctui search``, ``cctui usage`` and ``cctui index``: the history index from the shell.

Each command first brings the index up to date (a stat sweep when nothing changed; a first
run indexes every transcript, with progress on stderr), then answers from it.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

from cctui.config import Settings

if TYPE_CHECKING:  # the history room loads only when one of these commands runs
    from cctui.history import HistoryIndex
    from cctui.history.models import SearchResult
    from cctui.history.usage import UsageLines

COMMANDS = ("search", "usage", "index")


def add_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add the three subcommands to ``cctui``'s parser."""
    search = sub.add_parser(
        "search",
        parents=[common],
        help="full-text search over every transcript",
        description='Words must all appear; "a phrase", prefix*, -exclude; filters '
        "project: since: until: role:user|assistant|tool session: may be typed in QUERY.",
    )
    search.add_argument("query", nargs="+", help="what to look for")
    search.add_argument("--project", help="only sessions under this directory (or named so)")
    search.add_argument("--since", help="2026-11-01, 7d, 12h, today, ...")
    search.add_argument("--until", help="same forms as --since")
    search.add_argument("--role", choices=["user", "assistant", "tool"])
    search.add_argument("--limit", type=int, default=20)
    search.add_argument("--json", action="store_true", help="one JSON object")
    usage = sub.add_parser(
        "usage", parents=[common], help="tokens and cost by day, week, month, session, ..."
    )
    usage.add_argument(
        "period",
        nargs="?",
        default="daily",
        help="daily (default), weekly, monthly, session, project, model or blocks (5-hour)",
    )
    usage.add_argument("--since")
    usage.add_argument("--until")
    usage.add_argument("--project")
    usage.add_argument("--json", action="store_true", help="one JSON object")
    index = sub.add_parser("index", parents=[common], help="the history index itself")
    what = index.add_mutually_exclusive_group()
    what.add_argument("--stats", action="store_true", help="what it holds (the default)")
    what.add_argument("--rebuild", action="store_true", help="drop it and index everything again")
    index.add_argument("--json", action="store_true", help="one JSON object")


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run one of ``COMMANDS``; returns the exit code (errors raise ``CctuiError``)."""
    from cctui.history import HistoryIndex

    index = HistoryIndex.from_settings(settings)
    try:
        if args.command == "index" and args.rebuild:
            _with_progress(index, rebuild=True)
        else:
            _with_progress(index)
        if args.command == "search":
            result = index.search(
                " ".join(args.query),
                limit=max(1, args.limit),
                project=args.project,
                since=args.since,
                until=args.until,
                role=args.role,
            )
            if args.json:
                print(result.model_dump_json(indent=2))
            else:
                _print_search(result, sys.stdout)
        elif args.command == "usage":
            filters = {"since": args.since, "until": args.until, "project": args.project}
            if args.json:
                print(index.usage(args.period, **filters).model_dump_json(indent=2))
            else:  # printed from the lines: 20,000 sessions' models cost ~0.3 s
                lines = index.usage_lines(args.period, table=True, **filters)
                _print_usage(args.period, lines, sys.stdout)
        else:
            stats = index.stats()
            if args.json:
                print(stats.model_dump_json(indent=2))
            else:
                for key, value in stats.model_dump().items():
                    if key == "index_bytes" or key == "transcript_bytes":
                        value = f"{value / 1e6:,.1f} MB"
                    print(f"{key.replace('_', ' '):20} {value}")
                ratio = stats.index_bytes / stats.transcript_bytes if stats.transcript_bytes else 0
                print(f"{'index / transcripts':20} {ratio:.1%}")
        # Damaged lines are said once, by `cctui index` (and the TUI's status bar), not by
        # every search; an index file rebuilt is news to any command.
        problems = index.problems
        note = problems.describe() if args.command == "index" else problems.index_note
        if note:
            print(f"cctui: {note}", file=sys.stderr)
        return 0
    finally:
        index.close()


def _with_progress(index: HistoryIndex, *, rebuild: bool = False) -> None:
    """Bring the index up to date; say how far it got on stderr when that takes a while."""
    done = threading.Event()

    def report() -> None:
        start = time.monotonic()
        while not done.wait(0.5):
            text = index.progress.describe()
            if text and sys.stderr.isatty() and time.monotonic() - start > 1:
                print(f"\r{text}   ", end="", file=sys.stderr, flush=True)

    ticker = threading.Thread(target=report, daemon=True)
    ticker.start()
    try:
        if rebuild:
            index.store.reset()
        plan = index.plan(cards=False)  # search, usage and stats read no session list
        while plan.jobs or plan.gone:
            index.step(plan, seconds=1.0)
    finally:
        done.set()
        ticker.join()
        if sys.stderr.isatty():
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def _bold(text: str, spans: list[tuple[int, int]], tty: bool) -> str:
    if not tty or not spans:
        return text
    out, pos = [], 0
    for a, b in spans:
        out += [text[pos:a], "\033[1m", text[a:b], "\033[0m"]
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _print_search(result: SearchResult, out: TextIO) -> None:
    tty = out.isatty()
    if not result.hits:
        print("no match", file=out)
        return
    if result.loose:
        print(
            f"({result.exact} session(s) with every word, then those with the most of them)"
            if result.exact
            else "(no message has every word; showing those with the most of them)",
            file=out,
        )
    for h in result.hits:
        when = h.timestamp.astimezone().strftime("%Y-%m-%d %H:%M") if h.timestamp else "?"
        title = (h.title or "").replace("\n", " ")
        print(f"{when}  {h.session_id}  {h.project_name or '':<20.20} {title:.60}", file=out)
        more = f"  (+{h.matches - 1} more)" if h.matches > 1 else ""
        cut = " [indexed in part]" if h.clipped else ""
        if h.matched_words is not None:
            cut += f" [{h.matched_words} of the words]"
        print(f"    {h.role}: {_bold(h.snippet, h.highlights, tty)}{cut}{more}", file=out)
    tail = f"{result.total} session(s)" + (", older matches not searched" if result.capped else "")
    print(f"\n{tail} · {result.elapsed_ms:.0f} ms", file=out)


def _money(cost: float | None, unpriced: int) -> str:
    """A line's cost cell: "no price", or dollars starred when some replies had none."""
    return "no price" if cost is None else f"${cost:,.2f}" + ("*" if unpriced else "")


def _print_usage(period: str, report: UsageLines, out: TextIO) -> None:
    """The report as a table, from its lines (unvalidated): one pass over the lines, every
    line formatted by one f-string, one write (20,000 sessions' report: ``report.table``)."""
    head = f"{period:<26} {'input':>12} {'output':>10} {'cache w':>12} {'cache r':>14}"
    lines = [f"{head} {'total':>14} {'cost':>11}"]
    add = lines.append
    cells: Iterable[_Cells]
    if report.table:  # the token columns formatted by SQL (``usage._table_tokens``)
        for sid, title, tokens, cost, unpriced in report.table:
            key = f"{sid[:8]} {title}" if title else sid
            add(f"{key:<26.26} {tokens} {_money(cost, unpriced):>11}")
        cells = ()
    else:
        cells = (_cells(period, row) for row in report.row_fields())
    for key, i, o, w, cr, cost, unpriced in itertools.chain(cells, [_cells(period, report.total)]):
        money = _money(cost, unpriced)
        add(f"{key:<26.26} {i:>12,} {o:>10,} {w:>12,} {cr:>14,} {i + o + w + cr:>14,} {money:>11}")
    lines.insert(-1, "-" * 104)  # above the total
    if unpriced_all := report.total.get("unpriced_replies"):
        add(f"* {unpriced_all} repl(ies) of models with no known price are counted in tokens only")
    # One write: a print per line cost 20,000 sessions' report ~0.1 s of CPU.
    out.write("\n".join(lines) + "\n")


_Cells = tuple[str, int, int, int, int, "float | None", int]
"""A printed line's fields: its name, input, output, cache writes, cache reads, ``cost_usd``
and unpriced replies."""


def _cells(period: str, row: dict[str, Any]) -> _Cells:
    """A line's printed fields from ``UsageRow``'s fields."""
    key = row["key"]
    if period == "blocks" and (start := row.get("start")) is not None:
        key = start.astimezone().strftime("%Y-%m-%d %H:%M") + (" (active)" * row["active"])
    elif label := row.get("label"):
        key = f"{key[:8]} {label}"
    elif period == "project" and row.get("project"):
        key = row["project"]
    t = row["tokens"]
    # The kinds TokenCounts.total counts (models.TOTAL_KINDS).
    w = t["cache_write_5m"] + t["cache_write_1h"]
    return (
        key,
        t["input"],
        t["output"],
        w,
        t["cache_read"],
        row.get("cost_usd"),
        row.get("unpriced_replies") or 0,
    )
