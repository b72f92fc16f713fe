"""HistoryIndex: merging transcripts, history.jsonl and process files, incrementally."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cctui.history import HistoryIndex
from tests.history.conftest import (
    INTERACTIVE_ID,
    MULTI_ID,
    SAMPLES,
    WRITE_ID,
    add_transcript,
    history_line,
    write_process,
)

NEW_ID = "0f0f0f0f-1111-4222-8333-444455556666"


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def test_lists_every_sample_session_newest_first(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    change = index.refresh()

    assert change.changed == {WRITE_ID, MULTI_ID, INTERACTIVE_ID}
    sessions = index.sessions()
    assert [s.session_id for s in sessions] == [WRITE_ID, INTERACTIVE_ID, MULTI_ID]
    assert index.problems.any is False


def test_summary_fields_come_from_head_and_tail(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    index.refresh()

    s = index.get(INTERACTIVE_ID)
    assert s is not None
    assert s.cwd == "<tmp>/cci/proj"
    assert s.project_name == "proj"
    assert s.title == "hello interactive"
    assert s.git_branch == "HEAD"
    assert s.sources == {"transcript", "history"}
    assert s.prompt_count == 3
    assert s.total_cost_usd == pytest.approx(0.024196, abs=1e-6)
    assert s.created_at == datetime(2026, 11, 22, 7, 23, 42, 334000, tzinfo=UTC)
    # The transcript's last entry's own timestamp, not the file's mtime (the copy's time).
    assert s.last_activity == datetime(2026, 11, 22, 7, 23, 51, 362000, tzinfo=UTC)
    assert s.file_size == (SAMPLES / "transcript-interactive.jsonl").stat().st_size
    assert s.is_running is False


def test_missing_config_dir_is_an_empty_list(tmp_path: Path) -> None:
    index = HistoryIndex(tmp_path / "nope")

    assert not index.refresh()
    assert index.sessions() == []
    assert index.problems.config_dir_missing is True
    assert index.problems.any is False


def test_corrupt_and_truncated_history_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    home.mkdir()
    lines = [
        history_line("first", 1795332222333, "/p", NEW_ID),
        "{not json\n",
        '{"display": "no timestamp", "sessionId": "x"}\n',
        history_line("cut", 1795332222444, "/p", NEW_ID)[:30] + "\n",  # truncated mid-line
        "[1, 2]\n",
        history_line("second", 1795332222555, "/p", NEW_ID),
    ]
    (home / "history.jsonl").write_text("".join(lines))
    index = HistoryIndex(home)
    index.refresh()

    s = index.get(NEW_ID)
    assert s is not None and s.prompt_count == 2 and s.title == "first"
    assert s.sources == {"history"}
    assert index.problems.skipped_lines == 4
    assert "4 corrupt line(s) skipped" in index.problems.describe()


def test_history_append_reads_only_the_new_bytes(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    index.refresh()
    size = (claude_home / "history.jsonl").stat().st_size
    assert index.history.bytes_read == size

    extra = history_line("third prompt", 1795332240000, "<tmp>/cci/proj", INTERACTIVE_ID)
    with (claude_home / "history.jsonl").open("a") as fh:
        fh.write(extra)
    change = index.refresh()

    assert change.changed == {INTERACTIVE_ID}
    assert index.history.bytes_read == size + len(extra.encode())
    assert index.history.offset == size + len(extra.encode())
    summary = index.get(INTERACTIVE_ID)
    assert summary is not None and summary.prompt_count == 4


def test_history_line_written_in_two_parts_is_read_once_complete(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    home.mkdir()
    line = history_line("split", 1795332222333, "/p", NEW_ID)
    (home / "history.jsonl").write_text(line[:20])
    index = HistoryIndex(home)
    index.refresh()
    assert index.get(NEW_ID) is None and index.problems.skipped_lines == 0

    with (home / "history.jsonl").open("a") as fh:
        fh.write(line[20:])
    index.refresh()
    assert index.get(NEW_ID) is not None and index.problems.skipped_lines == 0


def test_history_rotation_and_truncation_start_over(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    index.refresh()
    hist = claude_home / "history.jsonl"

    # Truncated to a smaller file: the old prompts are forgotten, the new one is read.
    hist.write_text(history_line("after truncate", 1795332300000, "/q", NEW_ID))
    change = index.refresh()
    assert NEW_ID in change.changed
    interactive = index.get(INTERACTIVE_ID)
    assert interactive is not None and interactive.prompt_count == 0

    # Rotated: a new inode with more content than our offset.
    replacement = hist.with_suffix(".new")
    replacement.write_text(
        history_line("rotated a", 1795332400000, "/q", NEW_ID) * 3
        + history_line("rotated b", 1795332400001, "/q", NEW_ID)
    )
    os.replace(replacement, hist)
    index.refresh()
    s = index.get(NEW_ID)
    assert s is not None and s.prompt_count == 4


def test_prompts_without_session_id_join_the_transcript_that_spans_them(
    claude_home: Path,
) -> None:
    # The interactive transcript runs 07:23:42 .. 07:23:46 on 2026-11-22.
    inside = datetime(2026, 11, 22, 7, 23, 44, tzinfo=UTC)
    far = datetime(2026, 11, 22, 9, 0, 0, tzinfo=UTC)
    with (claude_home / "history.jsonl").open("a") as fh:
        fh.write(history_line("old cli prompt", _ms(inside), "<tmp>/cci/proj", None))
        fh.write(history_line("nobody's", _ms(far), "<tmp>/cci/proj", None))
        fh.write(history_line("other project", _ms(inside), "/elsewhere", None))
    index = HistoryIndex(claude_home)
    index.refresh()

    s = index.get(INTERACTIVE_ID)
    assert s is not None and s.prompt_count == 4
    assert index.problems.orphan_prompts == 2
    assert len(index.sessions()) == 3  # orphans never become sessions of their own


def test_unchanged_transcripts_are_not_reread_and_changed_ones_are(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    index.refresh()
    assert index.read_stats.files_read == 3

    assert not index.refresh()
    assert index.read_stats.files_read == 3

    path = next((claude_home / "projects").glob(f"*/{MULTI_ID}.jsonl"))
    with path.open("a") as fh:
        title = {"type": "custom-title", "customTitle": "Renamed", "sessionId": MULTI_ID}
        fh.write(json.dumps(title, separators=(",", ":")) + "\n")
    change = index.refresh()

    assert change.changed == {MULTI_ID}
    assert index.read_stats.files_read == 4
    summary = index.get(MULTI_ID)
    assert summary is not None and summary.title == "Renamed"


def test_refresh_paths_rechecks_only_named_transcripts(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    index.refresh()
    new = add_transcript(claude_home, NEW_ID, "transcript-write-tool-with-hooks.jsonl", "/w/new")
    unrelated = next((claude_home / "projects").glob(f"*/{WRITE_ID}.jsonl"))
    os.utime(unrelated, (1, 1))

    change = index.refresh_paths([new])

    assert change.changed == {NEW_ID}
    assert index.read_stats.files_read == 4


def test_removed_transcript_is_reported_removed(claude_home: Path) -> None:
    index = HistoryIndex(claude_home)
    index.refresh()
    next((claude_home / "projects").glob(f"*/{WRITE_ID}.jsonl")).unlink()

    change = index.refresh()

    assert change.removed == {WRITE_ID}
    assert index.get(WRITE_ID) is None


def test_a_directory_in_place_of_a_transcript_is_named_unreadable(claude_home: Path) -> None:
    bad = claude_home / "projects" / "-x" / f"{NEW_ID}.jsonl"
    bad.mkdir(parents=True)
    index = HistoryIndex(claude_home)
    index.refresh()

    assert len(index.sessions()) == 3
    assert index.problems.unreadable_files == (str(bad),)
    assert f"{NEW_ID}.jsonl" in index.problems.describe()

    bad.rmdir()
    index.refresh()
    # ignore: mypy keeps `unreadable_files` narrowed to one entry across refresh().
    assert index.problems.unreadable_files == ()  # type: ignore[comparison-overlap]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_transcript_without_read_permission_is_named_unreadable(claude_home: Path) -> None:
    path = next((claude_home / "projects").glob(f"*/{WRITE_ID}.jsonl"))
    path.chmod(0)
    try:
        index = HistoryIndex(claude_home)
        index.refresh()
        assert index.get(WRITE_ID) is None
        assert index.problems.unreadable_files == (str(path),)
    finally:
        path.chmod(0o600)


def test_sidechain_and_empty_transcripts_are_left_out(claude_home: Path) -> None:
    d = claude_home / "projects" / "-x"
    d.mkdir()
    (d / f"{NEW_ID}.jsonl").write_text("")
    side = "1f1f1f1f-1111-4222-8333-444455556666"
    (d / f"{side}.jsonl").write_text(
        '{"isSidechain":true,"type":"user","message":{"role":"user","content":"hi"}}\n'
    )
    index = HistoryIndex(claude_home)
    index.refresh()
    assert {s.session_id for s in index.sessions()} == {WRITE_ID, MULTI_ID, INTERACTIVE_ID}
    assert index.problems.any is False


def test_running_process_with_live_pid_marks_the_session_running(claude_home: Path) -> None:
    write_process(claude_home, os.getpid(), MULTI_ID, status="idle", cwd="<tmp>/ccp/proj")
    index = HistoryIndex(claude_home)
    index.refresh()

    s = index.get(MULTI_ID)
    assert s is not None
    assert s.is_running and s.pid == os.getpid() and s.process_status == "idle"
    assert s.sources == {"transcript", "process"}


def test_process_file_with_a_dead_pid_is_ignored(claude_home: Path, dead_pid: int) -> None:
    write_process(claude_home, dead_pid, NEW_ID)
    index = HistoryIndex(claude_home)
    index.refresh()

    assert index.get(NEW_ID) is None
    assert not any(s.is_running for s in index.sessions())


def test_process_of_a_session_without_transcript_is_listed(claude_home: Path) -> None:
    write_process(claude_home, os.getpid(), NEW_ID, name="fresh-session")
    index = HistoryIndex(claude_home)
    index.refresh()

    s = index.get(NEW_ID)
    assert s is not None and s.is_running and s.title == "fresh-session"
    assert s.sources == {"process"} and s.cwd == "/work/x"


def test_process_exit_is_reported_as_a_change(claude_home: Path) -> None:
    proc_file = write_process(claude_home, os.getpid(), MULTI_ID)
    index = HistoryIndex(claude_home)
    index.refresh()
    proc_file.unlink()

    change = index.refresh()

    assert change.changed == {MULTI_ID}
    s = index.get(MULTI_ID)
    assert s is not None and not s.is_running


def test_corrupt_process_file_is_counted_not_fatal(claude_home: Path) -> None:
    (claude_home / "sessions").mkdir()
    (claude_home / "sessions" / "123.json").write_text('{"pid": 123, "sessio')
    index = HistoryIndex(claude_home)
    index.refresh()

    assert len(index.sessions()) == 3
    assert index.problems.skipped_lines == 1


def test_same_session_in_two_project_dirs_uses_the_newest(claude_home: Path) -> None:
    copy = claude_home / "projects" / "-moved" / f"{MULTI_ID}.jsonl"
    copy.parent.mkdir()
    shutil.copyfile(SAMPLES / "transcript-interactive.jsonl", copy)
    os.utime(copy, (2_000_000_000, 2_000_000_000))
    index = HistoryIndex(claude_home)
    index.refresh()

    s = index.get(MULTI_ID)
    assert s is not None and s.transcript_path == copy
    assert len(index.sessions()) == 3


@pytest.mark.parametrize("orphans", [False, True])
def test_a_refresh_without_cards_orders_and_composes_as_a_full_one(
    claude_home: Path, tmp_path: Path, orphans: bool
) -> None:
    """``refresh(cards=False)`` (``cctui sessions --limit N``) composes nothing up front: its
    ``activity`` must order every session as the full list does, and the summaries it
    composes on demand must be the full list's, whichever source (transcript, history.jsonl,
    a running process) gives a session its last activity."""
    with (claude_home / "history.jsonl").open("a") as fh:
        fh.write(history_line("later prompt", 1895332400000, "<tmp>/ccp/proj", WRITE_ID))
        fh.write(history_line("only in history", 1795332400000, "/q", NEW_ID))
        if orphans:  # attributed to a transcript by time: every card is read for it
            inside = datetime(2026, 11, 22, 7, 23, 44, tzinfo=UTC)
            fh.write(history_line("old cli prompt", _ms(inside), "<tmp>/cci/proj", None))
    write_process(claude_home, os.getpid(), MULTI_ID, updatedAt=1995332429245)
    index_file = tmp_path / "index.sqlite"
    full = HistoryIndex(claude_home, index_file=index_file)
    full.refresh()
    every = full.sessions()
    full.close()
    assert len(every) == 4

    lazy = HistoryIndex(claude_home, index_file=index_file)
    assert not lazy.refresh(cards=False)  # nothing composed, so nothing said to change
    assert lazy.activity() == {s.session_id: s.last_activity.timestamp() for s in every}
    ids = [s.session_id for s in reversed(every)]
    assert lazy.summaries([*ids, "not-a-session"]) == list(reversed(every))
    assert lazy.sessions() == every  # then every one, as a full refresh composes them
    assert lazy.activity() == {s.session_id: s.last_activity.timestamp() for s in every}
    lazy.close()
