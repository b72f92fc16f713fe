"""claude_health: find the ``claude`` binary the way sessions will, ask it for its version,
and whether it is logged in (seed 001: "installed and responsive").

The login check is ``claude auth status --json``: it reads the CLI's own credentials (an API
key, OAuth, a cloud provider) without an API request, so it costs no tokens; ~0.6 s, so
its answer is kept for ``AUTH_TTL_S`` and reported with its age. It cannot see a network
that is down: the first turn reports that.
"""

import asyncio
import importlib.util
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import MCPServer

from cctui import __version__
from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.schemas.common import READ
from cctui.mcp_server.schemas.health import HealthOut
from cctui.redact import redact_text
from cctui.timestamps import now_iso

SERVER_VERSION = __version__
"""From the package metadata: pyproject.toml holds the one version literal."""

AUTH_TTL_S = 60.0
"""How long one ``claude auth status`` answer is reused."""

_BOUND_S = 15.0


@dataclass(frozen=True)
class AuthStatus:
    """What ``claude auth status --json`` said, and when."""

    logged_in: bool
    method: str | None
    problem: str | None
    checked_at: str
    checked: float
    """``time.monotonic()`` of the check, for its age."""


_auth_cache: dict[tuple[str, str | None], AuthStatus] = {}
"""By binary and API key source: a new key (or a logout) within a minute is seen next time
the key changes; the cache is per process and only ever saves a subprocess."""


async def _run(path: Path, *args: str) -> tuple[int | None, str, str]:
    """``path args`` bounded by ``_BOUND_S``: (exit code or None when it hung, out, err)."""
    proc = await asyncio.create_subprocess_exec(
        str(path),
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), _BOUND_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None, "", ""
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


async def auth_status(path: Path) -> AuthStatus:
    """Is the CLI at ``path`` logged in? (cached for ``AUTH_TTL_S``)"""
    key = (str(path), os.environ.get("ANTHROPIC_API_KEY"))
    cached = _auth_cache.get(key)
    if cached is not None and time.monotonic() - cached.checked < AUTH_TTL_S:
        return cached
    problem: str | None = None
    logged_in, method = False, None
    try:
        code, out, err = await _run(path, "auth", "status", "--json")
    except OSError as exc:
        code, out, err = -1, "", str(exc)
    if code is None:
        problem = f"claude auth status hung ({_BOUND_S:.0f} s)."
    else:
        try:
            body = json.loads(out)
            logged_in = body.get("loggedIn") is True
            method = str(body.get("authMethod")) if body.get("authMethod") else None
        except (json.JSONDecodeError, AttributeError):
            detail = redact_text((err or out).strip()[:300])
            problem = f"claude auth status exited {code}: {detail}"
        if problem is None and not logged_in:
            problem = "Claude Code is not logged in (claude auth status: no credentials)."
    status = AuthStatus(logged_in, method, problem, now_iso(), time.monotonic())
    _auth_cache[key] = status
    return status


def locate_cli(settings: Settings) -> tuple[Path | None, str]:
    """(path, where it came from): the setting, ``CLAUDE_CODE_PATH``, the SDK's bundled CLI, PATH.

    The bundled binary is found by file location, so this never imports claude-agent-sdk.
    """
    if settings.claude_code_path is not None:
        return settings.claude_code_path, "setting claude_code_path"
    env = os.environ.get("CLAUDE_CODE_PATH")
    if env:
        return Path(env), "CLAUDE_CODE_PATH"
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "_bundled" / "claude"
        if bundled.exists():
            return bundled, "bundled with claude-agent-sdk"
    found = shutil.which("claude")
    return (Path(found), "PATH") if found else (None, "PATH")


async def check_health(settings: Settings, active: int = 0) -> HealthOut:
    """Run ``claude --version`` and ``claude auth status`` (bounded) and report."""
    path, source = locate_cli(settings)
    base: dict[str, Any] = {
        "source": source,
        "active_sessions": active,
        "server_version": SERVER_VERSION,
    }
    if path is None:
        return HealthOut.down(
            problem="No claude binary found (setting, CLAUDE_CODE_PATH, bundled CLI, PATH).",
            suggestion="Install Claude Code or set CLAUDE_CODE_PATH to the claude binary.",
            **base,
        )
    if not path.exists():
        return HealthOut.down(
            cli_path=str(path),
            problem=f"{path} does not exist.",
            suggestion=f"Fix {source} or install Claude Code.",
            **base,
        )
    if not os.access(path, os.X_OK):
        return HealthOut.down(
            cli_path=str(path),
            problem=f"{path} is not executable.",
            suggestion=f"chmod +x {path}",
            **base,
        )
    try:
        code, out, err = await _run(path, "--version")
    except OSError as exc:
        return HealthOut.down(cli_path=str(path), problem=f"cannot run {path}: {exc}", **base)
    if code is None:
        return HealthOut.down(cli_path=str(path), problem="claude --version hung (15 s).", **base)
    if code != 0:
        detail = redact_text((err or out).strip()[:300])
        return HealthOut.down(
            cli_path=str(path), problem=f"claude --version exited {code}: {detail}", **base
        )
    version = out.strip().splitlines()[0] if out.strip() else None
    auth = await auth_status(path)
    base |= {
        "version": version,
        "logged_in": auth.logged_in,
        "auth_method": auth.method,
        "auth_checked_at": auth.checked_at,
        "auth_age_seconds": round(time.monotonic() - auth.checked, 1),
    }
    if auth.problem is not None:
        return HealthOut.down(
            cli_path=str(path),
            problem=auth.problem,
            suggestion="Run `claude` once to log in (or `claude auth login`), or set "
            "ANTHROPIC_API_KEY for cctui's environment.",
            **base,
        )
    return HealthOut(available=True, ok=True, path=str(path), cli_path=str(path), **base)


def register(server: MCPServer, manager: SessionManager, settings: Settings) -> None:
    """Add claude_health to ``server`` (served on every profile)."""

    @server.tool(annotations=READ)
    async def claude_health() -> HealthOut:
        """Check that Claude Code can run here: CLI found, its version and path, logged in
        (available is false for a CLI without credentials), or why not."""
        health = await check_health(settings, active=len(manager.list(active_only=True)))
        return health.model_copy(update={"problems": manager.problems})
