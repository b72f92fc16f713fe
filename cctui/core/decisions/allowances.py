"""What "allow for the rest of the session" (``A`` in the TUI, ``always`` on a decision)
and "always allow in this project" (``P``, ``for_project``) allow, worked out before anyone
presses them so every front end can show them.

Two sources, both scoped to the live claude process (a kill or resume forgets them):

- the CLI's own rule suggestions (e.g. Bash ``npm test:*``), sent back with destination
  ``session`` so the CLI keeps them in memory only. Suggestions that would widen to a whole
  tool (a rule with no content), change rules the user wrote, or bypass permissions are
  dropped: one answer must never allow every Bash command.
- when no suggestion is left, this exact call (same tool, same input) is remembered by
  cctui until the process ends.

For the project, only the CLI's rule suggestions with a rule content qualify (e.g.
``Bash(npm test *)``): one it declared for ``localSettings`` goes back as it is, one it
declared for the session goes back for ``localSettings``, and the CLI writes it to the
repository root's ``.claude/settings.local.json``. A mode change or an added directory is
never persisted, and a rule for a whole tool is never offered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCOPE_NOTE = "until this claude process ends (a kill or resume forgets it)"

# Modes a suggestion may switch to; anything wider (bypassPermissions) is never taken.
_SAFE_MODES = {"acceptEdits": "accept file edits without asking", "default": "default mode"}
_DETAIL_KEYS = ("command", "file_path", "path", "notebook_path", "url", "pattern")
_DETAIL_MAX = 200


@dataclass(frozen=True)
class SessionAllowance:
    """What ``A`` on one permission ask would allow."""

    description: str
    """Human-readable: shown by the TUI modal and on ``pendingInputs[].allowForSession``."""
    suggestions: tuple[int, ...]
    """Indices of the CLI's suggestions to send back (destination ``session``)."""
    exact: bool
    """No usable suggestion: cctui remembers this exact call instead."""


@dataclass(frozen=True)
class ProjectAllowance:
    """What ``P`` on one permission ask would write, and where."""

    rules: tuple[str, ...]
    """The rules as the settings file will hold them, e.g. ``Bash(npm test *)``."""
    suggestions: tuple[int, ...]
    """Indices of the CLI's suggestions sent back for ``localSettings``."""
    file: Path
    """The settings file the CLI writes them to."""

    @property
    def description(self) -> str:
        """In words, for the modal and ``pendingInputs[].allowForProject``."""
        return f"Always allow {', '.join(self.rules)} in this project: added to {self.file}."


def project_allowance(
    suggestions: Sequence[dict[str, Any]], settings_file: Path
) -> ProjectAllowance | None:
    """What allow-for-the-project would write (None: nothing qualifies; see the module)."""
    kept: list[int] = []
    rules: list[str] = []
    for index, suggestion in enumerate(suggestions):
        found = _project_rules(suggestion)
        if found:
            kept.append(index)
            rules += found
    if not kept:
        return None
    return ProjectAllowance(
        rules=tuple(dict.fromkeys(rules)), suggestions=tuple(kept), file=settings_file
    )


def project_words(project: ProjectAllowance, suggestions: Sequence[dict[str, Any]]) -> str:
    """Everything ``P`` does, in words: the rules and their file, and what goes back for
    this session with them (P answers as A does too: a mode, a directory the CLI suggested
    for the session). Once the modal named only the rule while P also switched the session
    to acceptEdits."""
    also = [
        text
        for index, suggestion in enumerate(suggestions)
        if index not in project.suggestions and (text := _describe(suggestion)) is not None
    ]
    if not also:
        return project.description
    return f"{project.description} For this session also: {'; '.join(also)} ({SCOPE_NOTE})."


def _project_rules(suggestion: dict[str, Any]) -> list[str]:
    """The rules an allow suggestion would add, if every one has a rule content."""
    if suggestion.get("type") != "addRules" or suggestion.get("behavior") != "allow":
        return []
    if suggestion.get("destination") not in ("localSettings", "session"):
        return []  # the CLI wants it elsewhere (user or project settings): not ours to move
    rules = suggestion.get("rules")
    out: list[str] = []
    for rule in rules if isinstance(rules, list) else []:
        name = rule.get("toolName") if isinstance(rule, dict) else None
        content = rule.get("ruleContent") if isinstance(rule, dict) else None
        if not isinstance(name, str) or not isinstance(content, str) or not content.strip():
            return []  # a whole tool (any Bash command): never for the project
        out.append(f"{name}({content})")
    return out


def call_key(tool_name: str, tool_input: dict[str, Any]) -> str:
    """A stable key for one exact tool call."""
    return tool_name + "\0" + json.dumps(tool_input, sort_keys=True, default=str)


def call_detail(tool_name: str, tool_input: dict[str, Any]) -> str:
    """A one-line rendering of a call: the command, path or URL, else the input as JSON."""
    for key in _DETAIL_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return _clip(value)
    return _clip(json.dumps(tool_input, sort_keys=True, default=str)) if tool_input else ""


def session_allowance(
    tool_name: str, tool_input: dict[str, Any], suggestions: Sequence[dict[str, Any]]
) -> SessionAllowance:
    """What allow-for-session on this ask allows (see the module docstring)."""
    kept: list[int] = []
    parts: list[str] = []
    for index, suggestion in enumerate(suggestions):
        text = _describe(suggestion)
        if text is not None:
            kept.append(index)
            parts.append(text)
    if kept:
        return SessionAllowance(
            description=f"Allow {'; '.join(parts)} {SCOPE_NOTE}.",
            suggestions=tuple(kept),
            exact=False,
        )
    detail = call_detail(tool_name, tool_input)
    what = f"{tool_name} `{detail}`" if detail else tool_name
    return SessionAllowance(
        description=(
            f"Allow this exact call again without asking: {what} {SCOPE_NOTE}. "
            f"Other {tool_name} calls still ask."
        ),
        suggestions=(),
        exact=True,
    )


def _describe(suggestion: dict[str, Any]) -> str | None:
    """A suggestion in words, or None when it is not safe to take."""
    kind = suggestion.get("type")
    if kind == "addRules" and suggestion.get("behavior") == "allow":
        rules = suggestion.get("rules")
        if not isinstance(rules, list) or not rules:
            return None
        words: list[str] = []
        for rule in rules:
            if not isinstance(rule, dict):
                return None
            name, content = rule.get("toolName"), rule.get("ruleContent")
            if not isinstance(name, str) or not isinstance(content, str) or not content.strip():
                return None  # a rule for the whole tool: never taken silently
            words.append(f"{name}({_clip(content)})")
        return ", ".join(words)
    if kind == "setMode" and suggestion.get("mode") in _SAFE_MODES:
        return f"mode {suggestion['mode']} ({_SAFE_MODES[suggestion['mode']]})"
    if kind == "addDirectories":
        dirs = suggestion.get("directories")
        if isinstance(dirs, list) and dirs and all(isinstance(d, str) for d in dirs):
            return "access to " + ", ".join(_clip(d) for d in dirs)
    return None


def _clip(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _DETAIL_MAX else line[: _DETAIL_MAX - 1] + "…"
