"""A `claude` that never answers at start-up is given up on, and does not linger."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cctui.claude import frames, sdk_driver
from cctui.errors import CliNotFound
from tests.fakes.procs import alive


async def _never_asked(ask: frames.PermissionAsk) -> frames.PermissionAnswer:
    raise AssertionError("no permission should be asked")


async def test_a_cli_that_hangs_at_start_fails_fast_and_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "pid"
    fake = tmp_path / "claude"
    fake.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 1000\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sdk_driver, "START_TIMEOUT_S", 1.0)
    spec = frames.LaunchSpec(cwd=tmp_path, cli_path=fake)
    driver = sdk_driver.SdkDriver(spec, _never_asked)
    started = time.monotonic()
    with pytest.raises(CliNotFound, match="initialize within 1 s"):
        await driver.connect()
    assert time.monotonic() - started < 5  # not the SDK's 60 s + 5 s
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)


async def test_a_launcher_still_open_for_writing_elsewhere_is_retried_not_fatal(
    claude_env: dict[str, str],
    claude_bin: Path,
    project_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """exec refuses a file that any process holds open for writing (ETXTBSY). A session's
    launcher is written just before it is run, and a process forked meanwhile (another
    session's spawn, a git call in a thread) keeps a copy of that descriptor until it execs:
    three sessions started at once failed now and then with "Failed to start Claude Code"."""
    import asyncio
    import os

    from cctui.claude.binary import launcher as real_launcher

    held: list[int] = []

    def busy_launcher(prefix: tuple[str, ...], cli: Path) -> Path:
        script = real_launcher(prefix, cli)
        held.append(os.open(script, os.O_WRONLY))  # as a child forked mid-write would
        asyncio.get_running_loop().call_later(0.08, os.close, held[-1])
        return script

    monkeypatch.setattr(sdk_driver, "launcher", busy_launcher)
    spec = frames.LaunchSpec(cwd=project_dir, cli_path=claude_bin)
    driver = sdk_driver.SdkDriver(spec, _never_asked)
    await driver.connect()
    try:
        assert held and driver.pid is not None
    finally:
        await driver.close()
