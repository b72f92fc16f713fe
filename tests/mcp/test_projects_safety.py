"""The traversal corpus: every escape refused by read_from_project and write_to_project, with
nothing read and nothing written, through a real MCP client."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import CctuiMCPServer, build_server
from tests.content import first_text
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings
from tests.mcp.conftest import client, error_body

SECRET = "TOP-SECRET-CONTENT"

CORPUS: list[str] = [
    "../outside/secret.txt",
    "../../../../../../etc/passwd",
    "docs/../../outside/secret.txt",
    "docs/..",
    "./../outside/secret.txt",
    "/etc/passwd",
    "{outside}/secret.txt",  # absolute path to the real target
    "//etc/passwd",
    "link_out/secret.txt",  # symlinked directory pointing out
    "file_link",  # symlinked file pointing out
    "docs/deep/secret.txt",  # nested link, absolute target outside
    "to_parent/outside/secret.txt",  # link to the root's parent
    "to_slash/etc/passwd",  # link to /
    "chain/secret.txt",  # link -> inside link -> outside
    "loop/x",  # link loop
    "%2e%2e/outside/secret.txt",
    "%2E%2E%2Foutside%2Fsecret.txt",
    "..%2foutside%2fsecret.txt",
    "%252e%252e/outside/secret.txt",
    "docs/%00secret",
    "..\\outside\\secret.txt",
    "docs\\..\\..\\outside\\secret.txt",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "~/secret.txt",
    "~root/.bashrc",
    "docs/a.md\x00../../outside/secret.txt",
    "\x00",
    "docs/\n../../outside/secret.txt",
    "\uff0e\uff0e/outside/secret.txt",  # fullwidth full stops
    "\u2024\u2024/outside/secret.txt",  # one-dot leaders
    "\u2025/outside/secret.txt",  # two-dot leader
    "\ufe52\ufe52/outside/secret.txt",  # small full stops
    "..\u2215outside\u2215secret.txt",  # division slash
    "..\uff0foutside\uff0fsecret.txt",  # fullwidth solidus
    "..\u2044outside\u2044secret.txt",  # fraction slash
    "..\uff3coutside\uff3csecret.txt",  # fullwidth reverse solidus
    ".\u0338./outside/secret.txt",  # combining long solidus overlay
    "a/" * 2100 + "x",  # longer than PATH_MAX
    "n" * 300,  # a name longer than NAME_MAX
    "",
    ".",
    "./",
    "  ",
    ".git/config",  # remotes may carry tokens
    ".git/hooks/pre-commit",  # a hook runs code on the next commit
    "git_link/config",  # a link to .git
    ".GIT/config",  # .git itself on a case-insensitive filesystem (macOS, Windows)
    ".Git/hooks/pre-commit",
    ".g\u200cit/config",  # HFS+ ignores the zero-width non-joiner: .git on macOS
    "docs/\u202etxt.md",  # right-to-left override: shows as another name
    "docs/a\u2066b.md",  # left-to-right isolate
    "docs/\u200etxt.md",  # left-to-right mark
    "docs/\u200ftxt.md",  # right-to-left mark
    "docs/\u061ctxt.md",  # Arabic letter mark
    "docs/a\x9b31mb.md",  # C1 control sequence introducer: a terminal's ESC [
    "docs/a\x85b.md",  # C1 next line
    "docs/a\x80b.md",  # first C1 control
    "docs/a\x9fb.md",  # last C1 control
]


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp/proj`` (the root) with links that leave it, and ``tmp/outside/secret.txt``."""
    root = tmp_path / "proj"
    outside = tmp_path / "outside"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("inside")
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (root / "link_out").symlink_to("../outside")
    (root / "file_link").symlink_to(outside / "secret.txt")
    (root / "docs" / "deep").symlink_to(outside)
    (root / "to_parent").symlink_to("..")
    (root / "to_slash").symlink_to("/")
    (root / "chain").symlink_to("link_out")
    (root / "loop").symlink_to("loop")
    (root / "inner").symlink_to("docs")  # stays inside: allowed
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[remote] url = https://token@host/repo")
    (root / "git_link").symlink_to(".git")
    return root, outside


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, projects_config=tmp_path / "projects.json")


@pytest.fixture
async def server(settings: Settings, factory: FakeDriverFactory) -> AsyncIterator[CctuiMCPServer]:
    m = SessionManager(settings, driver_factory=factory)
    await m.start()
    yield build_server(m, settings)
    await m.shutdown()


def snapshot(*dirs: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for d in dirs:
        for dirpath, dirnames, filenames in os.walk(d):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                st = p.lstat()
                out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def test_corpus_is_big_enough() -> None:
    assert len(set(CORPUS)) >= 30


async def test_every_escape_is_refused(
    server: CctuiMCPServer, layout: tuple[Path, Path], tmp_path: Path
) -> None:
    root, outside = layout
    before = snapshot(root, outside)
    async with client(server) as c:
        reg = await c.call_tool("register_project", {"name": "p", "rootPath": str(root), "id": "p"})
        assert not reg.is_error
        before = snapshot(root, outside)
        refused: dict[str, tuple[str, str]] = {}
        for raw in CORPUS:
            rel = raw.replace("{outside}", str(outside))
            read = await c.call_tool("read_from_project", {"projectId": "p", "filePath": rel})
            write = await c.call_tool(
                "write_to_project",
                {"projectId": "p", "filePath": rel, "content": "PWNED", "overwrite": True},
            )
            append = await c.call_tool(
                "invoke_claude_code", {"projectId": "p", "task": "x", "contextFiles": [rel]}
            )
            codes = (error_body(read)["code"], error_body(write)["code"])
            assert error_body(append)["code"] in ("path_outside_project", "validation_error")
            assert SECRET not in first_text(read)
            refused[rel] = codes
        # The one link that stays inside works (the check is not "no links at all").
        ok = await c.call_tool("read_from_project", {"projectId": "p", "filePath": "inner/a.md"})
        assert ok.structured_content["content"] == "inside"
    for rel, codes in refused.items():
        assert set(codes) <= {"path_outside_project", "validation_error"}, (rel, codes)
    assert snapshot(root, outside) == before  # nothing written, inside or out
    assert (outside / "secret.txt").read_text() == SECRET
    assert not list(tmp_path.rglob("*PWNED*"))


async def test_refusals_name_the_problem(server: CctuiMCPServer, layout: tuple[Path, Path]) -> None:
    root, _ = layout
    async with client(server) as c:
        await c.call_tool("register_project", {"name": "p", "rootPath": str(root), "id": "p"})

        async def why(rel: str) -> str:
            res = await c.call_tool("read_from_project", {"projectId": "p", "filePath": rel})
            return str(error_body(res)["message"])

        assert "'..' is not allowed" in await why("../x")
        assert "absolute" in await why("/etc/passwd")
        assert "outside the project root" in await why("link_out/secret.txt")
        assert "NUL" in await why("a\x00b")
        assert "percent-encoded" in await why("%2e%2e/x")
        assert "lookalike" in await why("\uff0e\uff0e/x")
        assert "backslash" in await why("..\\x")
        assert "bidirectional control" in await why("docs/\u202egpj.exe")
        assert "bidirectional control" in await why("docs/\u200fgpj.exe")
        assert "control characters" in await why("docs/a\x9bb.md")
        assert "'.git' belongs to git" in await why(".GIT/config")
