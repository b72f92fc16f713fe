"""core.catalog: one merged, filtered list for the TUI, ``cctui sessions`` and MCP."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from cctui import cli
from cctui.config import load_settings
from cctui.core import catalog as catalog_module
from cctui.core import spare_records
from cctui.core.catalog import (
    CatalogEntry,
    CatalogQuery,
    build_catalog,
    list_catalog,
    matches,
    parse_filter,
    query_catalog,
)
from cctui.core.records import SessionRecords
from cctui.core.session.models import SessionConfig, SessionInfo, SessionRecord
from cctui.core.session.states import SessionStatus
from cctui.history import HistoryIndex, SessionSummary
from tests.history.conftest import INTERACTIVE_ID, MULTI_ID, WRITE_ID, write_process

OWN_ID = "0f0f0f0f-1111-4222-8333-444455556666"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _info(session_id: str, status: SessionStatus, *, active: bool, **config: object) -> SessionInfo:
    return SessionInfo(
        session_id=session_id,
        status=status,
        config=SessionConfig(cwd=Path("/work/app"), **config),
        created_at=NOW - timedelta(hours=1),
        last_activity=NOW,
        title="cctui title",
        total_cost_usd=1.25,
        pid=4242 if active else None,
        pending_input_ids=("in-1",) if status == SessionStatus.WAITING_FOR_INPUT else (),
        is_active=active,
    )


@pytest.fixture
def index(claude_home: Path) -> HistoryIndex:
    index = HistoryIndex(claude_home)
    index.refresh()
    return index


def test_history_only_sessions_are_past_and_newest_first(index: HistoryIndex) -> None:
    entries = build_catalog(index)

    assert [e.session_id for e in entries] == [WRITE_ID, INTERACTIVE_ID, MULTI_ID]
    assert all(e.status == SessionStatus.COMPLETED and not e.is_active for e in entries)
    e = entries[1]
    assert (e.project, e.cwd, e.title) == ("proj", "<tmp>/cci/proj", "hello interactive")
    assert e.total_cost_usd == pytest.approx(0.024196, abs=1e-6)
    assert not e.started_by_cctui and e.sources == {"transcript", "history"}


def test_a_session_cctui_drives_keeps_its_live_status_and_config(index: HistoryIndex) -> None:
    own = _info(MULTI_ID, SessionStatus.WAITING_FOR_INPUT, active=True, team="red", project="App")

    entry = next(e for e in build_catalog(index, [own]) if e.session_id == MULTI_ID)

    assert entry.status == SessionStatus.WAITING_FOR_INPUT and entry.is_active
    assert entry.started_by_cctui and entry.sources == {"cctui", "transcript"}
    assert (entry.project, entry.cwd, entry.team) == ("App", "/work/app", "red")
    assert entry.title == "cctui title" and entry.total_cost_usd == 1.25
    assert entry.pending_inputs == 1 and entry.pid == 4242
    assert entry.last_activity == NOW  # newer than the transcript's last entry
    assert entry.git_branch == "HEAD"  # still taken from the transcript


def test_a_cctui_session_not_on_disk_yet_is_listed(index: HistoryIndex) -> None:
    entries = build_catalog(index, [_info(OWN_ID, SessionStatus.STARTING, active=True)])

    assert entries[0].session_id == OWN_ID and entries[0].sources == {"cctui"}
    assert entries[0].transcript_path is None


def test_an_external_running_process_makes_the_session_running(claude_home: Path) -> None:
    write_process(claude_home, os.getpid(), MULTI_ID, status="busy")
    write_process(claude_home, os.getppid(), WRITE_ID, status="idle")
    index = HistoryIndex(claude_home)
    index.refresh()
    by_id = {e.session_id: e for e in build_catalog(index)}

    assert by_id[MULTI_ID].status == SessionStatus.RUNNING and by_id[MULTI_ID].is_active
    assert by_id[WRITE_ID].status == SessionStatus.IDLE
    assert by_id[MULTI_ID].pid == os.getpid()


def test_a_registered_session_resumed_in_a_terminal_shows_running(claude_home: Path) -> None:
    write_process(claude_home, os.getpid(), MULTI_ID, status="busy")
    index = HistoryIndex(claude_home)
    index.refresh()
    past = _info(MULTI_ID, SessionStatus.COMPLETED, active=False)

    entry = next(e for e in build_catalog(index, [past]) if e.session_id == MULTI_ID)
    assert entry.status == SessionStatus.RUNNING and entry.started_by_cctui


def test_a_stale_live_record_without_a_process_is_interrupted(index: HistoryIndex) -> None:
    record = SessionRecord(
        session_id=OWN_ID,
        config=SessionConfig(cwd=Path("/work/app")),
        created_at=NOW,
        last_activity=NOW,
        status=SessionStatus.RUNNING,
    )
    entry = build_catalog(index, [record])[0]
    assert entry.status == SessionStatus.INTERRUPTED and not entry.is_active


def _summary(sid: str, cwd: str, title: str, minutes: int) -> SessionSummary:
    return SessionSummary(
        session_id=sid,
        cwd=cwd,
        title=title,
        last_activity=NOW - timedelta(minutes=minutes),
        sources=frozenset({"transcript"}),
    )


@pytest.fixture
def entries() -> list[CatalogEntry]:
    summaries = [
        _summary("a0000000-0000-4000-8000-000000000001", "/home/u/api", "Fix login bug", 1),
        _summary("a0000000-0000-4000-8000-000000000002", "/home/u/api/sub", "Refactor", 2),
        _summary("a0000000-0000-4000-8000-000000000003", "/home/u/apiary", "Bees", 3),
        _summary("a0000000-0000-4000-8000-000000000004", "/srv/web", "Deploy", 4),
    ]
    own = [_info(OWN_ID, SessionStatus.RUNNING, active=True, team="Blue", tags=("urgent",))]
    return build_catalog(summaries, own)


def _ids(page_entries: Iterable[CatalogEntry]) -> list[str]:
    return [e.session_id[-1] for e in page_entries]


def test_filter_by_project_directory_is_a_path_prefix(entries: list[CatalogEntry]) -> None:
    page = query_catalog(entries, CatalogQuery(project="/home/u/api/"))
    assert _ids(page.entries) == ["1", "2"]  # not /home/u/apiary


def test_filter_by_project_name(entries: list[CatalogEntry]) -> None:
    page = query_catalog(entries, CatalogQuery(project="WEB"))
    assert _ids(page.entries) == ["4"]


def test_filter_by_text_status_team_and_activity(entries: list[CatalogEntry]) -> None:
    assert _ids(query_catalog(entries, CatalogQuery(text="LOGIN")).entries) == ["1"]
    assert _ids(query_catalog(entries, CatalogQuery(text="urgent")).entries) == ["6"]
    assert _ids(query_catalog(entries, CatalogQuery(status=("active",))).entries) == ["6"]
    assert len(query_catalog(entries, CatalogQuery(status="past")).entries) == 4
    assert _ids(query_catalog(entries, CatalogQuery(status="running,idle")).entries) == ["6"]
    assert _ids(query_catalog(entries, CatalogQuery(team="blue")).entries) == ["6"]
    assert len(query_catalog(entries, CatalogQuery(is_active=False)).entries) == 4
    assert _ids(query_catalog(entries, CatalogQuery(started_by_cctui=True)).entries) == ["6"]


def test_limit_and_offset_report_total_and_truncation(entries: list[CatalogEntry]) -> None:
    page = query_catalog(entries, CatalogQuery(limit=2))
    assert page.total == 5 and page.truncated and len(page.entries) == 2
    rest = query_catalog(entries, CatalogQuery(limit=10, offset=2))
    assert rest.total == 5 and not rest.truncated and len(rest.entries) == 3


def test_unknown_status_is_rejected_with_the_choices() -> None:
    with pytest.raises(ValidationError, match="unknown status 'sleeping'"):
        CatalogQuery(status=("sleeping",))


def test_matches_agrees_with_query(entries: list[CatalogEntry]) -> None:
    query = CatalogQuery(text="e", is_active=False)
    assert [e for e in entries if matches(e, query)] == list(query_catalog(entries, query).entries)


def test_list_catalog_reads_disk_and_registry(claude_home: Path, tmp_path: Path) -> None:
    settings = load_settings(
        env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(claude_home)},
        config_path=tmp_path / "none.toml",
    )
    record = SessionRecord(
        session_id=OWN_ID,
        config=SessionConfig(cwd=Path("/work/app"), team="red"),
        created_at=NOW,
        last_activity=NOW,
        title="from the registry",
    )
    SessionRecords(settings.state_dir).save([record])

    everything = list_catalog(settings)
    assert [e.session_id for e in everything][:1] == [OWN_ID]
    assert len(everything) == 4
    assert [e.title for e in list_catalog(settings, team="red")] == ["from the registry"]
    assert [e.session_id for e in list_catalog(settings, text="WRITE", limit=5)] == [WRITE_ID]
    assert list_catalog(settings, own=[]) and len(list_catalog(settings, own=[])) == 3


def test_cctui_sessions_leaves_out_the_spare_another_cctui_hides(
    claude_home: Path, tmp_path: Path
) -> None:
    """A spare's process is listed by the CLI like any; while a running cctui hides it (its
    form is open), ``cctui sessions`` does too, and a record left by a cctui that is gone
    hides nothing."""
    settings = load_settings(
        env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(claude_home)},
        config_path=tmp_path / "none.toml",
    )
    spare_id = "5a5a5a5a-1111-4222-8333-444455556666"
    write_process(claude_home, os.getpid(), spare_id, status="idle")
    assert spare_id in {e.session_id for e in list_catalog(settings)}

    spare_records.publish(settings.state_dir, spare_id)
    assert spare_id not in {e.session_id for e in list_catalog(settings)}

    spare_records.withdraw(settings.state_dir, spare_id)
    assert spare_id in {e.session_id for e in list_catalog(settings)}
    dead = _exited_pid()
    left = settings.state_dir / spare_records.SPARES_DIR / f"{dead}.{spare_id}"
    left.touch()
    assert spare_id in {e.session_id for e in list_catalog(settings)}
    assert not left.exists()  # cleared by the reader


def _as_values(rows: Iterable[dict[str, object]]) -> list[dict[str, object]]:
    """Rows as comparable values: a path as its text (a card row holds the text)."""
    return [{k: str(v) if isinstance(v, Path) else v for k, v in r.items()} for r in rows]


def test_every_row_as_json_is_the_whole_merge_byte_for_byte(
    claude_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cctui sessions --json`` with no filter and no limit makes the past sessions only a
    transcript names straight from the index's cards (``list_catalog_rows``); what it writes
    must be the whole merge's JSON, whichever sources name a session (a transcript alone, or
    with history.jsonl, a process, cctui's registry), hidden and archived ids aside, a session
    whose id is under two project directories taking its newest file's card."""
    from pydantic_core import to_json

    from cctui.core.archive import Archive
    from cctui.core.catalog import list_catalog_page, list_catalog_rows
    from tests.history.conftest import add_transcript

    settings = load_settings(
        env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(claude_home)},
        config_path=tmp_path / "none.toml",
    )
    past = [f"c0000000-0000-4000-8000-00000000000{i}" for i in range(6)]
    for i, sid in enumerate(past):
        add_transcript(claude_home, sid, "transcript-write-tool-with-hooks.jsonl", f"/w/p{i % 2}")
    moved = add_transcript(claude_home, past[0], "transcript-interactive.jsonl", "/w/moved")
    os.utime(moved, (2_000_000_000, 2_000_000_000))  # the newer of past[0]'s two files
    write_process(claude_home, os.getppid(), past[1], status="idle")  # a process names it too
    spare = "5a5a5a5a-1111-4222-8333-444455556666"
    write_process(claude_home, os.getpid(), spare, status="idle")
    spare_records.publish(settings.state_dir, spare)
    spare_records.publish(settings.state_dir, past[2])  # hidden, and only a transcript's
    Archive(settings.state_dir).set(past[3], True)
    records = [
        SessionRecord(session_id=sid, config=SessionConfig(cwd=Path("/work/app")),
                      created_at=NOW, last_activity=NOW - timedelta(days=900), title=title)
        for sid, title in ((OWN_ID, "registry only"), (past[4], "registry and transcript"))
    ]  # fmt: skip
    SessionRecords(settings.state_dir).save(records)

    rows = list_catalog_rows(settings)
    whole = list_catalog_page(settings).entries

    # As values (a set compared as a set: its order follows the process's string hashes)...
    assert _as_values(rows) == _as_values([e.model_dump() for e in whole])
    # ...and as the command writes them (orjson, cli._write_json): sources sorted, the same
    # bytes whatever the hash seed (they differed under PYTHONHASHSEED=5 and 10).
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="utf-8"))
    cli._write_json(rows)
    assert (
        written.getvalue() == to_json([e.model_dump(mode="json") for e in whole], indent=2) + b"\n"
    )
    listed = [r["sources"] for r in json.loads(written.getvalue())]
    assert ["process", "transcript"] in listed and all(s == sorted(s) for s in listed)
    ids = [r["session_id"] for r in rows]
    assert len(ids) == 3 + len(past) + 1 - 2  # the samples, the copies, OWN_ID; less 2, 3
    assert spare not in ids and past[2] not in ids and past[3] not in ids
    assert next(r for r in rows if r["session_id"] == past[0])["cwd"] == "<tmp>/cci/proj"
    assert next(r for r in rows if r["session_id"] == past[1])["status"] == "idle"
    assert {r["sources"] for r in rows} >= {frozenset({"transcript"}), frozenset({"cctui"})}

    # As text too: every row from the card rows, a page through the entries.
    def printed(**limit: int) -> str:
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        flags = {"json": False, "host": None, "text": None, "project": None, "status": None}
        cli._print_sessions(settings, argparse.Namespace(**flags, limit=limit.get("limit")))
        return out.getvalue()

    assert printed() == printed(limit=1000) and len(printed().splitlines()) == len(rows)

    # A transcript written to since: the next listing sees it (the sweep), both ways alike.
    from tests.history import make_lines as mk

    grown = claude_home / "projects" / "-w-p1" / f"{past[5]}.jsonl"
    with grown.open("a") as fh:
        fh.write(mk.user("much later", past[5], ts="2027-01-02T03:04:05.000Z"))
    again = list_catalog_rows(settings)
    assert _as_values(again) == _as_values(
        [e.model_dump() for e in list_catalog_page(settings).entries]
    )
    assert again[0]["session_id"] == past[5]
    assert again[0]["last_activity"] == datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)


def _exited_pid() -> int:
    """A pid no process has now (the kernel does not hand it out again this soon)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_archived_sessions_are_left_out_unless_the_filter_asks(
    index: HistoryIndex, tmp_path: Path
) -> None:
    from cctui.core.archive import Archive
    from cctui.core.catalog import parse_filter

    archive = Archive(tmp_path / "state")
    archive.set(MULTI_ID, True)
    # The file is replaced whole, and read again by a new Archive (another process).
    assert Archive(tmp_path / "state").ids == {MULTI_ID}
    entries = build_catalog(index, archived=Archive(tmp_path / "state").ids)
    listed = query_catalog(entries, CatalogQuery()).entries
    assert MULTI_ID not in {e.session_id for e in listed}
    hidden = query_catalog(entries, parse_filter("status:archived")).entries
    assert [e.session_id for e in hidden] == [MULTI_ID]
    # With a state too, it narrows the archived ones.
    assert query_catalog(entries, parse_filter("status:archived,running")).entries == ()
    archive.set(MULTI_ID, False)
    assert Archive(tmp_path / "state").ids == frozenset()


def test_a_damaged_archive_hides_nothing(tmp_path: Path) -> None:
    from cctui.core.archive import Archive

    state = tmp_path / "state"
    state.mkdir()
    (state / "archived.json").write_text("{not json")
    assert Archive(state).ids == frozenset()
    (state / "archived.json").write_text('{"archived": "x"}')
    assert Archive(state).ids == frozenset()


def test_queued_and_paused_sessions_are_live_not_past() -> None:
    """Sessions the dispatcher is about to start or continue are current work: listed by
    ``status:live``, found by ``status:queued`` / ``status:paused``, never ``past``."""
    queued = "b0000000-0000-4000-8000-00000000000q"
    paused = "b0000000-0000-4000-8000-00000000000p"
    running = "b0000000-0000-4000-8000-00000000000r"
    entries = build_catalog(
        [],
        [
            _info(queued, SessionStatus.QUEUED, active=False),
            _info(paused, SessionStatus.PAUSED, active=False),
            _info(running, SessionStatus.RUNNING, active=True),
        ],
    )
    assert {e.status for e in entries} == {
        SessionStatus.QUEUED,
        SessionStatus.PAUSED,
        SessionStatus.RUNNING,
    }

    def found(words: str) -> list[str]:
        return sorted(_ids(query_catalog(entries, parse_filter(f"status:{words}")).entries))

    assert found("live") == ["p", "q", "r"]
    assert found("queued") == ["q"] and found("paused") == ["p"]
    assert found("past") == [] and found("active") == ["r"]


@pytest.mark.parametrize(("limit", "offset"), [(1, 0), (2, 1), (3, 0), (10, 2)])
def test_a_page_without_filters_is_the_same_as_the_whole_list_cut(limit: int, offset: int) -> None:
    # `cctui sessions --limit N` makes only the page's entries (catalog._newest_page); it must
    # pick what filtering and cutting the whole catalog would, hidden and archived ids aside.
    summaries = [
        _summary(f"b0000000-0000-4000-8000-00000000000{i}", "/w/p", f"t{i}", minutes)
        for i, minutes in enumerate([5, 1, 9, 3, 3, 7])
    ]
    own = [_info(OWN_ID, SessionStatus.RUNNING, active=True)]
    hidden = {summaries[2].session_id}
    archived = {summaries[4].session_id}
    query = CatalogQuery(limit=limit, offset=offset)

    fast = catalog_module._newest_page(summaries, own, hidden, archived, query)
    whole = query_catalog(build_catalog(summaries, own, hidden, archived), query)

    assert fast == whole and fast.total == 5


def test_a_past_session_is_merged_as_every_other_one(
    index: HistoryIndex, claude_home: Path, dead_pid: int
) -> None:
    """The short cut for sessions cctui does not know (``_past_one``: thousands of them in a
    first frame) makes the entry the whole merge makes, field for field."""
    write_process(claude_home, os.getpid(), MULTI_ID, status="idle")
    write_process(claude_home, dead_pid, WRITE_ID)
    index.refresh()
    summaries = [
        *index.sessions(),
        SessionSummary(session_id=OWN_ID, last_activity=NOW, sources=frozenset({"history"})),
    ]
    assert any(s.is_running for s in summaries) and any(not s.is_running for s in summaries)
    for s in summaries:
        fast = catalog_module._merge_one(s.session_id, s, None)
        whole = catalog_module._merged(s.session_id, s, None)
        assert fast == whole and fast.model_dump() == whole.model_dump()
