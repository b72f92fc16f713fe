"""``cctui.fs.atomic``: whole replacements and whole appended lines."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cctui.fs.atomic import append_line, temp_glob, write_atomic


def test_append_line_makes_the_directory_on_the_first_line(tmp_path: Path) -> None:
    log = tmp_path / "state" / "audit" / "audit.jsonl"
    append_line(log, b'{"n": 1}\n')
    append_line(log, b'{"n": 2}\n')
    assert log.read_bytes() == b'{"n": 1}\n{"n": 2}\n'
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_append_line_to_a_directory_that_cannot_be_made_raises(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where the directory should be")
    with pytest.raises(OSError):
        append_line(tmp_path / "state" / "audit.jsonl", b"x\n")


def test_write_atomic_replaces_the_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sessions.json"
    target.write_text("old")
    write_atomic(target, "new", mode=0o644)
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert list(tmp_path.glob(temp_glob(target))) == []


def test_write_atomic_that_fails_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "sessions.json"
    target.write_text("old")
    with pytest.raises(TypeError):
        write_atomic(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert list(tmp_path.glob(temp_glob(target))) == []
