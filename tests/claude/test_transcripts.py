"""Finding a past session's transcript: through claude-agent-sdk when it reads the same
config directory, by a scan of cctui's own otherwise; both say where and when it began."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cctui.claude.transcripts import find_session

SID = "3f2a1b0c-1111-4222-8333-444455559999"
BEGAN = "2026-11-20T08:15:30.250Z"


def _write(config_dir: Path, cwd: Path, *, lines: list[str] | None = None) -> Path:
    folder = config_dir / "projects" / "-work-app"
    folder.mkdir(parents=True)
    entry = {
        "type": "user",
        "uuid": "u1",
        "sessionId": SID,
        "cwd": str(cwd),
        "timestamp": BEGAN,
        "message": {"role": "user", "content": "fix the flaky test"},
    }
    path = folder / f"{SID}.jsonl"
    path.write_text("".join(f"{line}\n" for line in [*(lines or []), json.dumps(entry)]))
    return path


@pytest.mark.parametrize("through_sdk", [True, False], ids=["sdk", "scan"])
def test_a_transcript_says_where_and_when_its_session_began(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, through_sdk: bool
) -> None:
    config_dir, cwd = tmp_path / "claude", tmp_path / "app"
    cwd.mkdir()
    _write(config_dir, cwd, lines=["{not json", json.dumps({"type": "summary"})])
    if through_sdk:
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    else:
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    found = find_session(SID, config_dir)
    assert found is not None
    assert found.cwd == cwd
    assert found.created_at == datetime(2026, 11, 20, 8, 15, 30, 250000, tzinfo=UTC)
    assert found.last_activity is not None and found.last_activity > found.created_at
    # Only the SDK reads a title (the first prompt); the scan reads the first lines only.
    assert found.title == ("fix the flaky test" if through_sdk else None)


def test_a_transcript_without_times_still_resumes(tmp_path: Path) -> None:
    config_dir, cwd = tmp_path / "claude", tmp_path / "app"
    folder = config_dir / "projects" / "-work-app"
    folder.mkdir(parents=True)
    entry = {"type": "user", "sessionId": SID, "cwd": str(cwd), "timestamp": "yesterday"}
    (folder / f"{SID}.jsonl").write_text(json.dumps(entry) + "\n")
    found = find_session(SID, config_dir)
    assert found is not None and found.cwd == cwd and found.created_at is None
