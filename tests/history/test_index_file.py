"""The persisted index: incremental per file, and every fault the issue lists."""

from __future__ import annotations

import gc
import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cctui.history import HistoryIndex, prepare
from cctui.history import index as index_module
from cctui.history.indexer import Job, TranscriptIndexer
from cctui.history.lines import complete_lines
from cctui.history.store import SCHEMA_VERSION, IndexStore
from tests.history import make_lines as mk
from tests.history.conftest import MULTI_ID, WRITE_ID

SID = "11111111-2222-4333-8444-555555555555"
PARENT = "22222222-3333-4444-8555-666666666666"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "claude"
    (h / "projects").mkdir(parents=True)
    return h


@pytest.fixture
def index_file(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "cctui" / "index.sqlite"


@pytest.fixture
def index(home: Path, index_file: Path) -> Iterator[HistoryIndex]:
    ix = HistoryIndex(home, index_file=index_file)
    yield ix
    ix.close()


def _found(ix: HistoryIndex, query: str) -> set[str]:
    return {h.session_id for h in ix.search(query).hits}


def test_file_is_private_and_survives_a_restart(
    claude_home: Path, index_file: Path, tmp_path: Path
) -> None:
    ix = HistoryIndex(claude_home, index_file=index_file)
    ix.refresh()
    assert stat.S_IMODE(index_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(index_file.parent.stat().st_mode) == 0o700
    wal = Path(f"{index_file}-wal")
    assert not wal.exists() or stat.S_IMODE(wal.stat().st_mode) == 0o600
    ix.close()

    again = HistoryIndex(claude_home, index_file=index_file)
    change = again.load()
    assert len(change.changed) == 3 and again.read_stats.files_read == 0
    assert not again.refresh()  # nothing changed on disk: nothing read
    assert again.read_stats.files_read == 0
    assert _found(again, "PLEASE_WRITE") == {WRITE_ID}
    again.close()


def test_growth_is_read_from_the_offset_only(home: Path, index: HistoryIndex) -> None:
    path = mk.write(home, SID, mk.user("first prompt about kangaroos", SID))
    index.refresh()
    before = index.read_stats.bytes_read
    extra = mk.assistant([mk.text("wombats answered")], SID)
    mk.append(path, extra)

    change = index.refresh_paths([path])

    assert change.changed == {SID}
    head_tail = path.stat().st_size  # the small file's lite read is the whole file once
    assert index.read_stats.bytes_read - before == len(extra.encode()) + head_tail
    assert _found(index, "wombats") == {SID} and _found(index, "kangaroos") == {SID}
    assert index.stats().messages == 2


def test_a_half_written_last_line_waits_for_its_newline(home: Path, index: HistoryIndex) -> None:
    line = mk.user("platypus question", SID)
    path = mk.write(home, SID, mk.user("hello", SID) + line[:40])
    index.refresh()
    assert _found(index, "platypus") == set()
    assert index.problems.deferred_lines == 1
    assert index.problems.transcript_lines_skipped == 0

    mk.append(path, line[40:])
    index.refresh()
    assert _found(index, "platypus") == {SID}
    assert index.problems.deferred_lines == 0


def test_rewritten_truncated_replaced_and_deleted_files(home: Path, index: HistoryIndex) -> None:
    path = mk.write(home, SID, mk.user("alpha bravo", SID) + mk.user("charlie delta", SID))
    index.refresh()
    assert _found(index, "charlie") == {SID}

    # Same size, other bytes (an in-place rewrite): the signature differs, read again from 0.
    body = path.read_text().replace("charlie", "zulu___")
    st0 = path.stat()
    path.write_text(body)
    os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns + 1_000_000))
    index.refresh()
    assert _found(index, "charlie") == set() and _found(index, "zulu___") == {SID}

    path.write_text(mk.user("only echo", SID))  # truncated
    index.refresh()
    assert _found(index, "alpha") == set() and _found(index, "echo") == {SID}
    assert index.stats().messages == 1

    tmp = path.with_suffix(".tmp")
    tmp.write_text(mk.user("foxtrot after a replace", SID))
    tmp.replace(path)  # a new inode
    index.refresh()
    assert _found(index, "echo") == set() and _found(index, "foxtrot") == {SID}

    path.unlink()
    change = index.refresh()
    assert SID in change.removed
    assert _found(index, "foxtrot") == set()
    assert index.stats().files == 0 and index.usage().total.tokens.replies == 0


def test_bad_lines_are_counted_and_nothing_else_is_lost(
    home: Path, index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prepare, "MAX_LINE", 200_000)
    huge = mk.user("needle_in_huge " + "x " * 300_000, SID)  # ~600 KB: over the limit
    # ~120 KB: indexed whole, a word in its middle too
    big = mk.tool_result("needle_in_big " + "y " * 30_000 + "mid_needle " + "y " * 30_000, SID)
    bad_utf8 = mk.user("needle_utf8 cafQQ", SID).encode().replace(b"QQ", b"\xff\xfe")
    body = (
        mk.user("needle_before", SID).encode()
        + b"{not json at all\n"
        + huge.encode()
        + bad_utf8
        + big.encode()
        + b'{"type":"user","message":\n'  # cut mid-line, then a newline: corrupt
        + mk.user("needle_after", SID).encode()
    )
    path = home / "projects" / "-w-app" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(body)

    index.refresh()

    for word in ("needle_before", "needle_utf8", "needle_in_big", "mid_needle", "needle_after"):
        assert _found(index, word) == {SID}, word
    assert _found(index, "needle_in_huge") == set()
    p = index.problems
    assert (p.transcript_lines_skipped, p.oversized_lines, p.invalid_utf8_lines) == (2, 1, 1)
    assert "2 corrupt transcript line(s) skipped" in p.describe()
    hit = index.search("mid_needle").hits[0]
    assert hit.role == "tool" and not hit.clipped
    assert [hit.snippet[a:b] for a, b in hit.highlights] == ["mid_needle"]


def test_subagent_transcripts_are_indexed_under_their_parent(
    home: Path, index: HistoryIndex
) -> None:
    mk.write(home, PARENT, mk.user("parent prompt", PARENT))
    sub = home / "projects" / "-w-app" / PARENT / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(
        mk.user("subagent digs for quokkas", "agent-sid")
        + mk.assistant([mk.text("found quokkas")], "agent-sid", msg_id="msg_sub", sidechain=True)
    )
    index.refresh()

    hits = index.search("quokkas").hits
    assert [(h.session_id, h.sidechain) for h in hits] == [(PARENT, True)]
    assert [s.session_id for s in index.sessions()] == [PARENT]  # no row of its own
    report = index.usage("session")
    assert [r.key for r in report.rows] == [PARENT] and report.rows[0].tokens.replies == 1
    assert index.stats().subagent_files == 1

    sub.unlink()
    index.refresh_paths([sub])  # the watcher names deleted paths too
    assert index.search("quokkas").hits == []


@pytest.mark.parametrize(
    ("damage", "note"),
    [
        (lambda p: p.write_bytes(b"this is not a database at all" * 100), "unreadable"),
        (lambda p: _set_version(p, SCHEMA_VERSION + 1), "a newer cctui"),
        (lambda p: _set_version(p, 0), "no schema version"),
    ],
)
def test_corrupt_or_foreign_index_is_rebuilt_with_a_note(
    claude_home: Path, index_file: Path, damage: object, note: str
) -> None:
    ix = HistoryIndex(claude_home, index_file=index_file)
    ix.refresh()
    ix.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{index_file}{suffix}").unlink(missing_ok=True)
    damage(index_file)  # type: ignore[operator]

    again = HistoryIndex(claude_home, index_file=index_file)
    again.refresh()

    assert note in again.problems.index_note and note in again.problems.describe()
    assert len(again.sessions()) == 3 and _found(again, "PLEASE_WRITE") == {WRITE_ID}
    again.close()


def _set_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={version}")
    conn.commit()
    conn.close()


def test_an_older_schema_is_rebuilt(claude_home: Path, index_file: Path) -> None:
    index_file.parent.mkdir(parents=True)
    conn = sqlite3.connect(index_file)
    conn.execute("CREATE TABLE source (id INTEGER PRIMARY KEY, path TEXT)")
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION - 1 or -1}")
    conn.commit()
    conn.close()
    store = IndexStore(index_file)
    assert "cctui" in store.note and "rebuilding" in store.note
    store.close()


def test_readers_are_not_blocked_and_a_second_writer_waits(
    claude_home: Path, index_file: Path
) -> None:
    ix = HistoryIndex(claude_home, index_file=index_file)
    ix.refresh()
    other = sqlite3.connect(index_file, timeout=0.1, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    other.execute("DELETE FROM msg WHERE 0")
    try:
        started = time.monotonic()
        assert _found(ix, "PLEASE_WRITE") == {WRITE_ID}  # a reader: answered at once
        assert ix.usage("daily").total.tokens.replies > 0
        assert time.monotonic() - started < 1.0
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            third = sqlite3.connect(index_file, timeout=0.1, isolation_level=None)
            third.execute("BEGIN IMMEDIATE")
    finally:
        other.execute("ROLLBACK")
        other.close()
    # The lock is free again: the index writes.
    path = next((claude_home / "projects").glob(f"*/{MULTI_ID}.jsonl"))
    mk.append(path, mk.user("after the lock", MULTI_ID))
    ix.refresh()
    assert _found(ix, "after the lock") == {MULTI_ID}
    ix.close()


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


_BUILDER = """
import sys, time
from pathlib import Path
from cctui.history import HistoryIndex
if __name__ == "__main__":  # the build's worker (spawned) imports this module again
    ix = HistoryIndex(Path(sys.argv[1]), index_file=Path(sys.argv[2]))
    plan = ix.plan()
    while plan.jobs:
        ix.step(plan, seconds=0.01)
        print("step", flush=True)
        time.sleep(0.05)
"""


@pytest.mark.slow  # a Python that imports the index and builds, killed mid-way: ~48 s at load
def test_kill_9_during_a_build_leaves_an_index_that_resumes(
    home: Path, index_file: Path, tmp_path: Path
) -> None:
    for n in range(60):
        sid = f"33333333-4444-4555-8666-{n:012d}"
        body = "".join(mk.user(f"prompt {n} marmot{n}", sid) for _ in range(50))
        mk.write(home, sid, body, project=f"-w-p{n % 3}")
    script = tmp_path / "build.py"
    script.write_text(_BUILDER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(home), str(index_file)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stdout is not None
    for _ in range(3):
        assert proc.stdout.readline() == "step\n"
    proc_fs = Path("/proc/self/stat").exists()  # (Linux: who the build's children are)
    children = _children(proc.pid) if proc_fs else []  # its worker, multiprocessing's tracker
    assert children or not proc_fs
    proc.kill()  # SIGKILL: no cleanup, maybe mid-transaction
    proc.wait()
    deadline = time.monotonic() + 30
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [c for c in children if _alive(c)]  # nothing outlives a killed build

    ix = HistoryIndex(home, index_file=index_file)
    partial = ix.load()
    assert 0 < len(partial.changed) < 60
    assert ix.problems.index_note == ""  # opened as it was, not rebuilt
    ix.refresh()
    assert len(ix.sessions()) == 60
    assert ix.stats().messages == 60 * 50
    assert _found(ix, "marmot7") == {"33333333-4444-4555-8666-000000000007"}
    ix.close()


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12),
    tail=st.binary(max_size=10).map(lambda b: b.replace(b"\n", b"")),
    chunk=st.integers(1, 17),
    max_line=st.integers(1, 30),
    offset_at=st.integers(0, 4),
)
def test_complete_lines_agree_with_splitting(
    lines: list[bytes], tail: bytes, chunk: int, max_line: int, offset_at: int
) -> None:
    import io

    data = b"".join(line + b"\n" for line in lines) + tail
    start = sum(len(line) + 1 for line in lines[:offset_at])
    got = list(complete_lines(io.BytesIO(data), start, max_line=max_line, chunk=chunk))
    want = []
    pos = start
    for line in lines[offset_at:]:
        pos += len(line) + 1
        want.append((pos, line if len(line) <= max_line else None))
    assert got == want


def test_a_build_goes_newest_first_and_reports_progress(home: Path, index_file: Path) -> None:
    for n in range(5):
        sid = f"44444444-4444-4555-8666-{n:012d}"
        path = mk.write(home, sid, mk.user(f"prompt {n}", sid))
        os.utime(path, (1_800_000_000 + n, 1_800_000_000 + n))
    ix = HistoryIndex(home, index_file=index_file)
    plan = ix.plan()
    assert ix.progress.active and ix.progress.files_total == 5
    assert [j.session_id[-1] for j in plan.jobs] == ["4", "3", "2", "1", "0"]
    change = ix.step(plan, seconds=0)  # at least one file per step
    assert change.changed == {"44444444-4444-4555-8666-000000000004"}
    assert ix.progress.describe() == "indexing 1 of 5 · 0 MB"  # 1 file of a few hundred bytes
    while plan.jobs:
        ix.step(plan)
    done = ix.progress  # read afresh: mypy keeps `ix.progress.active` narrowed to True
    assert not done.active and done.describe() == ""
    assert len(ix.sessions()) == 5
    ix.close()


def test_the_index_keeps_no_copy_of_the_text(home: Path, index: HistoryIndex) -> None:
    # (The first prompt is the list's title: it is kept, as a title, in the session's card.)
    mk.write(home, SID, mk.user("hi", SID) + mk.user("a distinctive_phrase_here to find", SID))
    index.refresh()
    assert _found(index, "distinctive_phrase_here") == {SID}
    index.close()
    for suffix in ("", "-wal"):
        p = Path(f"{index.store.path}{suffix}")
        assert not p.exists() or b"distinctive_phrase_here" not in p.read_bytes()


@pytest.mark.parametrize("change", ["rewrite", "truncate", "delete"])
def test_a_transcript_changed_under_a_hit_is_read_again_never_a_wrong_snippet(
    home: Path, index: HistoryIndex, change: str
) -> None:
    path = mk.write(home, SID, mk.user("first words", SID) + mk.user("the walrus said hi", SID))
    index.refresh()
    assert _found(index, "walrus") == {SID}
    st = path.stat()
    if change == "rewrite":  # same size and mtime: no sweep would see it
        path.write_text(path.read_text().replace("walrus", "pelics"))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif change == "truncate":
        path.write_text(mk.user("first words", SID))
    else:
        path.unlink()

    result = index.search("walrus")  # no refresh in between: the hit's line is checked

    assert result.hits == []
    if change == "rewrite":
        hit = index.search("pelics").hits[0]
        assert hit.session_id == SID and "pelics" in hit.snippet
        assert index.stats().stale_messages == 2  # the old rows: tombstones
    if change == "delete":
        assert index.stats().files == 0


def test_thinking_is_searchable_only_when_asked(home: Path, index_file: Path) -> None:
    thought = {"type": "thinking", "thinking": "ponder the aardvark", "signature": "x"}
    mk.write(home, SID, mk.assistant([thought, mk.text("plain reply")], SID))
    ix = HistoryIndex(home, index_file=index_file)
    ix.refresh()
    assert _found(ix, "aardvark") == set() and _found(ix, "plain") == {SID}
    ix.close()
    ix = HistoryIndex(home, index_file=index_file, thinking=True)  # the option changed: rebuilt
    ix.refresh()
    assert "index_thinking" in ix.store.note
    hit = ix.search("aardvark").hits[0]
    assert hit.session_id == SID and hit.role == "assistant" and "aardvark" in hit.snippet
    ix.close()


@pytest.mark.process
def test_a_build_of_many_new_files_reads_them_in_a_worker_process(
    home: Path, index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_module, "PREFETCH_MIN_FILES", 4)
    # A file at a time, at most two ahead of the writer (as a large home's build runs: the
    # plan's files are fed to the worker until its very end).
    monkeypatch.setattr(prepare, "PREFETCH_CHUNK_FILES", 1)
    monkeypatch.setattr(prepare, "PREFETCH_CHUNK_BYTES", 1)
    monkeypatch.setattr(prepare, "PREFETCH_AHEAD_BYTES", 1_200)
    sids = [f"{n:08d}-0000-4000-8000-000000000000" for n in range(8)]
    for n, sid in enumerate(sids):
        mk.write(home, sid, mk.user(f"prompt number{n}", sid) + mk.tool_result(f"word{n}", sid))
    used: list[bool] = []
    ingest = index.transcripts.ingest

    def spy(path: Path, sid: str, kind: str, ready: prepare.Prepared | None = None) -> set[str]:
        used.append(ready is not None)
        return ingest(path, sid, kind, ready)

    monkeypatch.setattr(index.transcripts, "ingest", spy)
    plan = index.plan()
    warm = index._prefetch._warm if index._prefetch is not None else None
    assert warm is not None
    warm.result()  # (until the worker has started, the writer reads files itself)
    while plan.jobs:
        index.step(plan, seconds=0.0)  # a file per step
        # No job outlives its file: the files handed to the worker are let go once written
        # (a copy of the plan held to the build's end kept 20,000 jobs and their paths,
        # ~15 MB of the writer's peak RSS).
        live = sum(isinstance(o, Job) and o.path.is_relative_to(home) for o in gc.get_objects())
        assert live <= len(plan.jobs) + 1, (live, len(plan.jobs))  # (+ the one last fed)
    assert all(used) and len(used) == 8  # every file came prepared by the worker
    assert index._prefetch is None  # the worker is gone once the plan is done
    for n, sid in enumerate(sids):
        assert _found(index, f"word{n}") == {sid}
    assert {s.session_id for s in index.sessions()} == set(sids)
    assert {s.title for s in index.sessions()} == {f"prompt number{n}" for n in range(8)}


def test_tombstones_outnumbering_live_rows_rebuild_the_index(
    home: Path, index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite before 3.43 cannot delete a contentless FTS5 row: a file read again leaves its
    # old rows as tombstones, and the next sweep rebuilds the index once they outnumber the
    # live ones (the floor is lowered here; it is 100,000 rows).
    monkeypatch.setattr(index_module, "COMPACT_MIN_DEAD", 0)
    path = mk.write(home, SID, mk.user("the walrus said hi", SID) + mk.user("two", SID))
    index.refresh()
    for word in ("pelican", "heron"):
        path.write_text(mk.user(f"the {word} said hi", SID) + mk.user("two", SID))
        index.reindex([path])
    assert index.stats().stale_messages == 4 and index.stats().messages == 2

    plan = index.plan()  # the sweep sees more tombstones than rows: it starts afresh
    while plan.jobs:
        index.step(plan)

    stats = index.stats()
    assert stats.stale_messages == 0 and stats.messages == 2
    assert "stale rows" in stats.note
    assert _found(index, "heron") == {SID} and _found(index, "walrus") == set()


def test_an_index_of_this_version_gains_a_later_index_at_open(home: Path, index_file: Path) -> None:
    mk.write(home, SID, mk.user("find the walrus", SID, cwd="/work/zoo"))
    ix = HistoryIndex(home, index_file=index_file)
    ix.refresh()
    ix.close()
    conn = sqlite3.connect(index_file)
    for name in ("card_cwd", "card_mtime"):  # as a file written before the indexes existed
        conn.execute(f"DROP INDEX {name}")
    conn.commit()
    conn.close()

    again = HistoryIndex(home, index_file=index_file)

    names = {r[0] for r in again.store.reader().execute("SELECT name FROM sqlite_master")}
    assert {"card_cwd", "card_mtime"} <= names and again.store.note == ""
    assert {h.session_id for h in again.search("walrus project:zoo").hits} == {SID}
    plan = (
        again.store.reader()
        .execute("EXPLAIN QUERY PLAN SELECT session_id, last_activity FROM card ORDER BY mtime")
        .fetchall()
    )
    assert "COVERING INDEX card_mtime" in plan[0][3]  # a page's order, read without a sort
    assert set(again.transcripts.latest()) == {SID}
    again.close()


def _fts_segments(ix: HistoryIndex) -> int:
    return int(
        ix.store.reader().execute("SELECT count(DISTINCT segid) FROM msg_fts_idx").fetchone()[0]
    )


@pytest.mark.parametrize("how", ["refresh", "steps"])
def test_a_build_writes_its_text_in_one_fts_segment_per_batch(
    home: Path, index: HistoryIndex, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # Newest file first, each file's rows in time order: in file order, FTS5 would start a
    # segment at every file (a row id lower than the one before flushes its postings).
    monkeypatch.setattr(index_module, "PREFETCH_MIN_FILES", 10**6)
    monkeypatch.setattr("cctui.history.indexer.REFRESH_BATCH_SECONDS", 60.0)
    sids = [f"{n:08d}-0000-4000-8000-000000000000" for n in range(8)]
    for n, sid in enumerate(sids):
        ts = f"2026-11-{10 + n:02d}T10:00:0{{}}.000Z"
        path = mk.write(
            home,
            sid,
            mk.user(f"prompt number{n}", sid, ts=ts.format(0))
            + mk.tool_result(f"result{n} mentions quokka", sid, ts=ts.format(2)),
        )
        os.utime(path, (1_790_000_000 + n * 86_400,) * 2)
    if how == "refresh":
        index.refresh()
    else:
        plan = index.plan()
        while plan.jobs:
            index.step(plan, seconds=60.0)
    assert _fts_segments(index) == 1
    assert _found(index, "quokka") == set(sids)
    for n, sid in enumerate(sids):
        assert _found(index, f"number{n}") == {sid} == _found(index, f"result{n}")


def _contents(ix: HistoryIndex) -> dict[str, list[tuple[object, ...]]]:
    """Every row the index holds, with its files named by path (row ids of ``source`` follow
    the order files were written), and every FTS token instance (``fts5vocab``)."""
    conn = ix.store.reader()
    conn.execute("PRAGMA query_only=0")
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, msg_fts, instance)"
    )
    conn.execute("PRAGMA query_only=1")
    queries = {
        "source": "SELECT path, session_id, kind, dev, ino, size, mtime_ns, offset, tail_sig, "
        "lines, skipped, oversized, bad_utf8, deferred, cost_state_usd FROM source",
        "card": "SELECT s.path, c.session_id, last_activity, created_at, mtime, c.size, "
        "c.cost_state_usd, cost_usd, unpriced, cwd, git_branch, c.path, title, first_prompt "
        "FROM card c JOIN source s ON s.id = c.source_id",
        "msg": "SELECT m.id, s.path, ts, role, sidechain, off, len, crc, part "
        "FROM msg m JOIN source s ON s.id = m.source_id",
        "usage": "SELECT msg_id, request_id, u.session_id, s.path, ts, model, input, output, "
        "cw5m, cw1h, cr, web_search, sidechain, geo, legacy_cost, cost "
        "FROM usage u JOIN source s ON s.id = u.source_id",
        "usage_q": "SELECT * FROM usage_q",
        "fts": "SELECT term, doc, col, offset FROM temp.v",
    }
    return {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in queries.items()}


@pytest.mark.process
def test_a_build_by_the_worker_writes_what_a_build_in_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The writer takes a worker-prepared new file by a shorter path (no savepoints, its card
    # kept as written): the index must hold the very same rows either way.
    from tests.bench.index_corpus import generate

    home = generate(tmp_path / "claude", 24, mean_kb=12, seed=7).home
    built: list[tuple[dict[str, list[tuple[object, ...]]], list[object]]] = []
    taken: list[bool] = []
    ingest_ready = TranscriptIndexer._ingest_ready

    def spy(self: TranscriptIndexer, *args: Any) -> set[str] | None:
        got = ingest_ready(self, *args)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(TranscriptIndexer, "_ingest_ready", spy)
    for worker in (False, True):
        monkeypatch.setattr(index_module, "PREFETCH_MIN_FILES", 1 if worker else 10**6)
        ix = HistoryIndex(home, index_file=tmp_path / f"index-{worker}.sqlite")
        plan = ix.plan()
        if worker:
            assert ix._prefetch is not None and ix._prefetch._warm is not None
            ix._prefetch._warm.result()  # (until it has started, the writer reads files itself)
        while plan.jobs:
            ix.step(plan, seconds=0.05)  # several steps: cards and costs across batches
        built.append((_contents(ix), list(ix.sessions())))
        ix.close()
    assert sum(taken) >= 20  # the worker's files went by the short path
    (plain, plain_sessions), (fast, fast_sessions) = built
    assert len(plain["msg"]) > 100 and len(plain["usage"]) > 20 and plain["fts"]
    assert any(r[2] == "subagent" for r in plain["source"])
    for table in plain:
        assert fast[table] == plain[table], table
    assert fast_sessions == plain_sessions
    # A fresh load reads back the cards the fast path kept in memory.
    again = HistoryIndex(home, index_file=tmp_path / "index-True.sqlite")
    again.load()
    assert list(again.sessions()) == fast_sessions
    again.close()


def test_a_new_index_merges_fts_segments_eight_at_a_time(index: HistoryIndex) -> None:
    # FTS5's automerge 8 (its default is 4): a build rewrites each posting fewer times.
    row = index.store.reader().execute("SELECT v FROM msg_fts_config WHERE k = 'automerge'")
    assert row.fetchone() == (8,)
