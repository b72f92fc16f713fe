"""Path checks and document reading: every caller path stays inside an allowed root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cctui.review.documents import (
    MAX_FILE_CHARS,
    DocumentNotFound,
    InvalidContract,
    PathGuard,
    PathNotAllowed,
    changed_files,
    load_contract,
    read_document,
    read_documents,
    task_id,
)
from tests.review.conftest import CONTRACT


@pytest.fixture
def guard(project: Path) -> PathGuard:
    return PathGuard(lambda: [project])


def test_paths_inside_the_root_resolve(guard: PathGuard, project: Path, handoff: Path) -> None:
    assert guard.check(str(handoff)) == handoff
    assert guard.check("_handoff/TASK_CONTRACT.json") == handoff  # relative to the first root
    assert guard.check("greet.py", base=project / "src") == project / "src" / "greet.py"
    assert guard.check("./src//greet.py") == project / "src" / "greet.py"
    assert guard.check(".") == project  # a working directory may be the root itself


@pytest.mark.parametrize(
    "raw",
    [
        "../outside.txt",
        "src/../../outside.txt",
        "/etc/passwd",
        "/",
        "",
        "   ",
        "a\x00b",
        "link-out/secret.txt",
        "link-out",
        # The one path policy (cctui.fs.safepath): refused even where they would stay inside.
        "src/../src/greet.py",
        "~/greet.py",
        "src/%2e%2e/greet.py",
        "src\\greet.py",
        "src/\u202egreet.py",
        "src\uff0fgreet.py",
        ".git/config",
        "src/.GIT/config",
    ],
)
def test_paths_outside_every_root_are_refused(
    guard: PathGuard, project: Path, tmp_path: Path, raw: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("s3cret")
    if not (project / "link-out").exists():
        os.symlink(outside, project / "link-out")
    with pytest.raises(PathNotAllowed) as info:
        guard.check(raw, what="contract_path")
    assert info.value.code == "path_not_allowed"


def test_a_root_that_is_a_symlink_still_matches(tmp_path: Path, project: Path) -> None:
    alias = tmp_path / "alias"
    os.symlink(project, alias)
    (project / "a.txt").write_text("a")
    assert PathGuard(lambda: [alias]).check(str(alias / "a.txt")) == project / "a.txt"


def test_a_sibling_with_a_common_prefix_is_outside(tmp_path: Path, project: Path) -> None:
    sibling = tmp_path / "proj-evil"
    sibling.mkdir()
    with pytest.raises(PathNotAllowed):
        PathGuard(lambda: [project]).check(str(sibling / "x"))


def test_project_root_is_the_parent_of_handoff_else_the_innermost_root(
    tmp_path: Path, project: Path, handoff: Path
) -> None:
    guard = PathGuard(lambda: [tmp_path, project])
    assert guard.project_root(handoff) == project
    (project / "docs").mkdir()
    assert guard.project_root(project / "docs" / "p.md") == project
    assert PathGuard(lambda: [tmp_path]).project_root(tmp_path / "x.md") == tmp_path


def test_changed_files_are_found_where_contracts_put_them() -> None:
    assert changed_files(CONTRACT) == ["src/greet.py", "src/gone.py"]
    assert changed_files(
        {
            "changed_files": ["a.py", {"path": "b.py"}],
            "specification": {"target_file": "c.py", "files_changed": ["a.py"]},
        }
    ) == ["a.py", "b.py", "c.py"]
    assert changed_files({"specification": "prose only"}) == []
    assert task_id(CONTRACT) == "T-42" and task_id({}) is None


def test_contract_must_be_a_json_object(project: Path) -> None:
    bad = project / "c.json"
    bad.write_text("not json")
    with pytest.raises(InvalidContract):
        load_contract(bad, "c.json")
    bad.write_text("[1, 2]")
    with pytest.raises(InvalidContract):
        load_contract(bad, "c.json")
    with pytest.raises(DocumentNotFound):
        load_contract(project / "missing.json", "missing.json")
    with pytest.raises(DocumentNotFound):
        load_contract(project, "a directory")


def test_documents_are_limited_and_binary_is_left_out(project: Path) -> None:
    big = project / "big.txt"
    big.write_text("x" * (MAX_FILE_CHARS + 10))
    doc = read_document(big, "big.txt")
    assert doc.truncated and len(doc.text or "") == MAX_FILE_CHARS
    blob = project / "blob.bin"
    blob.write_bytes(b"\x89PNG\x00\x00data")
    assert read_document(blob, "blob.bin").text == "(binary file, not included)"
    docs = read_documents([(project / "gone.py", "gone.py"), (big, "big.txt"), (project, "d")])
    assert docs[0].text is None and docs[1].truncated
    assert (docs[2].text or "").startswith("(a directory")
