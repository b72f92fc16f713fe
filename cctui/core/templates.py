"""Session templates: named presets from the config, applied under what a caller passes."""

from __future__ import annotations

from typing import Any

from cctui.config import SessionTemplate, Settings
from cctui.errors import TemplateNotFound


def find(settings: Settings, name: str) -> SessionTemplate:
    """The template called ``name``.

    Raises:
        TemplateNotFound: listing the configured names.
    """
    template = settings.templates.get(name)
    if template is not None:
        return template
    known = sorted(settings.templates)
    listed = ", ".join(known) if known else "none are configured"
    raise TemplateNotFound(
        f"No session template {name!r}; known templates: {listed}.",
        suggestion=f"Use one of the known names, or add [templates.{name}] to cctui's config.toml.",
    )


def config_fields(template: SessionTemplate) -> dict[str, Any]:
    """The ``SessionConfig`` fields ``template`` sets (unset ones are left out)."""
    fields: dict[str, Any] = {
        "model": template.model,
        "permission_mode": template.permission_mode,
        "allowed_tools": template.allowed_tools,
        "max_turns": template.max_turns,
        "append_system_prompt": template.system_prompt,
        "launch_prefix": template.launch_prefix,
    }
    return {k: v for k, v in fields.items() if v is not None}
