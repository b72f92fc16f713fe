"""The permission rules in Claude Code's settings files: which are in force for a directory,
where "always allow in this project" writes, and removing (or adding) one rule.

Claude Code merges four kinds of settings file (2.1.332; research/peer-features.md §5.2):

- ``managed``: the administrator's ``/etc/claude-code/managed-settings.json`` and
  ``managed-settings.d/*.json``; never changed here;
- ``user``: ``$CLAUDE_CONFIG_DIR/settings.json`` (``~/.claude/settings.json``);
- ``project``: ``<cwd>/.claude/settings.json``, usually committed;
- ``local``: ``<repo root>/.claude/settings.local.json``, where the CLI writes a rule sent
  back for ``localSettings``. The root is the canonical repository root: for a worktree the
  main checkout's (the cwd when not in git). A legacy ``<cwd>/.claude/settings.local.json``
  is still read.

Each holds ``{"permissions": {"allow": [...], "deny": [...], "ask": [...]}}``. A change
re-reads the file, leaves every other key as it was, keeps the previous file beside it as
``<name>.bak`` and replaces it atomically (``cctui.fs.atomic``).
"""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cctui.errors import RuleNotFound, ValidationFailed
from cctui.fs.atomic import write_atomic
from cctui.fs.git import main_checkout

log = logging.getLogger(__name__)

RuleSource = Literal["managed", "user", "project", "local"]
Behavior = Literal["allow", "deny", "ask"]
BEHAVIORS: tuple[Behavior, ...] = ("allow", "deny", "ask")
MANAGED_DIR = Path("/etc/claude-code")
"""Where Linux keeps managed settings (the CLI's own path)."""
LOCAL_FILE = Path(".claude") / "settings.local.json"


class RuleFile(BaseModel):
    """One settings file that applies to a directory."""

    model_config = ConfigDict(defer_build=True)

    source: RuleSource
    path: Path
    exists: bool
    writable: bool
    """cctui may change it (every source but ``managed``)."""
    problem: str | None = None
    """Why its rules could not be read (bad JSON, no permission), if so."""


class Rule(BaseModel):
    """One permission rule, e.g. ``Bash(npm test *)``, and where it comes from."""

    model_config = ConfigDict(defer_build=True)

    rule: str
    behavior: Behavior
    source: RuleSource
    file: Path


class RulesInForce(BaseModel):
    """Every permission rule that applies to a directory, with its source."""

    model_config = ConfigDict(defer_build=True)

    directory: Path
    repo_root: Path
    """The canonical repository root (for a worktree the main checkout's), or the
    directory itself when it is not in git: where ``local`` rules are written."""
    files: list[RuleFile]
    rules: list[Rule]


class RuleChange(BaseModel):
    """A rule added to or removed from a settings file."""

    model_config = ConfigDict(defer_build=True)

    rule: str
    behavior: Behavior
    source: RuleSource
    file: Path
    changed: bool
    """False when there was nothing to do (the rule was already there)."""
    backup: Path | None = None
    """The file as it was before, kept beside it."""


def rule_text(tool_name: str, content: str | None) -> str:
    """A rule as settings files spell it: ``Tool`` or ``Tool(content)``."""
    return f"{tool_name}({content})" if content else tool_name


def repo_root(directory: Path) -> Path:
    """The canonical repository root of ``directory`` (see the module docstring)."""
    return main_checkout(directory) or directory


def local_settings_file(directory: Path) -> Path:
    """Where ``localSettings`` rules for ``directory`` go (the CLI's own choice)."""
    return repo_root(directory) / LOCAL_FILE


def settings_files(
    directory: Path, config_dir: Path, *, managed_dir: Path = MANAGED_DIR
) -> list[tuple[RuleSource, Path]]:
    """The settings files that apply to ``directory``, highest precedence first."""
    root = repo_root(directory)
    files: list[tuple[RuleSource, Path]] = [("managed", managed_dir / "managed-settings.json")]
    drop_ins = managed_dir / "managed-settings.d"
    if drop_ins.is_dir():
        files += [("managed", p) for p in sorted(drop_ins.glob("*.json"))]
    files += [
        ("local", root / LOCAL_FILE),
        ("project", directory / ".claude" / "settings.json"),
        ("user", config_dir / "settings.json"),
    ]
    if root != directory:
        files.insert(-2, ("local", directory / LOCAL_FILE))  # the legacy place, still read
    return files


def rules_in_force(
    directory: Path, config_dir: Path, *, managed_dir: Path = MANAGED_DIR
) -> RulesInForce:
    """Every allow, deny and ask rule for ``directory``, file by file."""
    files: list[RuleFile] = []
    rules: list[Rule] = []
    for source, path in settings_files(directory, config_dir, managed_dir=managed_dir):
        data, problem = _read(path)
        files.append(
            RuleFile(
                source=source,
                path=path,
                exists=path.exists(),
                writable=source != "managed",
                problem=problem,
            )
        )
        for behavior, rule in _rules(data):
            rules.append(Rule(rule=rule, behavior=behavior, source=source, file=path))
    return RulesInForce(
        directory=directory, repo_root=repo_root(directory), files=files, rules=rules
    )


def remove_rule(
    directory: Path,
    config_dir: Path,
    rule: str,
    *,
    source: RuleSource,
    behavior: Behavior | None = None,
    file: Path | None = None,
) -> RuleChange:
    """Remove ``rule`` from the ``source`` file that holds it (``file`` picks one when the
    source has two); other rules and keys stay.

    Raises:
        ValidationFailed: a managed rule, or a file that does not apply to ``directory``.
        RuleNotFound: no such rule there. OSError: the file cannot be written.
    """
    if source == "managed":
        raise ValidationFailed(
            "Managed settings belong to the administrator; cctui does not change them.",
            suggestion="Ask whoever manages /etc/claude-code, or override with a deny rule.",
        )
    view = rules_in_force(directory, config_dir)
    matches = [
        r
        for r in view.rules
        if r.rule == rule
        and r.source == source
        and (behavior is None or r.behavior == behavior)
        and (file is None or r.file == file)
    ]
    if not matches:
        listed = [
            f"{r.rule} ({r.behavior}, {r.source})" for r in view.rules if r.source != "managed"
        ]
        raise RuleNotFound(
            f"No {behavior or 'allow/deny/ask'} rule {rule!r} in the {source} settings for "
            f"{directory}.",
            suggestion=("Rules there: " + "; ".join(listed)) if listed else "There are none.",
        )
    target = matches[0]
    backup = _edit(target.file, lambda perms: _drop(perms, target.behavior, rule))
    log.info("removed %s rule %r from %s", target.behavior, rule, target.file)
    return RuleChange(
        rule=rule,
        behavior=target.behavior,
        source=source,
        file=target.file,
        changed=True,
        backup=backup,
    )


def add_rule(path: Path, rule: str, *, behavior: Behavior = "allow") -> RuleChange:
    """Add ``rule`` to the settings file ``path`` (created if missing); nothing when it is
    there already.

    Raises:
        ValidationFailed: the file is not a JSON object. OSError: it cannot be written.
    """
    data, problem = _read(path)
    if problem is not None:
        raise ValidationFailed(f"{path}: {problem}", suggestion="Fix the file by hand first.")
    if rule in [r for b, r in _rules(data) if b == behavior]:
        return RuleChange(rule=rule, behavior=behavior, source="local", file=path, changed=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = _edit(path, lambda perms: perms.setdefault(behavior, []).append(rule))
    log.info("added %s rule %r to %s", behavior, rule, path)
    return RuleChange(
        rule=rule, behavior=behavior, source="local", file=path, changed=True, backup=backup
    )


def _read(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's JSON object (empty when missing) and a problem, if it is unusable."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"cannot be read ({exc})"
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        return {}, f"not valid JSON ({exc})"
    if not isinstance(data, dict):
        return {}, "not a JSON object"
    return data, None


def _rules(data: dict[str, Any]) -> list[tuple[Behavior, str]]:
    perms = data.get("permissions")
    if not isinstance(perms, dict):
        return []
    out: list[tuple[Behavior, str]] = []
    for behavior in BEHAVIORS:
        listed = perms.get(behavior)
        if isinstance(listed, list):
            out += [(behavior, r) for r in listed if isinstance(r, str)]
    return out


def _drop(perms: dict[str, Any], behavior: Behavior, rule: str) -> None:
    perms[behavior] = [r for r in perms.get(behavior, []) if r != rule]


def _edit(path: Path, change: Any) -> Path | None:
    """Re-read ``path``, apply ``change`` to its ``permissions`` object, keep a backup and
    replace the file atomically (its permission bits kept). Returns the backup, if any."""
    target = path.resolve() if path.is_symlink() else path
    try:
        before = target.read_bytes()
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        before, mode = None, 0o644
    data = json.loads(before.decode("utf-8")) if before and before.strip() else {}
    if not isinstance(data, dict):
        raise ValidationFailed(f"{path} is not a JSON object.")
    perms = data.get("permissions")
    if not isinstance(perms, dict):
        perms = data["permissions"] = {}
    change(perms)
    backup = None
    if before is not None:
        backup = target.with_name(target.name + ".bak")
        write_atomic(backup, before, mode=mode)
    write_atomic(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=mode)
    return backup
