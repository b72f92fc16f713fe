"""A session's worktree and diff base survive a restart (the registry keeps them), and a
finished worktree is not shown as gone."""

from __future__ import annotations

from pathlib import Path

from cctui.core import SessionConfig, SessionRecord, SessionStatus, WorktreeInfo
from cctui.core.records import SessionRecords


def test_the_registry_keeps_the_worktree_and_the_base(tmp_path: Path) -> None:
    wt = WorktreeInfo(
        name="x",
        path=tmp_path / "repo" / ".claude" / "worktrees" / "x",
        branch="worktree-x",
        base_branch="main",
        base_commit="a" * 40,
        repo=tmp_path / "repo",
    )
    record = SessionRecord.fresh(
        "0a000000-0000-4000-8000-000000000001",
        SessionConfig(cwd=wt.path),
        title="t",
        status=SessionStatus.COMPLETED,
    ).model_copy(update={"worktree": wt, "base_commit": "a" * 40})
    SessionRecords(tmp_path).save([record])
    [loaded] = SessionRecords(tmp_path).load().values()
    assert loaded.worktree == wt and loaded.base_commit == "a" * 40
    # A record written before worktrees existed still loads.
    old = record.model_dump(mode="json")
    del old["worktree"], old["base_commit"]
    assert SessionRecord.model_validate(old).worktree is None
