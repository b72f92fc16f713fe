"""Context sync: tell a session what its project looks like now (git, files, env names).

The text is built here and sent as an ordinary user message, so the session sees it in its
own transcript. Files are read only inside the session's working directory (symlinks
resolved); environment variables go by name only, never by value.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from cctui.claude.transcripts import find_session
from cctui.core.models import SessionInfo
from cctui.errors import SessionNotFound, ValidationFailed

if TYPE_CHECKING:
    from cctui.core.manager import SessionManager

ContextType = Literal["files", "env", "git", "all"]

FILE_MAX_CHARS = 20_000
"""Per file; longer files are cut (and the message says so)."""
TOTAL_MAX_CHARS = 100_000
"""All file contents together."""
LISTING_MAX = 200
"""Entries listed for a directory (or the project when no paths are given)."""
GIT_TIMEOUT_S = 10.0


class ContextSync(BaseModel):
    """The message to send and what went into it."""

    text: str
    synced_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    files_synced: int = 0
    env_vars_synced: int = 0
    git_status_synced: bool = False
    warnings: list[str] = Field(default_factory=list)


def resolve_inside(root: Path, raw: str) -> Path:
    """``raw`` (relative to ``root``, or absolute) resolved, refusing anything outside root.

    Raises:
        ValidationFailed: the path escapes the session's working directory.
    """
    base = root.resolve()
    candidate = Path(raw).expanduser()
    resolved = (candidate if candidate.is_absolute() else base / candidate).resolve()
    if not resolved.is_relative_to(base):
        raise ValidationFailed(
            f"path {raw!r} is outside the session's working directory {base}.",
            suggestion="Pass paths inside the session's project (relative paths are best).",
        )
    return resolved


async def build(
    cwd: Path,
    context_type: ContextType,
    paths: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    pid: int | None = None,
) -> ContextSync:
    """The context message for a session working in ``cwd`` whose CLI runs as ``pid``.

    Environment names are the live process's (a launch prefix such as ``doppler run``
    injects variables cctui never sees), else ``env``, else cctui's own.

    Every path is checked before anything is read, so a refused call reads nothing.

    Raises:
        ValidationFailed: a path escapes ``cwd``, or ``cwd`` is gone.
    """
    root, resolved = await asyncio.to_thread(_check, cwd, paths)
    result = ContextSync(text="")
    parts = [f"[cctui context sync: {context_type}, {result.synced_at:%Y-%m-%d %H:%M:%S} UTC]"]
    if context_type in ("git", "all"):
        parts.append(await _git_section(cwd, result))
    if context_type in ("files", "all"):
        parts.append(await asyncio.to_thread(_files_section, root, resolved, result))
    if context_type in ("env", "all"):
        names, source = await asyncio.to_thread(env_names, pid, env)
        result.env_vars_synced = len(names)
        parts.append(
            f"## Environment variable names of {source} (values withheld)\n\n"
            + (", ".join(names) or "(none)")
        )
    result.text = "\n\n".join(parts)
    return result


def env_names(pid: int | None, env: Mapping[str, str] | None = None) -> tuple[list[str], str]:
    """The names in process ``pid``'s environment and a phrase saying whose they are.

    Only the bytes before each ``=`` are kept: values are never decoded or held.
    """
    if pid is not None:
        try:
            raw = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:  # not Linux, gone, or not ours: fall back below
            pass
        else:
            entries = (entry.partition(b"=")[0] for entry in raw.split(b"\0") if b"=" in entry)
            return sorted({name.decode(errors="replace") for name in entries}), "the session"
    if env is not None:
        return sorted(env), "the session's launch environment"
    return sorted(os.environ), "cctui (the session has no running process to read)"


def _check(cwd: Path, paths: Sequence[str]) -> tuple[Path, list[Path]]:
    if not cwd.is_dir():
        raise ValidationFailed(f"the session's working directory {cwd} does not exist.")
    return cwd.resolve(), [resolve_inside(cwd, p) for p in paths]


async def sync(
    manager: SessionManager,
    session_id: str,
    context_type: ContextType,
    paths: Sequence[str] = (),
) -> tuple[ContextSync, SessionInfo]:
    """Build the context of a session's project and send it to the session (resuming it
    if it has ended). Returns what was sent and the session right after.

    Raises:
        SessionNotFound, ValidationFailed (a path escapes), SessionLimitReached.
    """
    built = await build_for(manager, session_id, context_type, paths)
    return built, await manager.send(session_id, built.text)


async def build_for(
    manager: SessionManager,
    session_id: str,
    context_type: ContextType = "all",
    paths: Sequence[str] = (),
) -> ContextSync:
    """The context message for ``session_id`` (cctui's, or only on disk), not sent.

    Raises:
        SessionNotFound, ValidationFailed (a path escapes).
    """
    pid: int | None = None
    try:
        session = manager.get(session_id)
        cwd, pid = session.config.cwd, session.pid
    except SessionNotFound:
        # A session cctui has not started (only its transcript is on disk): send() will
        # take it on; its directory is the transcript's.
        found = await asyncio.to_thread(
            find_session, session_id, manager.settings.claude_config_dir
        )
        if found is None:
            raise
        cwd = found.cwd
    return await build(cwd, context_type, paths, pid=pid)


async def _git_section(cwd: Path, result: ContextSync) -> str:
    code, out = await _run(["git", "status", "--porcelain=v1", "--branch"], cwd)
    if code != 0:
        result.warnings.append("not a git repository (or git is not installed)")
        return "## Git status\n\nNot a git repository."
    result.git_status_synced = True
    lines = out.splitlines()
    branch = lines[0].removeprefix("## ") if lines and lines[0].startswith("## ") else "?"
    changes = [line for line in lines if not line.startswith("## ")]
    body = "\n".join(changes) if changes else "(clean: no uncommitted changes)"
    return f"## Git status (branch {branch})\n\n```\n{body}\n```"


def _files_section(root: Path, paths: list[Path], result: ContextSync) -> str:
    if not paths:
        entries = _listing(root, result)
        return "## Project files\n\n" + "\n".join(entries)
    blocks = ["## Files"]
    budget = TOTAL_MAX_CHARS
    for path in paths:
        rel = path.relative_to(root).as_posix() or "."
        if path.is_dir():
            blocks.append(f"### {rel}/\n\n" + "\n".join(_listing(path, result, root)))
            continue
        if not path.is_file():
            result.warnings.append(f"{rel}: no such file")
            blocks.append(f"### {rel}\n\n(no such file)")
            continue
        size = path.stat().st_size
        with path.open("rb") as fh:
            # At most what FILE_MAX_CHARS characters can take (4 bytes each in UTF-8), plus
            # one byte to tell a longer file: a huge log is never read whole.
            data = fh.read(FILE_MAX_CHARS * 4 + 1)
        if b"\0" in data[:8192]:
            blocks.append(f"### {rel} ({size} bytes)\n\n(binary file, not included)")
            result.files_synced += 1
            continue
        text = data.decode("utf-8", errors="replace")
        limit = min(FILE_MAX_CHARS, budget)
        cut = len(text) > limit
        if cut:
            result.warnings.append(f"{rel}: cut to {limit} characters of {size} bytes")
            text = text[:limit]
        budget -= len(text)
        fence = "````" if "```" in text else "```"
        note = " (truncated)" if cut else ""
        body = text.removesuffix("\n")
        blocks.append(f"### {rel} ({size} bytes){note}\n\n{fence}\n{body}\n{fence}")
        result.files_synced += 1
    return "\n\n".join(blocks)


def _listing(directory: Path, result: ContextSync, root: Path | None = None) -> list[str]:
    """Files under ``directory`` (skipping ``.git``), relative to ``root``, at most
    ``LISTING_MAX``."""
    root = root or directory
    entries: list[str] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in sorted(filenames):
            if len(entries) >= LISTING_MAX:
                result.warnings.append(f"listing cut at {LISTING_MAX} entries")
                return entries
            entries.append("- " + (Path(dirpath) / name).relative_to(root).as_posix())
    return entries or ["(empty)"]


async def _run(argv: list[str], cwd: Path) -> tuple[int, str]:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return 127, ""
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return 124, ""
    return proc.returncode or 0, out.decode("utf-8", errors="replace")
