"""Safe paths, atomic writes, session state and change detection, below the MCP layer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cctui.projects import safepath
from cctui.projects.changes import diff, snapshot
from cctui.projects.errors import FileAlreadyExists, PathOutsideProject
from cctui.projects.jsonfile import JsonFile
from cctui.projects.safepath import open_read, write_file
from cctui.projects.state import Checkpoint, StateFile


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    (r / "docs").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return r


def test_a_link_swapped_in_after_the_check_is_not_followed(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The realpath check passed, then ``docs`` became a link out: the O_NOFOLLOW walk refuses."""
    real_resolve = safepath.resolve_inside

    def check_then_swap(r: Path | str, rel: str) -> tuple[Path, tuple[str, ...]]:
        result = real_resolve(r, rel)
        (root / "docs").rmdir()
        (root / "docs").symlink_to(tmp_path / "outside")
        return result

    monkeypatch.setattr(safepath, "resolve_inside", check_then_swap)
    with pytest.raises(PathOutsideProject), open_read(root, "docs/secret.txt"):
        pass
    (root / "docs").unlink()
    (root / "docs").mkdir()
    with pytest.raises(PathOutsideProject):
        write_file(root, "docs/secret.txt", b"pwned", mode="overwrite")
    assert (tmp_path / "outside" / "secret.txt").read_text() == "secret"


def test_final_component_swapped_for_a_link_is_refused(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "f.txt").write_text("mine")
    real_resolve = safepath.resolve_inside

    def check_then_swap(r: Path | str, rel: str) -> tuple[Path, tuple[str, ...]]:
        result = real_resolve(r, rel)
        (root / "f.txt").unlink()
        (root / "f.txt").symlink_to(tmp_path / "outside" / "secret.txt")
        return result

    monkeypatch.setattr(safepath, "resolve_inside", check_then_swap)
    with pytest.raises(PathOutsideProject), open_read(root, "f.txt"):
        pass


def test_writes_are_atomic_and_keep_the_mode(root: Path) -> None:
    target = root / "run.sh"
    first = write_file(root, "run.sh", b"#!/bin/sh\n", mode="create")
    assert first.action == "created" and first.path == target.resolve()
    target.chmod(0o755)
    inode = target.stat().st_ino
    again = write_file(root, "run.sh", b"echo hi\n", mode="append")
    assert again.action == "appended" and again.bytes == 8
    assert target.read_text() == "#!/bin/sh\necho hi\n"
    assert target.stat().st_ino != inode  # a new file replaced the old one in one rename
    assert target.stat().st_mode & 0o777 == 0o755
    with pytest.raises(FileAlreadyExists):
        write_file(root, "run.sh", b"x", mode="create")
    assert sorted(p.name for p in root.iterdir()) == ["docs", "run.sh"]  # no temp files left


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
    with pytest.raises(PathOutsideProject):
        StateFile(root)
    (root / ".claude").unlink()
    sf = StateFile(root)
    sf.add_checkpoint(Checkpoint(summary="one"))
    sf.add_checkpoint(Checkpoint(summary="two", next_actions=["next"]))
    state = sf.read()
    assert [c.summary for c in state.checkpoints] == ["one", "two"]


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


@pytest.mark.parametrize("repo", [True, False], ids=["git", "scan"])
def test_changes_found_by_git_and_by_scan(root: Path, repo: bool) -> None:
    (root / "kept.txt").write_text("same")
    (root / "edited.txt").write_text("v1")
    (root / "dirty.txt").write_text("v1")
    (root / "gone.txt").write_text("bye")
    if repo:
        (root / ".gitignore").write_text("ignored/\n")
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "init")
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
    from cctui.projects.errors import PathNotAccessible

    service = ProjectService(tmp_path / "projects.json", watch=False)
    service.register("p", str(root), project_id="p")
    (root / "a.txt").write_text("hello\n")
    lock = tmp_path / "projects.json.lock"
    lock.unlink()
    lock.mkdir()  # open(O_RDWR) on a directory fails, whoever we are (even root)
    assert service.read("p", "a.txt").content == "hello\n"
    with pytest.raises(PathNotAccessible):
        service.register("q", str(root), project_id="q")
