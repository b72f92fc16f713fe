"""File trees: git and walker agree on what is ignored; the cache refreshes on change."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from cctui.projects.tree import TreeCache, _Ignore, build, watched_dirs


def make_project(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("a")
    (root / "README.md").write_text("r")
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("x")
    (root / "app.log").write_text("x")
    (root / "docs" / "gen").mkdir(parents=True)
    (root / "docs" / "gen" / "out.html").write_text("x")
    (root / "docs" / "keep.md").write_text("k")
    (root / ".gitignore").write_text("# deps\nnode_modules/\n*.log\ndocs/gen\n")
    (root / "link").symlink_to("README.md")


@pytest.mark.parametrize("repo", [True, False], ids=["git", "walk"])
def test_tree_leaves_out_git_and_ignored(tmp_path: Path, repo: bool) -> None:
    root = tmp_path / "p"
    root.mkdir()
    make_project(root)
    if repo:
        subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    else:
        (root / ".git").mkdir()  # a stray .git dir that is not a repo is skipped too
        (root / ".git" / "HEAD").write_text("x")
    tree = build(root)
    assert tree.source == ("git" if repo else "walk")
    paths = [e.path for e in tree.entries]
    assert paths == sorted(paths)
    assert set(paths) == {
        ".gitignore", "README.md", "docs/", "docs/keep.md", "link", "src/", "src/pkg/",
        "src/pkg/a.py",
    }  # fmt: skip
    by_path = {e.path: e for e in tree.entries}
    assert by_path["link"].type == "symlink"
    assert by_path["src/pkg/a.py"].size == 1 and by_path["src/"].type == "directory"
    assert tree.files == 5


async def test_cache_serves_cached_and_refreshes_on_change(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "one.txt").write_text("1")
    tasks: list[asyncio.Task[object]] = []
    cache = TreeCache(tasks.append, debounce_s=0.05)
    try:
        first = await cache.get("p", root)
        assert [e.path for e in first.entries] == ["one.txt"]
        assert await cache.get("p", root) is first  # warm: the same object, no rebuild
        (root / "two.txt").write_text("2")
        for _ in range(600):  # the watcher notices and rebuilds in the background
            tree = cache.peek("p")
            if tree is not None and any(e.path == "two.txt" for e in tree.entries):
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the tree never picked up two.txt")
        assert cache.changes("p") >= 1
        os.remove(root / "one.txt")
        cache.invalidate("p")  # what write_to_project does; fresh=True waits for it
        fresh = await cache.get("p", root, fresh=True)
        assert [e.path for e in fresh.entries] == ["two.txt"]
    finally:
        await cache.close()
    assert all(t.done() for t in tasks)  # close() leaves no watcher or build running


def test_the_watcher_watches_what_the_tree_lists_and_never_through_a_link(tmp_path: Path) -> None:
    """A recursive watch follows links: a project holding a link to ``/`` had the watcher add
    every directory of the disk (30 s with the event loop blocked, and the user's inotify
    watches spent). Each directory the walk lists is watched on its own instead."""
    root = tmp_path / "p"
    root.mkdir()
    make_project(root)
    (root / ".git" / "objects").mkdir(parents=True)
    (tmp_path / "outside" / "deep").mkdir(parents=True)
    (root / "to_slash").symlink_to("/")
    (root / "out").symlink_to(tmp_path / "outside")
    (root / "src" / "up").symlink_to("..")
    watched = {os.path.relpath(d, root) for d in watched_dirs(root, _Ignore(root))}
    assert watched == {".", "src", "src/pkg", "docs"}  # not node_modules, docs/gen, .git, links
    assert watched_dirs(root, _Ignore(root), "node_modules") == []  # made later, still left out
    assert watched_dirs(root, _Ignore(root), "src") == [str(root / "src"), str(root / "src/pkg")]


async def test_a_directory_made_after_the_watch_began_is_watched_too(tmp_path: Path) -> None:
    """Directories are watched one by one, so a new one must be taken in: a file written into
    it long after it was made (an agent's ``mkdir -p``, then its Write) still reaches the tree."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "one.txt").write_text("1")
    cache = TreeCache(debounce_s=0.05)

    async def until_listed(path: str) -> None:
        for _ in range(600):
            tree = cache.peek("p")
            if tree is not None and any(e.path == path for e in tree.entries):
                return
            await asyncio.sleep(0.05)
        pytest.fail(f"the tree never listed {path}")

    try:
        await cache.get("p", root)
        (root / "new" / "deeper").mkdir(parents=True)
        await until_listed("new/deeper/")  # made, and its batch handled: a rebuild saw it
        (root / "new" / "deeper" / "f.txt").write_text("f")
        await until_listed("new/deeper/f.txt")
    finally:
        await cache.close()
