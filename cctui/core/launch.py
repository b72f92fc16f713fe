"""What starting a claude process takes: a config with the settings' defaults, a launch
spec built from it, and the checks and title made before spawning."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from cctui.claude.binary import find_cli
from cctui.claude.frames import LaunchSpec
from cctui.config import Settings
from cctui.core import templates
from cctui.core.session.models import SessionConfig
from cctui.errors import LaunchPrefixNotFound, ValidationFailed
from cctui.fs import safepath
from cctui.fs.errors import DirectoryNotAllowed
from cctui.redact import redact

_TITLE_MAX = 80

_BUILTIN_TOOLS = [
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "ListAgents",
    "Monitor",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "Skill",
    "SlashCommand",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
]
_CANONICAL = {name.lower(): name for name in _BUILTIN_TOOLS}


def canonical_rule(rule: str) -> str:
    """``rule`` with a built-in tool's name spelled as the CLI spells it.

    The CLI matches tool names case-sensitively, so seed 003's own example
    ``CLAUDE_CODE_ALLOWED_TOOLS=read,write,edit`` would otherwise allow nothing. Only the
    name before ``(`` changes (``bash(git diff *)`` -> ``Bash(git diff *)``); MCP tools
    (``mcp__…``) and names the CLI does not ship are left as written.
    """
    name, paren, spec = rule.strip().partition("(")
    return _CANONICAL.get(name.strip().lower(), name.strip()) + paren + spec


def default_config(
    settings: Settings,
    cwd: Path | str | None = None,
    *,
    template: str | None = None,
    **fields: Any,
) -> SessionConfig:
    """A SessionConfig: the settings' defaults (permission mode, the project's launch
    prefix), then the named ``template``, then ``fields``; a field passed as None takes its
    default (explicit values win over the template).

    The cwd (argument, ``CLAUDE_CODE_DEFAULT_CWD``, else cctui's) is stored resolved
    (``~`` expanded, absolute, symlinks followed), so listings and filters by project match
    whatever spelling the caller used. ``allowed_tools`` are the session's own; the settings'
    are added at every launch (``launch_spec``).

    Raises:
        TemplateNotFound: ``template`` is not configured.
    """
    given = {k: v for k, v in fields.items() if v is not None}
    where = resolve_dir(cwd or settings.default_cwd or Path.cwd())
    base: dict[str, Any] = {
        "cwd": where,
        # None: no --permission-mode, the CLI's configured default applies (seed 002).
        "permission_mode": settings.default_permission_mode,
        "launch_prefix": prefix_for(settings, where),
        "file_checkpointing": settings.file_checkpointing,
    }
    if template is not None:
        base |= templates.config_fields(templates.find(settings, template))
        base["template"] = template
    if "allowed_tools" in given:
        given["allowed_tools"] = tuple(given["allowed_tools"])
    if "disallowed_tools" in given:
        given["disallowed_tools"] = tuple(given["disallowed_tools"])
    if "launch_prefix" in given:
        given["launch_prefix"] = tuple(given["launch_prefix"])
    return SessionConfig(**(base | given))


def resolve_dir(raw: Path | str) -> Path:
    """``raw`` with ``~`` expanded, made absolute and its symlinks followed.

    Raises:
        ValidationFailed: the path cannot be resolved (a symlink loop, say).
    """
    try:
        return Path(raw).expanduser().resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ValidationFailed(
            f"working directory {str(raw)!r} cannot be resolved: {exc}",
            suggestion="Pass an existing directory.",
        ) from None


def prefix_for(settings: Settings, cwd: Path) -> tuple[str, ...]:
    """The launch prefix for a session in ``cwd``: the innermost configured project
    directory containing it, else the config's default."""
    where = cwd.expanduser().resolve()
    best: tuple[int, tuple[str, ...]] | None = None
    for directory, prefix in settings.project_launch_prefixes.items():
        root = directory.expanduser().resolve()
        if where.is_relative_to(root) and (best is None or len(root.parts) > best[0]):
            best = (len(root.parts), prefix)
    return best[1] if best is not None else settings.launch_prefix


def check_prefix(prefix: tuple[str, ...], cwd: Path) -> None:
    """Raise ``LaunchPrefixNotFound`` unless the prefix's first word runs (PATH or a path).

    Checked before a process is spawned: a wrapper that cannot start would otherwise show up
    only as a CLI that never answers.
    """
    if not prefix:
        return
    word = prefix[0]
    if os.sep in word:
        path = Path(word).expanduser()
        path = path if path.is_absolute() else cwd / path
        found = path.is_file() and os.access(path, os.X_OK)
    else:
        found = shutil.which(word) is not None
    if not found:
        raise LaunchPrefixNotFound(
            f"launch prefix executable {word!r} not found or not executable "
            f"(prefix: {redact(list(prefix))}).",  # its words may carry a --token value
            suggestion="Install it, put it on PATH, or pass another launchPrefix ([] for none).",
        )


def launch_spec(settings: Settings, config: SessionConfig, **launch: Any) -> LaunchSpec:
    """The spec for a process of ``config``; ``launch`` adds session_id / resume / fork.

    Raises:
        LaunchPrefixNotFound: before anything is spawned.
    """
    check_prefix(config.launch_prefix, config.cwd)
    session_id = launch.get("session_id") or launch.get("resume")
    allowed = config.allowed_tools
    if not config.exact_tools:
        allowed = (*settings.allowed_tools, *allowed)
    allowed = tuple(dict.fromkeys(canonical_rule(rule) for rule in allowed))
    return LaunchSpec(
        cwd=config.cwd,
        model=config.model,
        permission_mode="bypassPermissions" if config.skip_permissions else config.permission_mode,
        allowed_tools=allowed,
        disallowed_tools=tuple(canonical_rule(rule) for rule in config.disallowed_tools),
        max_turns=config.max_turns,
        max_budget_usd=config.max_budget_usd,
        append_system_prompt=config.append_system_prompt,
        skip_permissions=config.skip_permissions,
        cli_path=settings.claude_code_path,
        launch_prefix=config.launch_prefix,
        env=session_env(config, session_id),
        file_checkpointing=config.file_checkpointing,
        **launch,
    )


def default_teammate(session_id: str) -> str:
    """The teammate name of a session given none (seed 004: ``session-<first 8 of id>``)."""
    return f"session-{session_id[:8]}"


def session_env(config: SessionConfig, session_id: str | None) -> dict[str, str]:
    """What a session's process learns about itself (seed 004): ``CLAUDE_SESSION_ID``,
    ``CLAUDE_TEAMMATE_NAME`` (generated when none was given) and, in a team,
    ``CLAUDE_TEAM_NAME``; hooks and scripts the session runs can read them."""
    env: dict[str, str] = {}
    if session_id is not None:
        env["CLAUDE_SESSION_ID"] = session_id
        env["CLAUDE_TEAMMATE_NAME"] = config.teammate or default_teammate(session_id)
    elif config.teammate:
        env["CLAUDE_TEAMMATE_NAME"] = config.teammate
    if config.team:
        env["CLAUDE_TEAM_NAME"] = config.team
    return env


def interactive_argv(settings: Settings, config: SessionConfig, session_id: str) -> list[str]:
    """The command that opens a session in Claude Code's own terminal UI: the launch prefix,
    the binary cctui drives (``CLAUDE_CODE_PATH``, else the bundled one, else PATH), then
    ``--resume <id>``. Nothing else: the user's own settings decide the rest, as in a shell.

    Raises:
        CliNotFound, LaunchPrefixNotFound: before anything is run.
    """
    check_prefix(config.launch_prefix, config.cwd)
    cli = find_cli(settings.claude_code_path)
    return [*config.launch_prefix, str(cli), "--resume", session_id]


DOPPLER_DEFAULT_CONFIG = "dev"
"""Seed 004: ``doppler_config`` "Defaults to 'dev'"."""


def doppler_prefix(
    settings: Settings, project: str | None, config: str | None, current: tuple[str, ...] = ()
) -> list[str] | None:
    """Seed 004's Doppler wrapping as a launch prefix: ``doppler run --project P --config C
    --``; no project (argument, ``DOPPLER_PROJECT``, or the session's current wrapping)
    means no wrapping."""
    project = project or _prefix_value(current, "--project") or settings.doppler_project
    if project is None:
        return None
    config = (
        config
        or _prefix_value(current, "--config")
        or settings.doppler_config
        or DOPPLER_DEFAULT_CONFIG
    )
    return ["doppler", "run", "--project", project, "--config", config, "--"]


def _prefix_value(prefix: tuple[str, ...], flag: str) -> str | None:
    if prefix[:2] != ("doppler", "run"):
        return None
    words = list(prefix)
    for i, word in enumerate(words[:-1]):
        if word == flag:
            return words[i + 1]
    return None


def check_allowed_root(settings: Settings, cwd: Path) -> None:
    """Raise ``DirectoryNotAllowed`` when ``allowed_roots`` is configured and ``cwd`` lies
    outside every one of them (symlinks followed). For what MCP clients start (seeds 002
    and 003: "working directories are within allowed paths"); the person at the TUI picks
    any directory."""
    if settings.allowed_roots and not safepath.within(cwd, settings.allowed_roots):
        roots = ", ".join(str(r) for r in settings.allowed_roots)
        raise DirectoryNotAllowed(
            f"working directory {cwd} is outside the allowed roots ({roots}).",
            suggestion="Use a directory inside one of allowed_roots, or add it to "
            "allowed_roots in cctui's config (CCTUI_ALLOWED_ROOTS).",
        )


def check_cwd(cwd: Path) -> None:
    """Raise ``ValidationFailed`` unless ``cwd`` is an existing directory."""
    if not cwd.is_dir():
        raise ValidationFailed(
            f"working directory {cwd} does not exist.", suggestion="Pass an existing directory."
        )


def title_of(prompt: str) -> str:
    """A session title from its first prompt: one line, at most ``_TITLE_MAX`` characters."""
    line = " ".join(prompt.split())
    return line if len(line) <= _TITLE_MAX else line[: _TITLE_MAX - 1] + "…"
