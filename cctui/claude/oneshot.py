"""One question to a model through ``claude -p``, with no tools and nothing kept.

The judge rung (``core.policy.judge``) asks this way: a fixed system prompt, the question on
stdin, the answer's text back. The CLI runs without tools, MCP servers, slash commands or the
project's settings files (only the user's, for its credentials), saves no session, and is
killed (with whatever it started: it runs under the reaper) when the time is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
from pathlib import Path

from cctui.claude.binary import find_cli, launcher
from cctui.errors import CliNotFound
from cctui.redact import redact_text


async def ask_once(
    question: str,
    *,
    system_prompt: str,
    model: str,
    timeout_s: float,
    cwd: Path,
    cli_path: Path | None = None,
) -> str:
    """The model's answer to ``question`` (its text).

    Raises:
        TimeoutError: no answer within ``timeout_s`` (the process is killed).
        CliNotFound: the CLI is missing, failed, or answered with an error.
    """
    wrapper = launcher((), find_cli(cli_path))
    argv = [
        str(wrapper),
        "-p",
        "--output-format", "json",
        "--model", model,
        "--tools", "",
        "--strict-mcp-config",
        "--setting-sources", "user",
        "--no-session-persistence",
        "--disable-slash-commands",
        "--max-turns", "1",
        "--system-prompt", system_prompt,
    ]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(question.encode()), timeout_s)
    finally:
        if process.returncode is None:  # timed out or cancelled: nothing of it stays
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 3)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        shutil.rmtree(wrapper.parent, ignore_errors=True)
    try:
        reply = json.loads(out.decode(errors="replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        reply = None
    if not isinstance(reply, dict) or reply.get("is_error") or process.returncode != 0:
        detail = err.decode(errors="replace").strip()[-300:] or out.decode(errors="replace")[-300:]
        raise CliNotFound(redact_text(f"claude -p failed ({process.returncode}): {detail}"))
    return str(reply.get("result") or "")
