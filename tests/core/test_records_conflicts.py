"""Two cctui processes on one state directory, and a damaged record read again and again."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cctui.core.manager import SessionManager
from cctui.core.records import SessionRecords
from cctui.core.session.models import SessionConfig, SessionRecord
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def record(sid: str, tmp_path: Path, at: datetime, **kw: object) -> SessionRecord:
    return SessionRecord(
        session_id=sid, config=SessionConfig(cwd=tmp_path), created_at=T0, last_activity=at, **kw
    )


async def test_a_stale_copy_does_not_overwrite_the_process_that_resumed_it(
    tmp_path: Path,
) -> None:
    """A runs a session, B resumes it; A's shutdown must not bring back A's older record."""
    project = tmp_path / "p"
    project.mkdir()
    settings = make_settings(tmp_path, default_cwd=project)
    a = SessionManager(settings, driver_factory=fake_driver_factory())
    b = SessionManager(settings, driver_factory=fake_driver_factory())
    try:
        await a.start()
        info = await a.create("hello", a.default_config(project))
        sid = info.session_id
        await a.wait(sid, 5)
        await a.end(sid)
        a.flush()
        assert SessionRecords(settings.state_dir).load()[sid].num_turns == 1

        await b.start()
        await b.send(sid, "hello again")
        await b.wait(sid, 5)
        await b.end(sid)
        await b.shutdown()
        after_b = SessionRecords(settings.state_dir).load()[sid]
        assert after_b.num_turns == 2
        inode_after_b = (settings.state_dir / "sessions.json").stat().st_ino

        await a.shutdown()  # A's copy still says one turn
        assert SessionRecords(settings.state_dir).load()[sid] == after_b
        # A changed nothing since it last wrote: it does not write at all (a write replaces
        # the file, so its inode would change).
        assert (settings.state_dir / "sessions.json").stat().st_ino == inode_after_b
    finally:
        await a.shutdown()
        await b.shutdown()


def test_on_a_conflict_the_record_with_later_activity_is_kept(tmp_path: Path) -> None:
    a, b = SessionRecords(tmp_path), SessionRecords(tmp_path)
    a.save([record("s", tmp_path, T0, num_turns=1)])
    assert a.load()["s"].num_turns == 1 and b.load()["s"].num_turns == 1

    b.save([record("s", tmp_path, T0 + timedelta(minutes=1), num_turns=2)])
    a.save([record("s", tmp_path, T0, num_turns=1, title="stale")])  # A never saw B's write
    assert SessionRecords(tmp_path).load()["s"].num_turns == 2, "the older copy lost"

    a.save([record("s", tmp_path, T0 + timedelta(minutes=2), num_turns=3)])
    assert SessionRecords(tmp_path).load()["s"].num_turns == 3, "a newer copy wins the conflict"

    # A process's own writes never conflict, whatever their activity times say.
    a.save([record("s", tmp_path, T0, num_turns=3, title="renamed")])
    assert SessionRecords(tmp_path).load()["s"].title == "renamed"


def test_a_record_written_elsewhere_before_we_ever_saw_it_is_not_replaced_by_an_older_one(
    tmp_path: Path,
) -> None:
    SessionRecords(tmp_path).save(
        [record("s", tmp_path, T0 + timedelta(minutes=1), title="theirs")]
    )
    SessionRecords(tmp_path).save([record("s", tmp_path, T0, title="ours")])
    assert SessionRecords(tmp_path).load()["s"].title == "theirs"


def test_an_invalid_record_is_reported_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    body = {"version": 1, "sessions": [{"session_id": "bad", "config": "x"}]}
    (tmp_path / "sessions.json").write_text(json.dumps(body))
    registry = SessionRecords(tmp_path)
    with caplog.at_level(logging.ERROR, logger="cctui.core.records"):
        registry.load()
        for n in range(5):
            registry.save([record(f"r{n}", tmp_path, T0)])
        registry.load()
    assert len(registry.problems) == 1
    assert len([r for r in caplog.records if "invalid record" in r.getMessage()]) == 1
    kept = json.loads((tmp_path / "sessions.json").read_text())["sessions"]
    assert "bad" in {r["session_id"] for r in kept}, "it stays in the file"
