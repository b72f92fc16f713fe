"""What ``claude_health`` returns."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cctui.mcp_server.schemas.common import Out


class HealthOut(Out):
    """``claude_health``: can cctui run Claude Code here? (seed 001: available, version, error)"""

    available: bool
    ok: bool
    """Same as ``available``."""
    path: str | None = None
    """The claude binary (``cliPath`` is the same)."""
    cli_path: str | None = None
    version: str | None = None
    logged_in: bool | None = None
    """``claude auth status`` found credentials (an API key, a login, a cloud provider);
    ``None`` when the CLI could not be asked."""
    auth_method: str | None = None
    """How it is logged in, as the CLI says (``api_key``, ``claude.ai``, ...)."""
    auth_checked_at: str | None = None
    """When the login was checked (it is reused for a minute)."""
    auth_age_seconds: float | None = None
    """How old that check is."""
    error: str | None = None
    """Why it is not available (``problem`` is the same)."""
    source: str
    """Where the path came from: setting, CLAUDE_CODE_PATH, bundled or PATH."""
    problem: str | None = None
    suggestion: str | None = None
    active_sessions: int = 0
    server_version: str
    problems: list[str] = Field(default_factory=list)
    """cctui's own troubles (a damaged registry set aside, audit lines that failed)."""

    @classmethod
    def down(cls, *, problem: str, cli_path: str | None = None, **fields: Any) -> HealthOut:
        """Not available, and why."""
        return cls(
            available=False,
            ok=False,
            path=cli_path,
            cli_path=cli_path,
            error=problem,
            problem=problem,
            **fields,
        )
