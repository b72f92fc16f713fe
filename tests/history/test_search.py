"""Full-text search: query syntax, filters, ranking, grouping, the looser pass, errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cctui.history import HistoryIndex
from cctui.history import search as search_module
from cctui.history.search import SearchError, parse_query, parse_when
from tests.history import make_lines as mk

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"
C = "cccccccc-0000-4000-8000-000000000003"
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[HistoryIndex]:
    home = tmp_path / "claude"
    mk.write(
        home,
        A,
        mk.user("Why does Session._pump stall after error-401 from src/api/auth.ts?", A,
                ts="2026-11-24T09:00:00Z", cwd="/work/api")
        + mk.assistant([mk.text("The retry loop in Session._pump never backs off."),
                        mk.tool_use("Bash", command="pytest tests/test_pump.py -k stall")], A,
                       ts="2026-11-24T09:00:05Z")
        + mk.tool_result("FAILED tests/test_pump.py::test_stall - status:500 timeout", A,
                         ts="2026-11-24T09:00:09Z"),
        project="-work-api",
    )  # fmt: skip
    mk.write(
        home,
        B,
        mk.user("Refactor the session pump and the stall detector", B,
                ts="2026-10-01T09:00:00Z", cwd="/work/web")
        + mk.assistant([mk.text("Renamed pump helpers; stall detector moved.")], B,
                       msg_id="msg_b", ts="2026-10-01T09:01:00Z"),
        project="-work-web",
    )  # fmt: skip
    mk.write(
        home,
        C,
        mk.user("Write release notes for the kangaroo feature", C,
                ts="2026-11-25T08:00:00Z", cwd="/work/web")
        + mk.assistant([mk.text("Release notes drafted: kangaroos now hop twice.")], C,
                       msg_id="msg_c", ts="2026-11-25T08:00:30Z"),
        project="-work-web",
    )  # fmt: skip
    ix = HistoryIndex(home, index_file=tmp_path / "index.sqlite")
    ix.refresh()
    yield ix
    ix.close()


def _ids(ix: HistoryIndex, q: str, **kw: object) -> list[str]:
    return [h.session_id for h in ix.search(q, now=NOW, **kw).hits]


def test_every_word_must_appear_and_hits_are_grouped_by_session(index: HistoryIndex) -> None:
    res = index.search("pump stall", now=NOW)
    assert {h.session_id for h in res.hits} == {A, B} and not res.loose
    a = next(h for h in res.hits if h.session_id == A)
    assert a.matches >= 2  # several messages of A match; one hit per session
    assert a.cwd == "/work/api" and a.project_name == "api"
    assert a.title and a.title.startswith("Why does")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Session._pump", [A]),
        ("src/api/auth.ts", [A]),
        ("error-401", [A]),
        ("status:500", [A]),  # not a filter key: a term
        ('"stall detector"', [B]),
        ('"detector stall"', []),
        ("kanga*", [C]),
        ("renamed -pump", []),  # -word excludes messages: the only "renamed" one has "pump"
        ("renamed -kangaroo", [B]),
        ('stall -"session pump"', [A, B]),
        ("tests/test_pump.py", [A]),
        ('"unbalanced quote', []),
        ("AND OR NOT NEAR(", []),  # FTS keywords are plain words here, never syntax
    ],
)
def test_syntax(index: HistoryIndex, query: str, expected: list[str]) -> None:
    assert _ids(index, query) == expected


def test_identifiers_are_matched_literally_not_as_loose_tokens(index: HistoryIndex) -> None:
    # B holds "session pump" as words, A holds "Session._pump": only A has the identifier.
    assert _ids(index, "session.pump") == []
    assert _ids(index, "Session._pump") == [A]


def test_filters(index: HistoryIndex) -> None:
    assert _ids(index, "pump project:web") == [B]
    assert _ids(index, "pump", project="/work/api") == [A]
    assert _ids(index, "pump since:2026-11-01") == [A]
    assert _ids(index, "pump until:2026-10-31") == [B]
    assert _ids(index, "pump since:7d") == [A]
    assert _ids(index, "stall role:tool") == [A]
    assert set(_ids(index, "stall role:user")) == {A, B}
    assert _ids(index, "user role:tool") == []  # words never match the role column
    assert _ids(index, "stall", role="assistant") == [B]  # A's "stall" is in a tool call
    assert _ids(index, f"pump session:{B[:8]}") == [B]


def test_ranking_prefers_relevance_then_recency(index: HistoryIndex) -> None:
    hits = index.search("pump", now=NOW).hits
    assert hits[0].session_id == A  # more and denser matches, and more recent
    assert hits[0].score > hits[1].score


def test_snippets_highlight_the_matched_words(index: HistoryIndex) -> None:
    hit = index.search("kangaroos", now=NOW).hits[0]
    marked = [hit.snippet[a:b].lower() for a, b in hit.highlights]
    assert marked == ["kangaroos"] and hit.role == "assistant"
    assert hit.message_uuid and hit.timestamp == datetime(2026, 11, 25, 8, 0, 30, tzinfo=UTC)


def test_a_sentence_falls_back_to_any_word_ranked_by_how_many_match(
    index: HistoryIndex,
) -> None:
    res = index.search("what did we decide about the kangaroo release notes", now=NOW)
    assert res.loose
    assert res.hits[0].session_id == C and (res.hits[0].matched_words or 0) >= 3


def test_paging_with_a_cursor(index: HistoryIndex) -> None:
    first = index.search("pump", limit=1, now=NOW)
    assert first.total == 2 and first.next_cursor == "1" and len(first.hits) == 1
    second = index.search("pump", limit=1, offset=int(first.next_cursor), now=NOW)
    assert second.next_cursor is None and second.hits[0].session_id != first.hits[0].session_id


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "no word"),
        ("project:web", "no word"),
        ("-pump", "no word"),
        ("pump role:robot", "role:robot"),
        ("pump since:last-tuesday", "cannot read the date"),
    ],
)
def test_bad_queries_get_a_clear_error(index: HistoryIndex, query: str, message: str) -> None:
    with pytest.raises(SearchError, match=message) as info:
        index.search(query)
    assert info.value.code == "bad_query"


def test_parse_when_forms() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC).timestamp()
    assert parse_when("2d", now=now) == now - 2 * 86400
    assert parse_when("12h", now=now) == now - 12 * 3600
    day = parse_when("2026-11-01")
    assert parse_when("2026-11-01", end=True) - day in (86400, 82800, 90000)  # DST aside
    assert parse_when("2026-11-01T10:00:00Z") == datetime(2026, 11, 1, 10, tzinfo=UTC).timestamp()
    assert parse_when("today", now=now, end=True) > now


def test_parse_query_quotes_everything() -> None:
    q = parse_query('foo "a b" pre* -bar say"hi')
    assert q.match_all() == 'body : (("foo" AND "a b" AND "pre"* AND "say""hi") NOT ("bar"))'
    assert parse_query("tool role:user").match_all() == 'role : "user" AND body : ("tool")'


def test_a_search_reads_newest_first_and_stops_when_it_has_enough_sessions(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "the" is in all three sessions; with room for two, the oldest (B) is never read, and
    # the result says older matches were not searched.
    monkeypatch.setattr(search_module, "ENOUGH_SESSIONS", 2)
    res = index.search("the", limit=1, now=NOW)
    assert res.capped and res.total == 2 and res.next_cursor == "1"
    page2 = index.search("the", limit=1, offset=1, now=NOW)
    assert {res.hits[0].session_id, page2.hits[0].session_id} == {A, C}
    whole = index.search("the", limit=5, now=NOW)  # a page reaching further reads further
    assert not whole.capped and {h.session_id for h in whole.hits} == {A, B, C}
