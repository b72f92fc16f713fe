"""The registry file: atomic, merged between processes, tolerant of damage."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cctui.core.records import SessionRecords
from cctui.core.session.models import SessionConfig, SessionRecord
from cctui.core.session.states import SessionStatus


def record(sid: str, tmp_path: Path, **kw: object) -> SessionRecord:
    now = datetime.now(UTC)
    return SessionRecord(
        session_id=sid, config=SessionConfig(cwd=tmp_path), created_at=now, last_activity=now, **kw
    )


def test_round_trip_and_merge(tmp_path: Path) -> None:
    a, b = SessionRecords(tmp_path), SessionRecords(tmp_path)
    a.save([record("one", tmp_path, title="first")])
    b.save([record("two", tmp_path, status=SessionStatus.ERROR)])
    loaded = SessionRecords(tmp_path).load()
    assert set(loaded) == {"one", "two"}
    assert loaded["one"].title == "first" and loaded["two"].status == SessionStatus.ERROR
    a.save([], removed=["one"])
    assert set(a.load()) == {"two"}
    assert (tmp_path / "sessions.json").stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("*.tmp"))


def test_saves_in_turn_with_another_writer_keep_both_and_reread_only_when_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save reuses what this registry last read or wrote (no re-parse on every save),
    unless another process replaced the file since."""
    a, b = SessionRecords(tmp_path), SessionRecords(tmp_path)
    parses: list[SessionRecords] = []
    original = SessionRecords._parse

    def counted(self: SessionRecords) -> tuple[dict[str, SessionRecord], dict[str, int]]:
        parses.append(self)
        return original(self)

    monkeypatch.setattr(SessionRecords, "_parse", counted)
    a.save([record("one", tmp_path, num_turns=1)])
    b.load()
    for turn in range(2, 6):  # b writes between a's saves
        b.save([record("two", tmp_path, num_turns=turn)])
        a.save([record("one", tmp_path, num_turns=turn)])
    loaded = SessionRecords(tmp_path).load()
    assert (loaded["one"].num_turns, loaded["two"].num_turns) == (5, 5)
    parses.clear()
    for turn in range(6, 10):  # nobody else writes: nothing is parsed again
        a.save([record("one", tmp_path, num_turns=turn)])
    assert parses == [] and SessionRecords(tmp_path).load()["one"].num_turns == 9
    assert json.loads((tmp_path / "sessions.json").read_text())["version"] == 1


def test_corrupt_file_is_set_aside(tmp_path: Path) -> None:
    (tmp_path / "sessions.json").write_text("{not json")
    registry = SessionRecords(tmp_path)
    assert registry.load() == {}
    [aside] = tmp_path.glob("sessions.json.bad-*")
    assert aside.read_text() == "{not json"
    assert registry.problems and str(aside) in registry.problems[0]
    registry.save([record("one", tmp_path)])
    assert set(registry.load()) == {"one"}


@pytest.mark.parametrize("damage", ["utf8", "directory", "unreadable"])
def test_unreadable_registry_does_not_stop_cctui(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "sessions.json"
    if damage == "utf8":
        path.write_bytes(b'{"version": 1, "sessions": [\xff\xfe]}')
    elif damage == "directory":
        path.mkdir()
    else:
        if os.geteuid() == 0:
            pytest.skip("root reads any file")
        path.write_text("{}")
        path.chmod(0)
    registry = SessionRecords(tmp_path)
    assert registry.load() == {}
    assert registry.problems, "the damage is reported"
    registry.save([record("one", tmp_path)])
    assert set(SessionRecords(tmp_path).load()) == {"one"}
    assert list(tmp_path.glob("sessions.json.bad-*")), "the bad file is kept aside"


def test_unusable_state_directory_is_reported_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")
    registry = SessionRecords(blocker)
    assert registry.load() == {}
    assert registry.problems


def test_one_invalid_record_keeps_the_others(tmp_path: Path) -> None:
    good = record("good", tmp_path).model_dump(mode="json")
    body = {"version": 1, "sessions": [good, {"session_id": "bad", "config": "nope"}]}
    (tmp_path / "sessions.json").write_text(json.dumps(body))
    registry = SessionRecords(tmp_path)
    assert set(registry.load()) == {"good"}
    assert registry.problems
    registry.save([record("new", tmp_path)])
    kept = json.loads((tmp_path / "sessions.json").read_text())["sessions"]
    assert {r["session_id"] for r in kept} == {"good", "bad", "new"}  # nothing dropped


@pytest.mark.slow
def test_kill_9_during_writes_always_leaves_a_parseable_file(tmp_path: Path) -> None:
    """200 writers killed with SIGKILL at random moments: the file is always old or new."""
    rng = random.Random(8)
    SessionRecords(tmp_path).save([record("seed", tmp_path)])
    for n in range(200):
        pid = os.fork()
        if pid == 0:  # the child writes as fast as it can until it is killed
            try:
                registry = SessionRecords(tmp_path)
                i = 0
                while True:
                    i += 1
                    registry.save([record(f"r{n}-{i % 5}", tmp_path, title="x" * (i % 300))])
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0, 0.01))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        loaded = SessionRecords(
            tmp_path
        ).load()  # parses (else it would be set aside: checked below)
        assert "seed" in loaded
    assert not list(tmp_path.glob("sessions.json.bad-*"))


async def test_two_cctui_processes_keep_each_others_records(tmp_path: Path) -> None:
    """A cctui that only listed another one's session does not write it back stale."""
    from cctui.core.manager import SessionManager
    from tests.fakes.fake_driver import fake_driver_factory
    from tests.fakes.settings import make_settings

    settings = make_settings(tmp_path)
    other = SessionRecords(settings.state_dir)
    other.save([record("theirs", tmp_path, title="old")])
    mine = SessionManager(settings, driver_factory=fake_driver_factory())
    await mine.start()
    assert mine.get("theirs").title == "old"
    other.save([record("theirs", tmp_path, title="new")])  # the other process moves on
    await mine.shutdown()
    assert SessionRecords(settings.state_dir).load()["theirs"].title == "new"


async def test_damage_and_audit_failures_are_reported(tmp_path: Path) -> None:
    from cctui.core import Decision
    from cctui.core.manager import SessionManager
    from tests.fakes.fake_driver import fake_driver_factory
    from tests.fakes.settings import make_settings

    settings = make_settings(tmp_path)
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    (settings.state_dir / "sessions.json").write_bytes(b"\xff\xfe")
    (settings.state_dir / "audit.jsonl").mkdir()  # every append fails
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    await manager.start()
    try:
        assert any("unreadable" in p for p in manager.problems)
        project = tmp_path / "p"
        project.mkdir()
        info = await manager.create("write", manager.default_config(project))
        [item] = (await manager.wait(info.session_id, 5)).pending
        manager.respond(item.id, Decision(behavior="allow"), "tui")
        assert manager.audit.failures >= 1
        assert any("audit log" in p for p in manager.problems)
    finally:
        await manager.shutdown()
