"""Pytest fixtures for running the real ``claude`` CLI offline against the fake Messages API.

- ``fake_api``: a started :class:`FakeAnthropicAPI` (``.url``, ``.port``, ``.requests``,
  ``.add_rule``, ``.script``); one per test.
- ``claude_bin``: the CLI binary (``$CLAUDE_CODE_PATH``, else the one bundled in
  claude-agent-sdk); fails the test if it is missing.
- ``claude_home``: a temp ``$HOME`` (``tmp_path/"home"``), seeded so even the interactive TUI
  skips onboarding and trust dialogs.
- ``project_dir``: ``tmp_path/"proj"``, created and trusted in the seeded config.
- ``claude_env``: the environment for an offline CLI (also patched into ``os.environ``,
  which claude-agent-sdk passes to the CLI); returned as a dict for ``subprocess`` calls.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.seed_home import API_KEY, seed_claude_home

KEEP_VARS = {"CLAUDE_CODE_PATH"}
DROP_PREFIXES = ("CLAUDE", "ANTHROPIC")
DROP_VARS = {
    "ALL_PROXY", "all_proxy", "http_proxy", "https_proxy", "no_proxy",
    "AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_APPLICATION_CREDENTIALS",
}  # fmt: skip


def bundled_claude() -> Path:
    """The CLI the SDK bundles (what ``ClaudeAgentOptions()`` picks by default)."""
    import claude_agent_sdk

    return Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def find_claude() -> Path:
    override = os.environ.get("CLAUDE_CODE_PATH")
    return Path(override) if override else bundled_claude()


def use_environ(patch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """Make ``env`` this process's whole environment until ``patch`` undoes it (what a
    test's own cctui and ``claude`` processes inherit: nothing of the real account)."""
    for key in list(os.environ):
        if key not in env:
            patch.delenv(key)
    for key, value in env.items():
        patch.setenv(key, value)


def offline_env(base: dict[str, str], url: str, home: Path) -> dict[str, str]:
    """``base`` minus anything that could reach a real account, plus the offline settings."""
    env = {
        k: v
        for k, v in base.items()
        if k in KEEP_VARS or (not k.startswith(DROP_PREFIXES) and k not in DROP_VARS)
    }
    env.update(
        {
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "HTTPS_PROXY": url,
            "HTTP_PROXY": url,
            "NO_PROXY": "127.0.0.1,localhost",
            "https_proxy": url,
            "http_proxy": url,
            "no_proxy": "127.0.0.1,localhost",
        }
    )
    return env


@pytest.fixture
def fake_api(tmp_path: Path) -> Iterator[FakeAnthropicAPI]:
    server = FakeAnthropicAPI(log_path=tmp_path / "fake_api.jsonl").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def claude_bin() -> Path:
    path = find_claude()
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.fail(
            f"claude CLI not found or not executable at {path}. "
            "Install claude-agent-sdk (it bundles the CLI) or set CLAUDE_CODE_PATH."
        )
    return path


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    path = (tmp_path / "proj").resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def claude_home(tmp_path: Path, project_dir: Path) -> Path:
    home = (tmp_path / "home").resolve()
    for sub in (".config", ".local/state", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    seed_claude_home(home, project_dir)
    return home


@pytest.fixture
def claude_env(
    fake_api: FakeAnthropicAPI, claude_home: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    env = offline_env(dict(os.environ), fake_api.url, claude_home)
    use_environ(monkeypatch, env)
    return env
