"""What starting a claude process takes: a config with the settings' defaults, a launch
spec built from it, and the checks and title made before spawning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cctui.claude.frames import LaunchSpec
from cctui.config import Settings
from cctui.core.models import SessionConfig
from cctui.errors import ValidationFailed

_TITLE_MAX = 80


def default_config(
    settings: Settings, cwd: Path | str | None = None, **fields: Any
) -> SessionConfig:
    """A SessionConfig with the settings' defaults; a field passed as None takes its default.

    The cwd (argument, ``CLAUDE_CODE_DEFAULT_CWD``, else cctui's) is stored resolved
    (``~`` expanded, absolute, symlinks followed), so listings and filters by project match
    whatever spelling the caller used. ``allowed_tools`` are the session's own; the settings'
    are added at every launch (``launch_spec``).
    """
    given = {k: v for k, v in fields.items() if v is not None}
    raw = cwd or settings.default_cwd or Path.cwd()
    base: dict[str, Any] = {
        "cwd": resolve_dir(raw),
        "permission_mode": settings.default_permission_mode,
    }
    if "allowed_tools" in given:
        given["allowed_tools"] = tuple(given["allowed_tools"])
    if "disallowed_tools" in given:
        given["disallowed_tools"] = tuple(given["disallowed_tools"])
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


def launch_spec(settings: Settings, config: SessionConfig, **launch: Any) -> LaunchSpec:
    """The spec for a process of ``config``; ``launch`` adds session_id / resume / fork."""
    if config.exact_tools:
        allowed = config.allowed_tools
    else:
        allowed = tuple(dict.fromkeys((*settings.allowed_tools, *config.allowed_tools)))
    return LaunchSpec(
        cwd=config.cwd,
        model=config.model,
        permission_mode="bypassPermissions" if config.skip_permissions else config.permission_mode,
        allowed_tools=allowed,
        disallowed_tools=config.disallowed_tools,
        max_turns=config.max_turns,
        max_budget_usd=config.max_budget_usd,
        append_system_prompt=config.append_system_prompt,
        skip_permissions=config.skip_permissions,
        cli_path=settings.claude_code_path,
        launch_prefix=config.launch_prefix,
        **launch,
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
