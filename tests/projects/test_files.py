"""Project files below the MCP layer: the JSON file lock, session state, change detection.

(Safe paths and writes inside a root are cctui.fs's: tests/fs/test_safepath.py.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cctui.fs.errors import PathNotAccessible, PathRefused
from cctui.projects.changes import diff, snapshot
from cctui.projects.jsonfile import JsonFile
from cctui.projects.state import Checkpoint, StateFile
from tests.helpers import git


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    (r / "docs").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return r


@pytest.mark.process
def test_jsonfile_update_is_serialised_across_processes(tmp_path: Path) -> None:
    """Two processes incrementing a counter 200 times each under the lock lose nothing."""
    path = tmp_path / "counter.json"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from cctui.projects.jsonfile import JsonFile\n"
        "f = JsonFile(Path(sys.argv[1]))\n"
        "for _ in range(200):\n"
        "    f.update(lambda d: {'n': (d or {}).get('n', 0) + 1})\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path)]) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    assert JsonFile(path).read() == {"n": 400}


def test_state_file_may_not_be_a_link_out(root: Path, tmp_path: Path) -> None:
    (root / ".claude").symlink_to(tmp_path / "outside")
    with pytest.raises(PathRefused):
        StateFile(root)
    (root / ".claude").unlink()
    sf = StateFile(root)
    sf.add_checkpoint(Checkpoint(summary="one"))
    sf.add_checkpoint(Checkpoint(summary="two", next_actions=["next"]))
    state = sf.read()
    assert [c.summary for c in state.checkpoints] == ["one", "two"]


@pytest.mark.parametrize("repo", [True, False], ids=["git", "scan"])
def test_changes_found_by_git_and_by_scan(root: Path, repo: bool) -> None:
    (root / "kept.txt").write_text("same")
    (root / "edited.txt").write_text("v1")
    (root / "dirty.txt").write_text("v1")
    (root / "gone.txt").write_text("bye")
    if repo:
        (root / ".gitignore").write_text("ignored/\n")
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
        (root / "dirty.txt").write_text("v2 already dirty")
    before = snapshot(root)
    assert before.source == ("git" if repo else "scan")
    (root / "edited.txt").write_text("v2")
    (root / "dirty.txt").write_text("v3, edited again")
    (root / "src").mkdir()
    (root / "src" / "new.py").write_text("x")
    (root / "gone.txt").unlink()
    if repo:
        (root / "ignored").mkdir()
        (root / "ignored" / "cache.bin").write_text("x")
    changes = diff(root, before, snapshot(root))
    assert changes.created == ["src/new.py"]
    assert changes.modified == ["dirty.txt", "edited.txt"]
    assert changes.deleted == ["gone.txt"]


async def test_an_unanswered_confirmation_cancels_at_the_timeout(tmp_path: Path) -> None:
    from cctui.core import SessionManager
    from tests.fakes.settings import make_settings

    manager = SessionManager(make_settings(tmp_path))
    await manager.start()
    try:
        choice = await manager.confirm(
            "project:p", "File exists", "f exists", ("overwrite", "cancel"), timeout_s=0.2
        )
        assert manager.pending() == []
    finally:
        await manager.shutdown()
    assert choice == ("cancel", "timeout")
    record = [r for r in manager.audit.read() if r["event"] == "decision"][-1]
    assert (record["decision"], record["decided_by"]) == ("cancel", "timeout")


def test_an_unwritable_registry_still_lets_projects_be_read(tmp_path: Path, root: Path) -> None:
    """Recording lastAccessed fails (the lock cannot be taken): reads still work, writes to
    the registry report the problem."""
    from cctui.projects import ProjectService

    service = ProjectService(tmp_path / "projects.json", watch=False)
    service.register("p", str(root), project_id="p")
    (root / "a.txt").write_text("hello\n")
    lock = tmp_path / "projects.json.lock"
    lock.unlink()
    lock.mkdir()  # open(O_RDWR) on a directory fails, whoever we are (even root)
    assert service.read("p", "a.txt").content == "hello\n"
    with pytest.raises(PathNotAccessible):
        service.register("q", str(root), project_id="q")
