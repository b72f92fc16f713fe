"""ARCHITECTURE.md is held to the tree: every file, folder and module it names exists, and
every code name it cites (``Router.to_human``, ``SessionManager``, ``manager.respond``) is
defined somewhere in cctui. A rename that forgets the map fails here, so a newcomer who
follows the map finds what it says."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "ARCHITECTURE.md"
_SPAN = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"^[\w./-]+\.(?:py|md|tcss|toml|json)$|^[\w.-]+(?:/[\w.-]*)+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$")
_TREE_ENTRY = re.compile(r"^( *)([\w.-]+/?)(?= |$)")
# Paths that are not this repository's (the user's files, the CLI's, the state dir's).
_ELSEWHERE = (".claude/", "~/", "$XDG", "/etc/", "projects.json", "session_state.json",
              "settings.local.json", "server.json", "sessions.json", "owner.lock")  # fmt: skip


def _spans() -> list[str]:
    return _SPAN.findall(DOC.read_text(encoding="utf-8"))


def _tree_paths() -> list[str]:
    """The files and folders of the fenced room tree (``cctui/`` then indented entries)."""
    text = DOC.read_text(encoding="utf-8")
    paths: list[str] = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        if not block.startswith("cctui/"):
            continue
        stack: list[tuple[int, str]] = []
        for line in block.splitlines():
            m = _TREE_ENTRY.match(line)
            if not m or not re.search(r"\.(py|tcss)$|/$", m.group(2)):
                continue
            depth, name = len(m.group(1)), m.group(2)
            while stack and stack[-1][0] >= depth:
                stack.pop()
            parent = stack[-1][1] if stack else ""
            full = parent + name if depth else name
            if name.endswith("/"):
                stack.append((depth, full))
            paths.append(full)
    return paths


@cache
def _tracked() -> tuple[str, ...]:
    """Every file and folder of the repository (less caches), as posix paths."""
    skip = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", "node_modules"}
    return tuple(
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*")
        if not skip & set(p.relative_to(ROOT).parts)
    )


def _exists(path: str) -> bool:
    """``path`` from the root, or below a room (``decisions/grants.py`` inside core)."""
    p = path.rstrip("/")
    return any(t == p or t.endswith("/" + p) for t in _tracked())


@cache
def _defined() -> frozenset[str]:
    """Every name cctui and its tests define or use by name: modules, classes, functions,
    attributes, the names they import (the SDKs' ``InputRequiredResult``) and the words
    they quote (statuses such as ``waiting_for_input``, variables such as
    ``PERMISSION_TIMEOUT_MS``). A comment alone does not count."""
    names: set[str] = set()
    for file in [*(ROOT / "cctui").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]:
        names.add(file.stem)
        names.add(file.parent.name)
        text = file.read_text(encoding="utf-8")
        names.update(re.findall(r"(?:def|class)\s+([A-Za-z_]\w*)", text))
        names.update(re.findall(r"^\s*(?:self\.)?([A-Za-z_]\w*)\s*[:=]", text, re.M))
        for imported in re.findall(r"^\s*(?:from\s+\S+\s+)?import\s+(\([^)]*\)|.*)$", text, re.M):
            names.update(re.findall(r"\w+", re.sub(r"#.*", "", imported)))
        names.update(re.findall(r"[\"']([A-Za-z_][\w.]*)[\"']", text))
    return frozenset(names)


def _snake(name: str) -> str:
    """``nextSeq`` -> ``next_seq``: the wire's camelCase is the models' snake_case."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_path_it_names_exists() -> None:
    cited = [s for s in _spans() if _PATH.match(s) and not s.startswith(_ELSEWHERE)]
    cited += _tree_paths()
    missing = sorted({p for p in cited if not any(m in p for m in _ELSEWHERE) and not _exists(p)})
    assert missing == [], f"ARCHITECTURE.md names paths that do not exist: {missing}"


def test_every_code_name_it_cites_is_defined() -> None:
    missing = []
    for span in _spans():
        if _PATH.match(span) or not _NAME.match(span):
            continue  # a path: the other test
        if span.islower() and "_" not in span and "." not in span:
            continue  # a plain word (`core`, `tui`) is a room or a value, not a code name
        for part in span.removesuffix("()").split("."):
            if part not in _defined() and _snake(part) not in _defined():
                missing.append(span)
                break
    assert missing == [], f"ARCHITECTURE.md cites names cctui does not define: {missing}"
