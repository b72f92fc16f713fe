"""The rewind verb over FakeDriver: prompt numbering, what is recorded, the refusals.

The CLI's own behaviour (snapshots, dry-run answers, files put back) is pinned against the
real CLI in ``tests/e2e/test_rewind.py``; these cover the core's side of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cctui.core import FilesRewoundEvent, SessionManager, SessionStatus, UserMessageEvent
from cctui.core.records import REGISTRY_FILE
from cctui.core.session.prompts import prompt_log_path
from cctui.errors import RewindUnavailable, SessionNotReady, ValidationFailed
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import FakeDriverFactory, fake_driver_factory, sleep, text

S = SessionStatus


async def two_turns(manager: SessionManager, project: Path) -> str:
    info = await manager.create("first", manager.default_config(project))
    assert (await manager.wait(info.session_id, 2)).reason == "turn_ended"
    await manager.send(info.session_id, "second")
    assert (await manager.wait(info.session_id, 2)).reason == "turn_ended"
    return info.session_id


async def test_prompts_are_numbered_and_sent_with_their_ids(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid = await two_turns(manager, project)
    marks = manager.prompts(sid)
    assert [(m.index, m.text, m.accepted) for m in marks] == [
        (0, "first", True),
        (1, "second", True),
    ]
    assert factory.drivers[0].accepted == [m.id for m in marks]
    users = [e for e in manager.events(sid).events if isinstance(e, UserMessageEvent)]
    assert [(e.prompt_index, e.prompt_id) for e in users] == [(m.index, m.id) for m in marks]
    assert factory.specs[0].file_checkpointing is True  # on by default


async def test_a_rewind_dry_runs_first_then_publishes(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid = await two_turns(manager, project)
    second = manager.prompts(sid)[1]
    preview = await manager.rewind_files(sid, prompt_index=1, dry_run=True, by="tui")
    assert preview.files == ("hello.txt",) and preview.prompt == second and not preview.rewound
    assert factory.drivers[0].rewinds == [(second.id, True)]
    assert not [e for e in manager.events(sid).events if isinstance(e, FilesRewoundEvent)]

    done = await manager.rewind_files(sid, prompt_id=second.id, by="mcp:x")
    assert done.rewound and done.files == ("hello.txt",)
    assert factory.drivers[0].rewinds[1:] == [(second.id, True), (second.id, False)]
    [event] = [e for e in manager.events(sid).events if isinstance(e, FilesRewoundEvent)]
    assert (event.prompt_index, event.by, event.files) == (1, "mcp:x", ("hello.txt",))
    [line] = [r for r in manager.audit.read() if r["event"] == "rewind"]
    assert line["by"] == "mcp:x" and line["outcome"] == "rewound" and line["files"] == ["hello.txt"]


async def test_target_must_be_one_known_prompt(manager: SessionManager, project: Path) -> None:
    sid = await two_turns(manager, project)
    for kwargs in ({}, {"prompt_index": 0, "prompt_id": manager.prompts(sid)[0].id}):
        with pytest.raises(ValidationFailed, match="exactly one"):
            await manager.rewind_files(sid, dry_run=True, by="t", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValidationFailed, match=r"no prompt 7: it has 2 \(0-1\)"):
        await manager.rewind_files(sid, prompt_index=7, dry_run=True, by="t")
    idle = await manager.create(None, manager.default_config(project))
    with pytest.raises(ValidationFailed, match="cctui has sent it none"):
        await manager.rewind_files(idle.session_id, prompt_index=0, dry_run=True, by="t")


async def test_a_prompt_the_cli_never_took_in(make_manager: MakeManager, project: Path) -> None:
    factory = fake_driver_factory({"slow": [sleep(30)], "*": [text("ok")]})
    manager = make_manager(factory)
    info = await manager.create("slow", manager.default_config(project))
    await manager.send(info.session_id, "queued behind the slow one")
    with pytest.raises(RewindUnavailable, match="never took that prompt in"):
        await manager.rewind_files(info.session_id, prompt_index=1, dry_run=True, by="t")
    with pytest.raises(SessionNotReady, match="running a turn"):
        await manager.rewind_files(info.session_id, prompt_index=0, by="t")


async def test_checkpointing_off_is_recorded_and_kept_by_a_resume(
    make_manager: MakeManager, project: Path, factory: FakeDriverFactory
) -> None:
    first = make_manager(file_checkpointing=False)
    sid = await two_turns(first, project)
    await first.shutdown()
    second = make_manager()  # checkpointing is on again for new sessions
    await second.start()
    assert second.get(sid).config.file_checkpointing is False
    assert [m.text for m in second.prompts(sid)] == ["first", "second"]
    with pytest.raises(RewindUnavailable, match="started without file checkpointing") as err:
        await second.rewind_files(sid, prompt_index=0, dry_run=True, by="t")
    assert err.value.code == "rewind_unavailable"
    await second.send(sid, "third")
    assert factory.specs[-1].resume == sid and factory.specs[-1].file_checkpointing is False
    assert [m.index for m in second.prompts(sid)] == [0, 1, 2]


async def test_an_ended_session_gets_a_process_for_the_rewind(
    make_manager: MakeManager, project: Path, factory: FakeDriverFactory
) -> None:
    first = make_manager()
    sid = await two_turns(first, project)
    await first.shutdown()
    second = make_manager()
    await second.start()
    # The fake's new process never took the old prompts in: it answers as the CLI would
    # for a checkpoint it lacks, which shows the request reached the resumed process.
    with pytest.raises(RewindUnavailable, match="Claude Code kept none for it"):
        await second.rewind_files(sid, prompt_index=1, dry_run=True, by="t")
    assert factory.specs[-1].resume == sid and factory.drivers[-1].rewinds
    info = second.get(sid)
    assert not info.is_active and info.status == S.COMPLETED


async def test_a_record_from_before_checkpoints_reads_as_without(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    first = make_manager()
    info = await first.create("old", first.default_config(project))
    await first.wait(info.session_id, 2)
    await first.shutdown()
    path = tmp_path / "state" / REGISTRY_FILE
    data = json.loads(path.read_text())
    [record] = data["sessions"]
    del record["config"]["file_checkpointing"]
    del record["prompts"]
    path.write_text(json.dumps(data))
    prompt_log_path(tmp_path / "state", info.session_id).unlink()
    second = make_manager()
    await second.start()
    assert second.get(info.session_id).config.file_checkpointing is False
    assert second.prompts(info.session_id) == []


async def test_the_prompt_log_is_a_file_of_its_own_and_the_registry_does_not_grow_with_it(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    """Every registry save reads and writes the file whole, on the event loop: a session's
    prompts (thousands, for an agent driving it) live in their own append-only file."""
    manager = make_manager()
    info = await manager.create("first", manager.default_config(project))
    await manager.wait(info.session_id, 2)
    manager.flush()
    registry = tmp_path / "state" / REGISTRY_FILE
    size = registry.stat().st_size
    for i in range(60):
        await manager.send(info.session_id, f"prompt {i} " + "words " * 30)
        await manager.wait(info.session_id, 2)
    manager.flush()
    assert registry.stat().st_size <= size + 20  # counters and times only
    log = prompt_log_path(tmp_path / "state", info.session_id)
    assert log.stat().st_mode & 0o777 == 0o600
    await manager.shutdown()
    again = make_manager()
    await again.start()
    marks = again.prompts(info.session_id)
    assert [m.index for m in marks] == list(range(61))
    assert marks[7].text.startswith("prompt 6 words") and all(m.accepted for m in marks)


async def test_a_torn_line_in_the_prompt_log_loses_only_that_line(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    manager = make_manager()
    sid = await two_turns(manager, project)
    await manager.shutdown()
    log = prompt_log_path(tmp_path / "state", sid)
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0], '{"index": 9, "id": "cut sh', *lines[1:]]) + "\n")
    again = make_manager()
    await again.start()
    assert [(m.index, m.text) for m in again.prompts(sid)] == [(0, "first"), (1, "second")]
    await again.send(sid, "third")  # numbering goes on after the last good prompt
    await again.wait(sid, 2)
    assert [m.index for m in again.prompts(sid)] == [0, 1, 2]


async def test_prompts_in_a_registry_record_from_before_the_log_are_moved_to_it(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    manager = make_manager()
    sid = await two_turns(manager, project)
    await manager.shutdown()
    marks = [m.model_dump(mode="json") for m in manager.prompts(sid)]
    log = prompt_log_path(tmp_path / "state", sid)
    log.unlink()
    registry = tmp_path / "state" / REGISTRY_FILE
    data = json.loads(registry.read_text())
    data["sessions"][0]["prompts"] = marks  # as an older cctui wrote it
    registry.write_text(json.dumps(data))
    again = make_manager()
    await again.start()
    assert [m.text for m in again.prompts(sid)] == ["first", "second"]
    assert len(log.read_text().splitlines()) == 2
    again.flush()
    await again.send(sid, "third")
    await again.wait(sid, 2)
    again.flush()
    assert json.loads(registry.read_text())["sessions"][0]["prompts"] == []
    assert [m.text for m in again.prompts(sid)] == ["first", "second", "third"]
