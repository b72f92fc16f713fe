"""One path policy: the same hostile path is refused, for the same reason, by every room that
takes a path from a caller — project files, the review menu and context sync."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cctui.errors import CctuiError, ValidationFailed
from cctui.fs import safepath
from cctui.fs.errors import PathRefused
from cctui.projects import ProjectService, context
from cctui.review.documents import PathGuard, PathNotAllowed, read_document

SECRET = "TOP-SECRET"

HOSTILE = {
    "nul": "docs/a.md\x00../../outside/secret.txt",
    "c1 control": "docs/a\x9b31mb.md",
    "bidi override": "docs/\u202edm.a",
    "bidi mark": "docs/\u200fa.md",
    "lookalike dots": "\uff0e\uff0e/outside/secret.txt",
    "lookalike slash": "..\u2215outside\u2215secret.txt",
    "percent-encoding": "%2e%2e/outside/secret.txt",
    "dot-dot out": "../outside/secret.txt",
    "dot-dot that stays inside": "docs/../docs/a.md",
    "backslash": "docs\\a.md",
    "home": "~/secret.txt",
    "symlinked dir out": "link_out/secret.txt",
    "symlinked file out": "file_link",
    "dotgit": ".git/config",
    "dotgit folded": ".G\u200cIT/config",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project with ``docs/a.md`` and links that lead out to ``outside/secret.txt``."""
    r = tmp_path / "root"
    (r / "docs").mkdir(parents=True)
    (r / "docs" / "a.md").write_text("inside\n")
    (r / ".git").mkdir()
    (r / ".git" / "config").write_text(SECRET)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    os.symlink(outside, r / "link_out")
    os.symlink(outside / "secret.txt", r / "file_link")
    return r


@pytest.fixture
def service(tmp_path: Path, root: Path) -> ProjectService:
    svc = ProjectService(tmp_path / "projects.json", watch=False)
    svc.register("p", str(root), project_id="p")
    return svc


def _why(raw: str, root: Path) -> str:
    """The policy's own reason for refusing ``raw`` under ``root``."""
    with pytest.raises(PathRefused) as info:
        safepath.resolve_inside(root, raw)
    return info.value.why


def _refusals(raw: str, root: Path, service: ProjectService) -> dict[str, CctuiError]:
    """What each room raises for ``raw``."""
    import asyncio

    found: dict[str, CctuiError] = {}
    with pytest.raises(PathRefused) as project:
        service.read("p", raw)
    found["project read"] = project.value
    with pytest.raises(PathNotAllowed) as review:
        PathGuard(lambda: [root]).check(raw, what="contract_path")
    found["review"] = review.value
    with pytest.raises(ValidationFailed) as ctx:
        asyncio.run(context.build(root, "files", ["docs/a.md", raw]))
    found["context"] = ctx.value
    return found


@pytest.mark.parametrize("raw", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_room_refuses_a_hostile_path_for_the_same_reason(
    raw: str, root: Path, service: ProjectService
) -> None:
    why = _why(raw, root)
    for room, exc in _refusals(raw, root, service).items():
        assert why in exc.message, (room, exc.message)
        assert SECRET not in exc.message


def test_an_absolute_path_out_is_refused_everywhere(
    root: Path, tmp_path: Path, service: ProjectService
) -> None:
    raw = str(tmp_path / "outside" / "secret.txt")
    found = _refusals(raw, root, service)
    assert "absolute paths are not allowed" in found["project read"].message
    assert "outside" in found["review"].message and "outside" in found["context"].message


async def test_a_plain_path_is_read_by_every_room(root: Path, service: ProjectService) -> None:
    """The refusals above are the policy, not a room that refuses everything."""
    assert service.read("p", "docs/a.md").content == "inside\n"
    located = PathGuard(lambda: [root]).check("docs/a.md")
    assert read_document(located, "docs/a.md").text == "inside\n"
    built = await context.build(root, "files", ["docs/a.md", str(root / "docs" / "a.md")])
    assert built.files_synced == 2 and "inside" in built.text


async def test_a_hard_link_to_an_outside_file_is_read_by_no_room(
    root: Path, tmp_path: Path, service: ProjectService
) -> None:
    os.link(tmp_path / "outside" / "secret.txt", root / "docs" / "hard.txt")
    with pytest.raises(PathRefused, match="hard links"):
        service.read("p", "docs/hard.txt")
    checked = PathGuard(lambda: [root]).check("docs/hard.txt")  # the path itself is fine
    with pytest.raises(PathNotAllowed, match="hard links"):
        read_document(checked, "docs/hard.txt")
    with pytest.raises(ValidationFailed, match="hard links"):
        await context.build(root, "files", ["docs/hard.txt"])


async def test_a_link_swapped_in_after_the_check_is_not_followed(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check passed, then ``docs`` became a link out: review and context refuse to open
    through it, as project reads do (tests/fs/test_safepath.py)."""
    (tmp_path / "outside" / "a.md").write_text(SECRET)
    checked = PathGuard(lambda: [root]).check("docs/a.md")

    def swap() -> None:
        (root / "docs" / "a.md").unlink()
        (root / "docs").rmdir()
        (root / "docs").symlink_to(tmp_path / "outside")

    swap()
    with pytest.raises(PathNotAllowed, match="link"):
        read_document(checked, "docs/a.md")

    (root / "docs").unlink()
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("inside\n")
    real_locate = safepath.locate

    def locate_then_swap(*args: object, **kwargs: object) -> safepath.Located:
        found = real_locate(*args, **kwargs)  # type: ignore[arg-type]
        swap()
        return found

    monkeypatch.setattr(safepath, "locate", locate_then_swap)
    with pytest.raises(ValidationFailed, match="link"):
        await context.build(root, "files", ["docs/a.md"])
