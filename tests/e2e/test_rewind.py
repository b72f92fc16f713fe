"""Rewinding files with the real bundled ``claude`` against the fake Messages API.

What it pins about the CLI (2.1.332): in SDK mode it snapshots files before each prompt
only with ``CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`` (the SDK's
``enable_file_checkpointing``), under the uuid cctui sent the prompt with; it answers a dry
run with the files and line counts; Bash's writes are not tracked; and a resumed process
can still rewind (the file history is copied on resume).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import FilesRewoundEvent, SessionManager, SessionStatus
from cctui.errors import RewindUnavailable, SessionNotReady, ValidationFailed

pytestmark = pytest.mark.e2e
S = SessionStatus

PROMPT_0 = "[[write path=a.txt content=one\\ntwo]]"
PROMPT_1 = (
    "[[write path=a.txt content=one\\nTWO\\nthree]] [[write path=b.txt content=bee]] "
    "[[bash cmd=echo sh > c.txt]]"
)


def settings_for(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path, **kw: Any
) -> Settings:
    return Settings(
        claude_code_path=claude_bin,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=tmp_path / "state",
        permission_timeout_ms=30_000,
        allowed_tools=("Bash(echo *)", "Bash(python3 *)"),
        **kw,
    )


@pytest.fixture
async def manager(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path
) -> AsyncIterator[SessionManager]:
    m = SessionManager(settings_for(claude_env, claude_bin, tmp_path))
    await m.start()
    yield m
    await m.shutdown()


async def two_prompts(manager: SessionManager, project_dir: Path) -> str:
    """A session that writes a.txt in prompt 0, then changes it, writes b.txt and (by Bash)
    c.txt in prompt 1; returns its id once both turns ended."""
    config = manager.default_config(project_dir, permission_mode="acceptEdits")
    info = await manager.create(PROMPT_0, config)
    sid = info.session_id
    assert (await manager.wait(sid, 30)).reason == "turn_ended"
    assert (project_dir / "a.txt").read_text() == "one\ntwo"
    await manager.send(sid, PROMPT_1)
    assert (await manager.wait(sid, 30)).reason == "turn_ended"
    assert (project_dir / "a.txt").read_text() == "one\nTWO\nthree"
    assert (project_dir / "b.txt").read_text() == "bee"
    assert (project_dir / "c.txt").read_text().strip() == "sh"
    return sid


def snapshots(config_dir: Path, sid: str) -> list[dict[str, Any]]:
    """The transcript's ``file-history-snapshot`` lines."""
    [path] = list((config_dir / "projects").rglob(f"{sid}.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [d for d in lines if d.get("type") == "file-history-snapshot"]


async def test_dry_run_then_rewind_to_prompt_1(
    manager: SessionManager, project_dir: Path, claude_env: dict[str, str]
) -> None:
    sid = await two_prompts(manager, project_dir)
    marks = manager.prompts(sid)
    assert [m.index for m in marks] == [0, 1] and all(m.accepted for m in marks)
    # The CLI snapshotted each prompt under the uuid cctui sent it with.
    config_dir = Path(claude_env["CLAUDE_CONFIG_DIR"])
    assert [s["messageId"] for s in snapshots(config_dir, sid)] == [m.id for m in marks]

    preview = await manager.rewind_files(sid, prompt_index=1, dry_run=True, by="test")
    assert preview.dry_run and not preview.rewound
    assert preview.prompt is not None and preview.prompt.id == marks[1].id
    assert sorted(Path(f).name for f in preview.files) == ["a.txt", "b.txt"]
    # a.txt "one\nTWO\nthree" -> "one\ntwo" (+1 -2), b.txt removed (-1); c.txt is Bash's.
    assert (preview.insertions, preview.deletions) == (1, 3)
    assert (project_dir / "a.txt").read_text() == "one\nTWO\nthree"  # a dry run changes nothing

    done = await manager.rewind_files(sid, prompt_index=1, by="test")
    assert done.rewound and not done.dry_run and done.files == preview.files
    assert (project_dir / "a.txt").read_text() == "one\ntwo"
    assert not (project_dir / "b.txt").exists()
    assert (project_dir / "c.txt").read_text().strip() == "sh"  # Bash edits are not tracked
    [event] = [e for e in manager.events(sid).events if isinstance(e, FilesRewoundEvent)]
    assert event.prompt_index == 1 and event.by == "test" and len(event.files) == 2
    [line] = [r for r in manager.audit.read() if r["event"] == "rewind"]
    assert line["outcome"] == "rewound" and line["prompt_index"] == 1 and line["by"] == "test"

    # By id, to before the first prompt: a.txt did not exist then.
    await manager.rewind_files(sid, prompt_id=marks[0].id, by="test")
    assert not (project_dir / "a.txt").exists()
    assert manager.get(sid).status == S.IDLE  # the process lives on


async def test_unknown_prompts_are_refused_with_a_reason(
    manager: SessionManager, project_dir: Path
) -> None:
    sid = await two_prompts(manager, project_dir)
    with pytest.raises(ValidationFailed, match=r"no prompt 2: it has 2 \(0-1\)"):
        await manager.rewind_files(sid, prompt_index=2, dry_run=True, by="test")
    with pytest.raises(ValidationFailed, match="not a UUID"):
        await manager.rewind_files(sid, prompt_id="nope", dry_run=True, by="test")
    stranger = str(uuid.uuid4())
    with pytest.raises(RewindUnavailable, match="not a prompt cctui sent") as err:
        await manager.rewind_files(sid, prompt_id=stranger, by="test")
    assert err.value.code == "rewind_unavailable"
    assert (project_dir / "a.txt").read_text() == "one\nTWO\nthree"
    [line] = [r for r in manager.audit.read() if r["event"] == "rewind"]
    assert line["outcome"] == "rewind_unavailable" and line["prompt_id"] == stranger


async def test_rewind_after_the_process_ended(manager: SessionManager, project_dir: Path) -> None:
    sid = await two_prompts(manager, project_dir)
    await manager.kill(sid)
    assert not manager.get(sid).is_active
    preview = await manager.rewind_files(sid, prompt_index=1, dry_run=True, by="test")
    assert sorted(Path(f).name for f in preview.files) == ["a.txt", "b.txt"]
    await manager.rewind_files(sid, prompt_index=1, by="test")
    assert (project_dir / "a.txt").read_text() == "one\ntwo"
    info = manager.get(sid)  # the process started for the rewind is ended again
    assert not info.is_active and info.status == S.COMPLETED


async def test_without_checkpointing(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path, project_dir: Path
) -> None:
    settings = settings_for(claude_env, claude_bin, tmp_path, file_checkpointing=False)
    manager = SessionManager(settings)
    await manager.start()
    try:
        sid = await two_prompts(manager, project_dir)
        assert manager.get(sid).config.file_checkpointing is False
        with pytest.raises(RewindUnavailable, match="started without file checkpointing"):
            await manager.rewind_files(sid, prompt_index=0, dry_run=True, by="test")
        # Nor did the CLI snapshot anything: the variable is what turns it on in SDK mode.
        assert snapshots(Path(claude_env["CLAUDE_CONFIG_DIR"]), sid) == []
    finally:
        await manager.shutdown()


async def test_cli_refuses_when_checkpointing_is_disabled_in_its_environment(
    manager: SessionManager, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_FILE_CHECKPOINTING", "1")
    sid = await two_prompts(manager, project_dir)
    with pytest.raises(RewindUnavailable, match="CLAUDE_CODE_DISABLE_FILE_CHECKPOINTING"):
        await manager.rewind_files(sid, prompt_index=1, dry_run=True, by="test")


async def test_real_run_refused_while_a_turn_runs(
    manager: SessionManager, project_dir: Path
) -> None:
    sid = await two_prompts(manager, project_dir)
    await manager.send(sid, "[[sleep-bash seconds=20]]")
    with pytest.raises(SessionNotReady, match="running a turn"):
        await manager.rewind_files(sid, prompt_index=1, by="test")
    # A dry run is only a look: allowed.
    preview = await manager.rewind_files(sid, prompt_index=1, dry_run=True, by="test")
    assert len(preview.files) == 2
    await manager.interrupt(sid, wait_s=10)
