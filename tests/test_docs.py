"""The documents: every relative link leads somewhere, and the README's commands are true.

The README is the front door and ``docs/`` holds the reference; a page moved or a heading
renamed must not leave a dead link behind. The README's install and test commands are the
ones a newcomer copies, so they must be the ones the project (and CI) actually run.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/cctui"
"""Installs and runs cctui from a checkout."""
TEST = "make check"
"""Installs what the tests need and runs every check."""

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents() -> list[Path]:
    """The README, ARCHITECTURE.md and every page under docs/."""
    return [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """Markdown without fenced code blocks and code spans (links there are not links)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    """Every inline link and image target of a markdown text."""
    return _LINK.findall(_prose(text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: link text kept, punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in ("L", "N", "M"))
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings (repeats get -1, -2, ...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, heading in _HEADING.findall(_FENCE.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(doc: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``doc`` that lead to no file (or to no heading of it)."""
    problems = []
    for target in links(doc.read_text(encoding="utf-8")):
        if _SCHEME.match(target):
            continue  # a web address: not checked offline
        path_part, _, anchor = target.partition("#")
        dest = (doc.parent / path_part).resolve() if path_part else doc
        if not dest.is_relative_to(root.resolve()):
            problems.append(f"{target}: outside the repository")
        elif not dest.exists():
            problems.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text("utf-8")):
            problems.append(f"{target}: no heading #{anchor} in {dest.name}")
    return problems


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(doc: Path) -> None:
    assert links(doc.read_text(encoding="utf-8")), f"{doc.name} links nowhere"
    assert broken_links(doc) == []


def test_a_dead_link_and_a_dead_anchor_are_both_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Who decides\n\n## `claude_query`\n## Notes\n")
    doc = tmp_path / "README.md"
    doc.write_text(
        "[ok](docs/a.md#who-decides) [ok](docs/a.md#claude_query) [web](https://x.org/y)\n"
        "[gone](docs/b.md) [bad](docs/a.md#nowhere) [self](#missing) `[code](docs/c.md)`\n"
        "[out](../elsewhere.md)\n"
    )
    assert broken_links(doc, tmp_path) == [
        "docs/b.md: no such file",
        "docs/a.md#nowhere: no heading #nowhere in a.md",
        "#missing: no heading #missing in README.md",
        "../elsewhere.md: outside the repository",
    ]


def test_github_slugs_of_the_headings_this_project_uses() -> None:
    assert slug("A damaged state file is set aside, not fatal") == (
        "a-damaged-state-file-is-set-aside-not-fatal"
    )
    assert slug("One permission request, from the CLI and back") == (
        "one-permission-request-from-the-cli-and-back"
    )
    assert slug("Sessions: teams, launch prefixes, templates") == (
        "sessions-teams-launch-prefixes-templates"
    )
    assert anchors("# Notes\n## Notes\n```\n# not a heading\n```\n") == {"notes", "notes-1"}


def test_the_readme_maps_every_page_of_the_docs() -> None:
    readme = links((ROOT / "README.md").read_text(encoding="utf-8"))
    linked = {target.partition("#")[0] for target in readme}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in linked, f"README does not link docs/{page.name}"
    assert "ARCHITECTURE.md" in linked


def _shell_blocks(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^```bash\n(.*?)^```", text, re.M | re.S)]


def test_the_readme_gives_the_install_and_the_test_command() -> None:
    blocks = _shell_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert INSTALL in blocks
    assert TEST in blocks


def test_the_install_command_ends_in_a_cctui_entry_point() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # cctui.entry answers `status` before importing the CLI, then hands over to cctui.cli.
    assert pyproject["project"]["scripts"]["cctui"] == "cctui.entry:main"
    assert INSTALL.endswith(".venv/bin/cctui")


def test_ci_runs_the_readmes_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in ci.splitlines() if not line.lstrip().startswith("#")]
    assert TEST in commands
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = re.search(r"^check:(.*)$", makefile, re.M)
    assert target is not None, "the Makefile has no check target"
    assert {"lint", "typecheck", "imports", "test"} <= set(target.group(1).split())
