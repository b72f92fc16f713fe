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


def default_config(settings: Settings, cwd: Path | None = None, **fields: Any) -> SessionConfig:
    """A SessionConfig with the settings' defaults (cwd, permission mode, tools)."""
    base: dict[str, Any] = {
        "cwd": cwd or settings.default_cwd or Path.cwd(),
        "permission_mode": settings.default_permission_mode,
        "allowed_tools": settings.allowed_tools,
    }
    return SessionConfig(**(base | fields))


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
