"""claude_health: find the ``claude`` binary the way sessions will, and ask it for its version."""

import asyncio
import importlib.util
import os
import shutil
from pathlib import Path
from typing import Any

from mcp.server import MCPServer

from cctui import __version__
from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.schemas.common import READ
from cctui.mcp_server.schemas.health import HealthOut
from cctui.redact import redact_text

SERVER_VERSION = __version__
"""From the package metadata: pyproject.toml holds the one version literal."""


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
    """Run ``claude --version`` (bounded) and report."""
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
        proc = await asyncio.create_subprocess_exec(
            str(path),
            "--version",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return HealthOut.down(
                cli_path=str(path), problem="claude --version hung (15 s).", **base
            )
    except OSError as exc:
        return HealthOut.down(cli_path=str(path), problem=f"cannot run {path}: {exc}", **base)
    if proc.returncode != 0:
        detail = redact_text((err or out).decode(errors="replace").strip()[:300])
        return HealthOut.down(
            cli_path=str(path),
            problem=f"claude --version exited {proc.returncode}: {detail}",
            **base,
        )
    version = out.decode(errors="replace").strip().splitlines()[0] if out.strip() else None
    return HealthOut(
        available=True, ok=True, path=str(path), cli_path=str(path), version=version, **base
    )


def register(server: MCPServer, manager: SessionManager, settings: Settings) -> None:
    """Add claude_health to ``server`` (served on every profile)."""

    @server.tool(annotations=READ)
    async def claude_health() -> HealthOut:
        """Check that Claude Code can run here: CLI found, its version and path, or why not."""
        health = await check_health(settings, active=len(manager.list(active_only=True)))
        return health.model_copy(update={"problems": manager.problems})
