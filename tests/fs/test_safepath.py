"""The path policy and writes inside a root, below every room that uses them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cctui.fs import safepath
from cctui.fs.errors import FileAlreadyExists, PathRefused
from cctui.fs.safepath import locate, open_read, write_file


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
    with pytest.raises(PathRefused), open_read(root, "docs/secret.txt"):
        pass
    (root / "docs").unlink()
    (root / "docs").mkdir()
    with pytest.raises(PathRefused):
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
    with pytest.raises(PathRefused), open_read(root, "f.txt"):
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


def test_locate_takes_relative_and_absolute_paths_and_the_root_itself(
    root: Path, tmp_path: Path
) -> None:
    (root / "docs" / "a.md").write_text("a")
    real = Path(os.path.realpath(root))
    by_rel = locate("docs/a.md", [root])
    assert (by_rel.path, by_rel.root, by_rel.rel) == (real / "docs" / "a.md", real, "docs/a.md")
    assert locate(str(root / "docs" / "a.md"), [root]) == by_rel
    assert locate("a.md", [root], base=real / "docs") == by_rel
    assert locate(".", [root]).rel == "." and locate(str(root), [root]).parts == ()
    assert locate("docs/new/file.md", [root]).rel == "docs/new/file.md"  # need not exist yet
    with pytest.raises(PathRefused, match="outside the project root"):
        locate(str(tmp_path / "outside" / "secret.txt"), [root])
    with pytest.raises(PathRefused, match="outside the project root"):
        locate("docs/a.md", [])


def test_locate_finds_the_innermost_root_and_follows_an_aliased_root(
    root: Path, tmp_path: Path
) -> None:
    (root / "docs" / "a.md").write_text("a")
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    found = locate(str(alias / "docs" / "a.md"), [tmp_path / "elsewhere", alias, root / "docs"])
    assert found.root == Path(os.path.realpath(root / "docs")) and found.rel == "a.md"


def test_open_resolved_refuses_a_relative_path_and_a_link_on_the_way(
    root: Path, tmp_path: Path
) -> None:
    with pytest.raises(PathRefused), safepath.open_resolved(Path("docs/a.md"), "docs/a.md"):
        pass
    (root / "docs" / "a.md").write_text("inside")
    with safepath.open_resolved(locate("docs/a.md", [root]).path, "a") as (fh, st):
        assert fh.read() == b"inside" and st.st_size == 6
    (root / "out").symlink_to(tmp_path / "outside")
    unresolved = root / "out" / "secret.txt"  # as a caller might pass it, links unresolved
    with pytest.raises(PathRefused), safepath.open_resolved(unresolved, "out/secret.txt"):
        pass
