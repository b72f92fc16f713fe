"""Claude Code's permission rule syntax, matched against one tool call.

cctui's policy uses the rules the CLI's settings files use, so a rule copied from
``.claude/settings.json`` means the same in ``cctui-policy.toml``:

- ``Tool`` — every call of the tool (``Read``, ``WebSearch``); ``mcp__server`` every tool of
  that MCP server, ``mcp__server__tool`` one of them.
- ``Bash(npm test*)`` — the command, with ``*`` matching anything (the CLI's newer wildcard
  syntax); the legacy ``Bash(npm test:*)`` is a prefix. A compound command (``a && b``,
  ``a; b``, ``a | b``) is split: an allow rule must match every part, a deny rule any part
  (as the CLI does, so ``npm test && rm -rf /`` is not allowed by ``Bash(npm test*)``).
- ``Read(src/**)``, ``Edit(~/notes/*.md)`` — gitignore-style paths: ``//abs`` is absolute,
  ``~/`` the home directory, ``/x`` and ``x`` are relative to the project (the session's
  directory); ``**`` crosses directories, ``*`` does not. ``Edit`` rules apply to every
  tool that changes files (Edit, MultiEdit, Write, NotebookEdit), ``Read`` rules to every
  tool that reads them (Read, Grep, Glob, LS, NotebookRead).
- ``WebFetch(domain:example.com)`` — the URL's host (or a subdomain of it).
- any other ``Tool(content)`` — ``content`` as a ``*`` pattern over the call's command,
  path or URL.

Matching is pure (no file system access) and cheap: a rule is parsed once into a compiled
``Pattern``.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
"""Tools an ``Edit(...)`` rule covers: they change files."""
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"})
"""Tools a ``Read(...)`` rule covers: they read files."""
_PATH_KEYS = ("file_path", "notebook_path", "path")
_RULE = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")


class PatternError(ValueError):
    """A rule that is not ``Tool`` or ``Tool(content)``."""


@dataclass(frozen=True)
class Pattern:
    """One parsed rule, e.g. ``Bash(npm test*)``."""

    text: str
    """The rule as written."""
    tool: str
    content: str | None
    _regex: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, rule: str) -> Pattern:
        """Parse ``rule``.

        Raises:
            PatternError: not ``Tool`` or ``Tool(content)``, or an empty ``()``.
        """
        found = _RULE.match(rule)
        if found is None:
            raise PatternError(
                f"{rule!r} is not a rule: write Tool or Tool(content), e.g. Bash(npm test*)"
            )
        tool, content = found.group(1), found.group(2)
        if content is not None and not content.strip():
            raise PatternError(f"{rule!r}: empty parentheses; write {tool} for every call")
        regex = None
        if content is not None:
            if tool == "Bash":
                regex = _command_regex(content.strip())
            elif tool in EDIT_TOOLS | READ_TOOLS:
                regex = None  # paths are compiled per call: they depend on the project
            elif not content.startswith("domain:"):
                regex = _star_regex(content.strip())
        return cls(text=rule.strip(), tool=tool, content=content, _regex=regex)

    def covers_tool(self, tool: str) -> bool:
        """Whether this rule is about ``tool`` at all (before looking at its input)."""
        if self.tool == tool:
            return True
        if self.tool == "Edit" and tool in EDIT_TOOLS:
            return True
        if self.tool == "Read" and tool in READ_TOOLS:
            return True
        # mcp__server covers every tool of that server.
        return self.tool.startswith("mcp__") and tool.startswith(self.tool + "__")

    def matches(
        self,
        tool: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str,
        home: str,
        deny: bool = False,
    ) -> bool:
        """Whether this rule covers the call (``deny``: a compound command matches when
        any part does; otherwise every part must)."""
        if not self.covers_tool(tool):
            return False
        content = self.content
        if content is None:
            return True
        if self.tool == "Bash":
            command = tool_input.get("command")
            if not isinstance(command, str) or self._regex is None:
                return False
            parts = [p for p in _SPLIT.split(command.strip()) if p] or [""]
            hits = [bool(self._regex.fullmatch(p)) for p in parts]
            if deny:  # the whole command too: a pattern may span ``&&`` (``a && b*``)
                return any(hits) or bool(self._regex.fullmatch(command.strip()))
            return all(hits)
        if self.tool in EDIT_TOOLS | READ_TOOLS:
            path = call_path(tool_input)
            return path is not None and path_matches(content, path, cwd=cwd, home=home)
        if content.startswith("domain:"):
            url = tool_input.get("url")
            host = urlsplit(url).hostname if isinstance(url, str) else None
            want = content[len("domain:") :].strip().lower()
            return host is not None and (host == want or host.endswith("." + want))
        detail = _detail(tool_input)
        return (
            self._regex is not None and detail is not None and bool(self._regex.fullmatch(detail))
        )


REPLAY_KEYS = ("command", *_PATH_KEYS, "url", "pattern")
"""The input fields rules look at: what the audit log keeps of a call for replaying it."""
_REPLAY_MAX = 2000


def replay_input(tool_input: Mapping[str, Any]) -> dict[str, str]:
    """The fields of ``tool_input`` a rule can match (clipped), for the audit log: enough
    to replay the decision through another policy, never a file's whole new content."""
    return {
        key: value[:_REPLAY_MAX]
        for key in REPLAY_KEYS
        if isinstance(value := tool_input.get(key), str)
    }


def call_path(tool_input: Mapping[str, Any]) -> str | None:
    """The path a file tool reads or changes, if its input names one."""
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def path_matches(pattern: str, path: str, *, cwd: str, home: str) -> bool:
    """Whether ``path`` (absolute, or relative to ``cwd``) matches a gitignore-style
    ``pattern`` (see the module docstring for its anchors)."""
    target = absolute(path, cwd=cwd, home=home)
    pattern = pattern.strip()
    if pattern.startswith("//"):
        base, rest = "/", pattern[2:]
    elif pattern.startswith("~/"):
        base, rest = home, pattern[2:]
    elif pattern.startswith("/"):
        base, rest = cwd, pattern[1:]
    elif pattern.startswith("./"):
        base, rest = cwd, pattern[2:]
    elif "/" not in pattern.rstrip("/"):
        base, rest = cwd, "**/" + pattern  # a bare name matches at any depth, as gitignore
    else:
        base, rest = cwd, pattern
    full = str(PurePosixPath(base) / rest) if rest else base
    if full.endswith("/"):
        full += "**"
    regex = _glob_regex(full)
    return bool(regex.fullmatch(target)) or bool(regex.fullmatch(target + "/"))


def absolute(path: str, *, cwd: str, home: str) -> str:
    """``path`` made absolute against ``cwd`` (``~`` is ``home``), with ``.`` and ``..``
    folded so ``src/../../etc`` cannot pass for a path inside the project."""
    if path.startswith("~/") or path == "~":
        path = home + path[1:]
    elif not path.startswith("/"):
        path = cwd.rstrip("/") + "/" + path
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def inside(path: str, directory: str) -> bool:
    """Whether the absolute ``path`` is ``directory`` or below it."""
    directory = directory.rstrip("/") or "/"
    return path == directory or path.startswith(directory + "/") or directory == "/"


def command_parts(command: str) -> list[list[str]]:
    """A shell command split at ``&&``, ``||``, ``;``, ``|`` and newlines, each part into
    words (shell quoting honoured; an unbalanced quote falls back to whitespace)."""
    out: list[list[str]] = []
    for part in _SPLIT.split(command.strip()):
        if not part:
            continue
        try:
            out.append(shlex.split(part))
        except ValueError:
            out.append(part.split())
    return out


def _detail(tool_input: Mapping[str, Any]) -> str | None:
    for key in ("command", *_PATH_KEYS, "url", "pattern", "query"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
    return None


def _command_regex(content: str) -> re.Pattern[str]:
    if content.endswith(":*"):  # the CLI's legacy prefix syntax: npm test:* = npm test ...
        prefix = content[:-2]
        return re.compile(re.escape(prefix) + r"(?:\s.*)?", re.DOTALL)
    return _star_regex(content)


def _star_regex(content: str) -> re.Pattern[str]:
    """``*`` matches anything (spaces and slashes too); everything else is literal."""
    return re.compile(".*".join(re.escape(piece) for piece in content.split("*")), re.DOTALL)


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob: ``**`` crosses directories, ``*`` and ``?`` stay inside one."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r".*")
            i += 2
        elif pattern[i] == "*":
            out.append(r"[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append(r"[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)
