"""Usage and cost: each reply counted once, priced by genai-prices, reported by period."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cctui.config import ModelPrice
from cctui.history import HistoryIndex
from cctui.history.extract import Usage
from cctui.history.pricing import Pricer
from cctui.history.search import SearchError
from cctui.history.usage import UsageLines
from tests.history import make_lines as mk
from tests.history.conftest import INTERACTIVE_ID, MULTI_ID, WRITE_ID

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"
SONNET = "claude-sonnet-4-5-20250929"


def _index(tmp_path: Path, files: dict[str, str], **kw: object) -> HistoryIndex:
    home = tmp_path / "claude"
    for sid, body in files.items():
        mk.write(home, sid, body, project="-w-" + sid[:4])
    ix = HistoryIndex(home, index_file=tmp_path / "index.sqlite", **kw)  # type: ignore[arg-type]
    ix.refresh()
    return ix


def _u(**kw: int) -> Usage:
    base = {"input": 0, "output": 0, "cw5m": 0, "cw1h": 0, "cr": 0, "web_search": 0}
    base.update(kw)
    return Usage(msg_id="m", request_id="r", model=SONNET, ts=0.0, sidechain=False, geo=None,
                 legacy_cost=None, **base)  # fmt: skip


def test_one_reply_written_as_three_lines_is_counted_once_with_the_larger_usage(
    tmp_path: Path,
) -> None:
    blocks = [mk.text("thinking out loud"), mk.tool_use("Bash", command="ls"),
              mk.tool_use("Read", file_path="/a")]  # fmt: skip
    body = mk.assistant(blocks[:1], A, use=mk.usage(inp=100, out=1))  # intermediate snapshot
    body += mk.assistant(blocks[1:], A, use=mk.usage(inp=100, out=250))
    ix = _index(tmp_path, {A: body})
    t = ix.usage("daily").total.tokens
    assert (t.input, t.output, t.replies) == (100, 250, 1)
    ix.close()


def test_dedup_without_request_id_sidechain_replays_and_fork_copies(tmp_path: Path) -> None:
    a = mk.assistant([mk.text("x"), mk.text("y")], A, msg_id="msg_norid", request_id=None)
    a += mk.assistant([mk.text("main")], A, msg_id="msg_main", request_id="req_1")
    # A /btw replay: the same message id with a new request id, marked sidechain.
    a += mk.assistant([mk.text("main")], A, msg_id="msg_main", request_id="req_2",
                      sidechain=True)  # fmt: skip
    # B is a fork of A: a copy of A's reply, written later.
    b = mk.assistant([mk.text("main")], B, msg_id="msg_main", request_id="req_1",
                     ts="2026-11-21T10:00:00.000Z")  # fmt: skip
    ix = _index(tmp_path, {A: a, B: b})
    report = ix.usage("session")
    assert report.total.tokens.replies == 2
    assert [(r.key, r.tokens.replies) for r in report.rows] == [(A, 2)]  # the earliest copy
    ix.close()


def test_an_unknown_model_keeps_its_tokens_and_has_no_price_never_zero(tmp_path: Path) -> None:
    body = mk.user("price me", A)
    body += mk.assistant([mk.text("a")], A, msg_id="m1", model="claude-nobody-knows-9")
    body += mk.assistant([mk.text("b")], A, msg_id="m2", request_id="r2", model=SONNET)
    ix = _index(tmp_path, {A: body})
    by_model = {r.key: r for r in ix.usage("model").rows}
    unknown = by_model["claude-nobody-knows-9"]
    assert unknown.cost_usd is None and unknown.tokens.total == 110
    assert by_model[SONNET].cost_usd == pytest.approx(100 * 3e-6 + 10 * 15e-6)
    total = ix.usage("daily").total
    assert total.unpriced_replies == 1 and total.cost_usd == by_model[SONNET].cost_usd
    summary = ix.get(A)
    assert summary is not None
    assert summary.total_cost_usd == pytest.approx(by_model[SONNET].cost_usd)
    ix.close()


def test_prices_follow_anthropic_rules() -> None:
    p = Pricer()
    mtok = 1_000_000
    # Sonnet 4.5: $3 in, $15 out, 5-minute writes $3.75, 1-hour writes $6 (2x input), reads $0.30.
    assert p.cost(_u(input=100_000)) == pytest.approx(0.3)
    assert p.cost(_u(output=100_000)) == pytest.approx(1.5)
    assert p.cost(_u(cw5m=100_000)) == pytest.approx(0.375)
    assert p.cost(_u(cw1h=100_000)) == pytest.approx(0.6)
    assert p.cost(_u(cr=100_000)) == pytest.approx(0.03)
    # Over 200k input tokens in one request, the whole request moves to the long-context rates.
    assert p.cost(_u(input=150_000, cr=60_000)) == pytest.approx(150_000 * 6 / mtok + 0.036)
    us = _u(input=100_000)
    us.geo = "us"
    assert p.cost(us) == pytest.approx(0.33)
    legacy = _u(input=100_000)
    legacy.legacy_cost = 0.5
    assert p.cost(legacy) == 0.5  # an old transcript's own figure wins


def test_a_config_table_overrides_prices(tmp_path: Path) -> None:
    body = mk.assistant([mk.text("a")], A, model="claude-nobody-knows-9",
                        use=mk.usage(inp=1_000_000, out=1_000_000, cw=1_000_000))  # fmt: skip
    pricer = Pricer({"claude-nobody-knows-9": ModelPrice(input=1, output=2)})
    ix = _index(tmp_path, {A: body}, pricer=pricer)
    assert ix.usage("daily").total.cost_usd == pytest.approx(1 + 2 + 1.25)
    ix.close()
    assert Pricer().fingerprint != pricer.fingerprint  # stored costs are recomputed on change


def test_changed_prices_reprice_the_stored_replies(tmp_path: Path) -> None:
    body = mk.assistant([mk.text("a")], A, model="claude-nobody-knows-9")
    ix = _index(tmp_path, {A: body})
    assert ix.usage("daily").total.cost_usd is None
    ix.close()
    again = HistoryIndex(
        tmp_path / "claude",
        index_file=tmp_path / "index.sqlite",
        pricer=Pricer({"claude-nobody-knows-9": ModelPrice(input=10, output=10)}),
    )
    again.load()
    assert again.usage("daily").total.cost_usd == pytest.approx(110 * 10 / 1_000_000)
    again.close()


def test_computed_costs_agree_with_the_clis_own_cost_state(claude_home: Path) -> None:
    ix = HistoryIndex(claude_home)
    ix.refresh()
    rows = {r.key: r.cost_usd for r in ix.usage("session").rows}
    # The samples' last cost-state totals (the CLI's own figures, claude-opus-5-5).
    assert rows[WRITE_ID] == pytest.approx(0.057272, abs=1e-6)
    assert rows[INTERACTIVE_ID] == pytest.approx(0.024196, abs=1e-6)
    assert rows[MULTI_ID] == pytest.approx(ix.get(MULTI_ID).total_cost_usd, abs=1e-6)  # type: ignore[union-attr]
    ix.close()


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_days_weeks_and_months_are_local_time(tmp_path: Path, new_york: None) -> None:
    body = mk.assistant([mk.text("a")], A, msg_id="m1", ts="2026-11-01T03:00:00Z")  # Oct 31 NY
    body += mk.assistant([mk.text("b")], A, msg_id="m2", ts="2026-11-02T15:00:00Z")
    ix = _index(tmp_path, {A: body})
    assert [r.key for r in ix.usage("daily").rows] == ["2026-10-31", "2026-11-02"]
    assert [r.key for r in ix.usage("weekly").rows] == ["2026-10-26", "2026-11-02"]
    assert [r.key for r in ix.usage("monthly").rows] == ["2026-10", "2026-11"]
    assert [r.key for r in ix.usage("daily", since="2026-11-01").rows] == ["2026-11-02"]
    assert [r.key for r in ix.usage("daily", until="2026-10-31").rows] == ["2026-10-31"]
    ix.close()


def test_five_hour_blocks_follow_ccusage(tmp_path: Path) -> None:
    stamps = ["10:10", "11:00", "14:59", "15:30", "21:00", "21:20"]
    body = "".join(
        mk.assistant([mk.text("x")], A, msg_id=f"m{i}", ts=f"2026-11-20T{t}:00.000Z")
        for i, t in enumerate(stamps)
    )
    ix = _index(tmp_path, {A: body})
    now = datetime(2026, 11, 20, 23, 0, tzinfo=UTC).timestamp()
    blocks = ix.usage("blocks", now=now).rows
    # 10:00 block (10:10..14:59); 15:30 is > 5 h after 10:00: a new block at 15:00; 21:00 is
    # > 5 h after 15:30's... no: 5.5 h after the 15:00 start, so another block at 21:00.
    assert [(b.start.hour, b.tokens.replies) for b in blocks] == [(10, 3), (15, 1), (21, 2)]  # type: ignore[union-attr]
    assert [b.active for b in blocks] == [False, False, True]
    ix.close()


def test_reports_by_session_project_and_model(tmp_path: Path) -> None:
    a = mk.user("first", A, cwd="/w/alpha") + mk.assistant([mk.text("x")], A)
    b = mk.user("second", B, cwd="/w/beta") + mk.assistant(
        [mk.text("y")], B, msg_id="m_b", model="claude-haiku-4-5-20251001"
    )
    ix = _index(tmp_path, {A: a, B: b})
    sessions = ix.usage("session").rows
    assert {(r.key, r.label, r.project) for r in sessions} == {
        (A, "first", "/w/alpha"), (B, "second", "/w/beta")}  # fmt: skip
    assert {r.key for r in ix.usage("project").rows} == {"/w/alpha", "/w/beta"}
    assert {r.key for r in ix.usage("model").rows} == {SONNET, "claude-haiku-4-5-20251001"}
    assert [r.key for r in ix.usage("session", project="beta").rows] == [B]
    ix.close()


def test_a_period_split_by_model_session_or_project(tmp_path: Path) -> None:
    a = mk.user("first", A, cwd="/w/alpha") + mk.assistant([mk.text("x")], A)
    a += mk.assistant([mk.text("y")], A, msg_id="m2", ts="2026-11-21T10:00:00.000Z",
                      model="claude-haiku-4-5-20251001")  # fmt: skip
    b = mk.user("second", B, cwd="/w/beta") + mk.assistant([mk.text("z")], B, msg_id="m_b")
    ix = _index(tmp_path, {A: a, B: b})
    by_model = ix.usage("daily", group_by="model").rows
    assert [(r.key, r.group, r.tokens.replies) for r in by_model] == [
        ("2026-11-20", SONNET, 2), ("2026-11-21", "claude-haiku-4-5-20251001", 1)]  # fmt: skip
    by_session = ix.usage("monthly", group_by="session").rows
    assert {(r.key, r.group, r.label) for r in by_session} == {
        ("2026-11", A, "first"), ("2026-11", B, "second")}  # fmt: skip
    by_project = ix.usage("weekly", group_by="project").rows
    assert {(r.group, r.sessions) for r in by_project} == {("/w/alpha", 1), ("/w/beta", 1)}
    with pytest.raises(SearchError, match="group_by"):
        ix.usage("session", group_by="model")
    with pytest.raises(SearchError, match="unknown grouping"):
        ix.usage("daily", group_by="colour")
    ix.close()


def _table_before(period: str, report: UsageLines, out: io.StringIO) -> None:
    """``cctui usage``'s table as ``_print_usage`` made it from every line's dict before
    ``UsageLines.by_session`` (verbatim but for the lines' source): the reference the faster
    printer must equal byte for byte."""
    head = f"{period:<26} {'input':>12} {'output':>10} {'cache w':>12} {'cache r':>14}"
    lines = [f"{head} {'total':>14} {'cost':>11}"]
    add = lines.append
    blocks, project = period == "blocks", period == "project"
    for row in [*report.row_fields(), report.total]:
        t = row["tokens"]
        key = row["key"]
        if blocks and (start := row.get("start")) is not None:
            key = start.astimezone().strftime("%Y-%m-%d %H:%M") + (" (active)" * row["active"])
        elif label := row.get("label"):
            key = f"{key[:8]} {label}"
        elif project and row.get("project"):
            key = row["project"]
        if row is report.total:
            add("-" * 104)
        i, o, w = t["input"], t["output"], t["cache_write_5m"] + t["cache_write_1h"]
        cr = t["cache_read"]
        cost = row.get("cost_usd")
        money = (
            "no price"
            if cost is None
            else f"${cost:,.2f}" + ("*" if row.get("unpriced_replies") else "")
        )
        add(f"{key:<26.26} {i:>12,} {o:>10,} {w:>12,} {cr:>14,} {i + o + w + cr:>14,} {money:>11}")
    unpriced = report.total.get("unpriced_replies")
    if unpriced:
        lines.append(
            f"* {unpriced} repl(ies) of models with no known price are counted in tokens only"
        )
    out.write("\n".join(lines) + "\n")


@pytest.mark.parametrize("period", ["daily", "weekly", "monthly", "session", "project", "model",
                                    "blocks"])  # fmt: skip
def test_the_printed_report_from_its_unvalidated_lines_is_the_validated_reports(
    tmp_path: Path, period: str
) -> None:
    """``cctui usage`` prints ``usage_lines`` (no models: 20,000 sessions' cost ~0.3 s; a
    report by session's lines with their token columns formatted by SQL); the table must be,
    byte for byte, the one the validated report gave with the formatting before, a reply of no
    known price, a session of no priced reply at all, a long title and a wide character's title
    included."""
    from cctui.cli_index import _print_usage

    c = "cccccccc-0000-4000-8000-000000000003"
    d = "dddddddd-0000-4000-8000-000000000004"
    a = mk.user("first", A, cwd="/w/alpha") + mk.assistant([mk.text("x")], A)
    a += mk.assistant([mk.text("y")], A, msg_id="m2", ts="2026-11-21T10:00:00.000Z",
                      model="claude-experimental-zz")  # fmt: skip
    b = mk.user("second", B, cwd="/w/beta") + mk.assistant([mk.text("z")], B, msg_id="m_b")
    long = "a title far longer than the twenty-six columns the table gives its names"
    c_body = mk.user(long, c, cwd="/w/gamma") + mk.assistant(
        [mk.text("w")], c, msg_id="m_c", use=mk.usage(inp=1_234_567, out=89_012)
    )
    d_body = mk.user("日本語のタイトル — naïve", d, cwd="/w/delta") + mk.assistant(
        [mk.text("v")], d, msg_id="m_d", model="claude-experimental-zz"
    )
    ix = _index(tmp_path, {A: a, B: b, c: c_body, d: d_body})
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC).timestamp()
    report = ix.usage(period, now=now)
    lines = ix.usage_lines(period, now=now)
    assert bool(lines.by_session) == (period == "session")
    table = ix.usage_lines(period, now=now, table=True)  # what `cctui usage` prints
    assert bool(table.table) == (period == "session") and not table.by_session
    validated = UsageLines(
        rows=[r.model_dump() for r in report.rows],
        total=report.total.model_dump(),
        since=report.since,
        until=report.until,
    )
    printed, tabled, expected, before = (io.StringIO() for _ in range(4))
    _print_usage(period, lines, printed)
    _print_usage(period, table, tabled)
    _print_usage(period, validated, expected)
    _table_before(period, validated, before)

    assert printed.getvalue() == tabled.getvalue() == expected.getvalue() == before.getvalue()
    assert "*" in printed.getvalue()
    assert len(printed.getvalue().splitlines()) >= 4  # header, a line at least, rule, total
    if period == "session":
        assert "cccccccc a title far longe " in printed.getvalue()
        assert "dddddddd 日本語のタイトル — naïve" in printed.getvalue()
        assert "no price" in printed.getvalue()  # d's only reply has none
    ix.close()


def test_the_price_datas_version_is_read_as_importlib_metadata_reads_it() -> None:
    """The fingerprint names genai-prices' version from its ``.dist-info`` directory (no
    ``importlib.metadata`` at start-up); it must be the version the package metadata says,
    or every index would be re-priced once and the fingerprint would lie."""
    from importlib import metadata

    from cctui.history.pricing import library_version

    assert library_version() == metadata.version("genai-prices")
    assert Pricer().fingerprint.startswith(f"genai-prices {metadata.version('genai-prices')} ")


def _rollups(
    ix: HistoryIndex,
) -> tuple[dict[str, tuple[object, ...]], dict[str, tuple[object, ...]]]:
    """Each session's sums as ``usage_s`` keeps them, and as ``usage_q``'s rows add up."""
    conn = ix.store.reader()
    cols = "input, output, cw5m, cw1h, cr, n, unpriced"
    ready = {r[0]: r[1:] for r in conn.execute(f"SELECT session_id, {cols}, cost FROM usage_s")}
    summed = {r[0]: r[1:] for r in conn.execute(
        f"SELECT session_id, {', '.join(f'sum({c})' for c in cols.split(', '))}, sum(cost) "
        "FROM usage_q GROUP BY session_id")}  # fmt: skip
    for sid in ready.keys() & summed.keys():  # the costs as floats added in another order
        assert ready[sid][-1] == pytest.approx(summed[sid][-1], abs=1e-9)
        ready[sid], summed[sid] = ready[sid][:-1], summed[sid][:-1]
    return ready, summed


def test_the_per_session_rollup_follows_every_change_to_the_replies(tmp_path: Path) -> None:
    """``usage_s`` (what ``cctui usage session`` reads) equals ``usage_q`` summed by session
    after a reply is added, grown (the same reply with more tokens), a file rewritten and a
    file deleted; the table printed from it follows."""
    a = mk.user("first", A) + mk.assistant([mk.text("x")], A, use=mk.usage(inp=10, out=1))
    b = mk.user("second", B) + mk.assistant([mk.text("y")], B, msg_id="m_b")
    ix = _index(tmp_path, {A: a, B: b})
    ready, summed = _rollups(ix)
    assert ready == summed and set(ready) == {A, B}

    path_a = next((tmp_path / "claude" / "projects").glob(f"*/{A}.jsonl"))
    with path_a.open("a") as f:  # a new reply, and the first one again with more tokens
        f.write(mk.assistant([mk.text("z")], A, msg_id="m2", use=mk.usage(inp=1_000, out=2)))
        f.write(mk.assistant([mk.text("x2")], A, use=mk.usage(inp=10, out=500)))
    ix.refresh()
    ready, summed = _rollups(ix)
    assert ready == summed and ready[A][:2] == (1_010, 502) and ready[A][5] == 2
    table = ix.usage_lines("session", table=True)
    assert [line[0] for line in table.table] == [A, B]  # the dearer first
    assert table.total["tokens"]["input"] == 1_010 + 100 and table.total["sessions"] == 2

    path_b = next((tmp_path / "claude" / "projects").glob(f"*/{B}.jsonl"))
    path_b.write_text(mk.user("other", B) + mk.assistant([mk.text("w")], B, msg_id="m_b2",
                                                        use=mk.usage(inp=7, out=7)))  # fmt: skip
    ix.refresh()
    ready, summed = _rollups(ix)
    assert ready == summed and ready[B][:2] == (7, 7) and ready[B][5] == 1

    path_a.unlink()
    ix.refresh()
    ready, summed = _rollups(ix)
    assert ready == summed and set(ready) == {B}
    assert [line[0] for line in ix.usage_lines("session", table=True).table] == [B]
    ix.close()


_V3_TRIGGERS_BEFORE_USAGE_S = [
    """CREATE TRIGGER usage_q_ai AFTER INSERT ON usage BEGIN
    INSERT INTO usage_q VALUES (CAST(new.ts / 900 AS INTEGER), new.session_id, new.model,
        new.input, new.output, new.cw5m, new.cw1h, new.cr, 1, coalesce(new.cost, 0),
        new.cost IS NULL)
    ON CONFLICT (q, session_id, model) DO UPDATE SET input = input + excluded.input,
        output = output + excluded.output, cw5m = cw5m + excluded.cw5m,
        cw1h = cw1h + excluded.cw1h, cr = cr + excluded.cr, n = n + 1,
        cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced;
END;"""
]
"""An index file of schema 3 as cctui wrote it before ``usage_s`` (one of its triggers: enough
to tell whether the open replaced them)."""


def test_an_index_file_from_before_the_per_session_rollup_gets_it_at_open(
    tmp_path: Path,
) -> None:
    import sqlite3

    a = mk.user("first", A) + mk.assistant([mk.text("x")], A, use=mk.usage(inp=10, out=1))
    b = mk.user("second", B) + mk.assistant([mk.text("y")], B, msg_id="m_b")
    _index(tmp_path, {A: a, B: b}).close()
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    with conn:
        conn.execute("DROP TABLE usage_s")
        for name in ("usage_q_ai", "usage_q_ad", "usage_q_au"):
            conn.execute(f"DROP TRIGGER {name}")
        for sql in _V3_TRIGGERS_BEFORE_USAGE_S:
            conn.execute(sql)
    conn.close()

    ix = HistoryIndex(tmp_path / "claude", index_file=tmp_path / "index.sqlite")
    assert not ix.store.note  # not rebuilt
    ready, summed = _rollups(ix)
    assert ready == summed and set(ready) == {A, B}
    path_a = next((tmp_path / "claude" / "projects").glob(f"*/{A}.jsonl"))
    with path_a.open("a") as f:  # kept by the triggers the open put in
        f.write(mk.assistant([mk.text("z")], A, msg_id="m2", use=mk.usage(inp=1_000, out=2)))
    ix.refresh()
    ready, summed = _rollups(ix)
    assert ready == summed and ready[A][:2] == (1_010, 3)
    ix.close()
