"""history.jsonl's prompts kept between runs (``cctui.history.prompt_cache``): a run restores
what an earlier one read and parses only the lines appended since, with the same sessions and
problems as a run that reads the file whole."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cctui.history import HistoryIndex, Problems, SessionSummary
from cctui.history.prompt_cache import VERSION
from tests.history.conftest import INTERACTIVE_ID, MULTI_ID, history_line

NEW_ID = "9d0e1f2a-3b4c-4d5e-8f60-718293a4b5c6"
SLASH_ID = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


@pytest.fixture
def home(claude_home: Path) -> Path:
    """The samples, plus prompts of every kind the fold treats apart: a session only
    history knows, one whose first prompt is a slash command, a prompt without a session
    id that a transcript spans, one no transcript spans, a corrupt line, a long prompt."""
    inside = datetime(2026, 11, 22, 7, 23, 44, tzinfo=UTC)  # the interactive transcript's span
    with (claude_home / "history.jsonl").open("a") as fh:
        fh.write(history_line("/model opus", 1795332300000, "/w/slash", SLASH_ID))
        fh.write(history_line("then the   real\n  task", 1795332300500, "/w/slash", SLASH_ID))
        fh.write(history_line("only in history " + "x" * 400, 1795332301000, "/w/new", NEW_ID))
        fh.write(history_line("old cli prompt", _ms(inside), "<tmp>/cci/proj", None))
        fh.write(history_line("nobody's", 1795332302000, "/w/nowhere", None))
        fh.write("{not json\n")
    return claude_home


def _read(home: Path, index_file: Path) -> tuple[list[SessionSummary], Problems, int]:
    """One run: sessions, problems, and the history.jsonl bytes it read."""
    index = HistoryIndex(home, index_file=index_file)
    try:
        index.refresh()
        return index.sessions(), index.problems, index.history.bytes_read
    finally:
        index.close()


def _whole(home: Path, tmp_path: Path) -> tuple[list[SessionSummary], Problems]:
    """What a run without any cache sees (a fresh index file each time)."""
    fresh = tmp_path / f"fresh-{len(list(tmp_path.glob('fresh-*')))}"
    fresh.mkdir()
    sessions, problems, _ = _read(home, fresh / "index.sqlite")
    (fresh / "index.sqlite.prompts").unlink(missing_ok=True)  # none without a history file
    return sessions, problems


def _cache(index_file: Path) -> Path:
    return index_file.with_name(index_file.name + ".prompts")


def test_a_second_run_reads_no_line_again_and_sees_the_same(home: Path, tmp_path: Path) -> None:
    index_file = tmp_path / "index.sqlite"
    size = (home / "history.jsonl").stat().st_size
    first = _read(home, index_file)
    assert first[2] == size and _cache(index_file).is_file()

    second = _read(home, index_file)

    assert second[2] == 0  # nothing parsed again
    assert second[:2] == first[:2] == _whole(home, tmp_path)
    by_id = {s.session_id: s for s in second[0]}
    assert by_id[SLASH_ID].title == "then the real task"  # not the slash command
    assert by_id[NEW_ID].prompt_count == 1
    assert by_id[INTERACTIVE_ID].prompt_count == 4  # its own three and the id-less one
    assert second[1].orphan_prompts == 1 and second[1].skipped_lines == 1


def test_lines_appended_since_are_read_alone(home: Path, tmp_path: Path) -> None:
    index_file = tmp_path / "index.sqlite"
    _read(home, index_file)
    added = history_line("more on it", 1795332400000, "/w/new", NEW_ID) + history_line(
        "/clear", 1795332400100, "/w/multi", MULTI_ID
    )
    with (home / "history.jsonl").open("a") as fh:
        fh.write(added)

    sessions, problems, read = _read(home, index_file)

    assert read == len(added.encode())
    assert (sessions, problems) == _whole(home, tmp_path)
    assert {s.session_id: s for s in sessions}[NEW_ID].prompt_count == 2
    # and the cache now holds them: the next run reads nothing
    assert _read(home, index_file)[2] == 0


def test_a_line_being_written_is_read_when_complete(home: Path, tmp_path: Path) -> None:
    index_file = tmp_path / "index.sqlite"
    line = history_line("half written", 1795332400000, "/w/new", NEW_ID)
    with (home / "history.jsonl").open("a") as fh:
        fh.write(line[:20])
    _read(home, index_file)
    with (home / "history.jsonl").open("a") as fh:
        fh.write(line[20:])

    sessions, problems, _ = _read(home, index_file)

    assert (sessions, problems) == _whole(home, tmp_path)
    assert problems.skipped_lines == 1  # the corrupt line only, not the half one


@pytest.mark.parametrize("how", ["rewritten", "truncated", "rotated", "removed"])
def test_a_history_file_changed_under_the_cache_is_read_whole(
    home: Path, tmp_path: Path, how: str
) -> None:
    index_file = tmp_path / "index.sqlite"
    _read(home, index_file)
    hist = home / "history.jsonl"
    lines = hist.read_text().splitlines(keepends=True)
    if how == "rewritten":  # same inode and size, other bytes before the offset
        with hist.open("r+") as fh:
            fh.write(lines[0].replace('"display":"', '"display":"X', 1)[:-2] + "\n")
    elif how == "truncated":
        with hist.open("r+") as fh:
            fh.truncate(len("".join(lines[:2]).encode()))
    elif how == "rotated":
        new = hist.with_suffix(".new")
        new.write_text("".join(lines) + history_line("after", 1795332500000, "/w/new", NEW_ID))
        os.replace(new, hist)
    else:
        hist.unlink()

    sessions, problems, read = _read(home, index_file)

    assert read == (hist.stat().st_size if hist.exists() else 0)  # whole, not from the offset
    assert (sessions, problems) == _whole(home, tmp_path)


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{not json",
        b"[1, 2]",
        json.dumps({"version": VERSION, "sessions": "x"}).encode(),
        json.dumps({"version": VERSION - 1}).encode(),
    ],
    ids=["empty", "not-json", "not-an-object", "damaged", "older-version"],
)
def test_a_damaged_or_older_cache_is_ignored_then_replaced(
    home: Path, tmp_path: Path, damage: bytes
) -> None:
    index_file = tmp_path / "index.sqlite"
    _read(home, index_file)
    _cache(index_file).write_bytes(damage)

    sessions, problems, read = _read(home, index_file)

    assert read == (home / "history.jsonl").stat().st_size
    assert (sessions, problems) == _whole(home, tmp_path)
    assert json.loads(_cache(index_file).read_bytes())["version"] == VERSION
    assert _read(home, index_file)[2] == 0


def test_a_cache_of_a_field_of_the_wrong_type_is_ignored(home: Path, tmp_path: Path) -> None:
    index_file = tmp_path / "index.sqlite"
    _read(home, index_file)
    data = json.loads(_cache(index_file).read_bytes())
    data["sessions"][0][3] = "many"  # the count
    _cache(index_file).write_text(json.dumps(data))

    sessions, problems, read = _read(home, index_file)

    assert read == (home / "history.jsonl").stat().st_size
    assert (sessions, problems) == _whole(home, tmp_path)


def test_an_id_less_prompt_follows_the_transcripts_of_the_run_that_restores_it(
    home: Path, tmp_path: Path
) -> None:
    """Attribution is not cached: a transcript gone since gives its prompt back, as a run
    reading the file whole would."""
    index_file = tmp_path / "index.sqlite"
    _read(home, index_file)
    for path in (home / "projects").glob(f"*/{INTERACTIVE_ID}.jsonl"):
        path.unlink()

    sessions, problems, read = _read(home, index_file)

    assert read == 0
    assert (sessions, problems) == _whole(home, tmp_path)
    assert problems.orphan_prompts == 2


def test_an_index_without_a_file_keeps_no_cache(home: Path, tmp_path: Path) -> None:
    index = HistoryIndex(home)
    index.refresh()
    index.close()
    assert not list(tmp_path.rglob("*.prompts"))


async def test_the_tuis_services_keep_the_cache_when_they_close(home: Path, tmp_path: Path) -> None:
    """The TUI's index is never closed (a refresh abandoned by a quit may still use it):
    closing the services keeps what it read, and the next start parses nothing again."""
    from cctui.config import load_settings
    from cctui.core import SessionManager
    from cctui.services import Services

    settings = load_settings(env={"HOME": str(tmp_path / "h")}, config_path=tmp_path / "no.toml")
    index_file = tmp_path / "index.sqlite"
    index = HistoryIndex(home, index_file=index_file)
    services = Services.build(settings, SessionManager(settings), history=index)
    try:
        index.load()
        await services.close()
        assert _cache(index_file).is_file()
        assert _read(home, index_file)[2] == 0
    finally:
        index.close()
