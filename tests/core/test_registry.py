"""The registry file: atomic, merged between processes, tolerant of damage."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cctui.core.models import SessionConfig, SessionRecord
from cctui.core.registry import Registry
from cctui.core.states import SessionStatus


def record(sid: str, tmp_path: Path, **kw: object) -> SessionRecord:
    now = datetime.now(UTC)
    return SessionRecord(
        session_id=sid, config=SessionConfig(cwd=tmp_path), created_at=now, last_activity=now, **kw
    )  # type: ignore[arg-type]


def test_round_trip_and_merge(tmp_path: Path) -> None:
    a, b = Registry(tmp_path), Registry(tmp_path)
    a.save([record("one", tmp_path, title="first")])
    b.save([record("two", tmp_path, status=SessionStatus.ERROR)])
    loaded = Registry(tmp_path).load()
    assert set(loaded) == {"one", "two"}
    assert loaded["one"].title == "first" and loaded["two"].status == SessionStatus.ERROR
    a.save([], removed=["one"])
    assert set(a.load()) == {"two"}
    assert (tmp_path / "sessions.json").stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("*.tmp"))


def test_corrupt_file_is_set_aside(tmp_path: Path) -> None:
    (tmp_path / "sessions.json").write_text("{not json")
    registry = Registry(tmp_path)
    assert registry.load() == {}
    assert (tmp_path / "sessions.corrupt.json").exists()
    registry.save([record("one", tmp_path)])
    assert set(registry.load()) == {"one"}
