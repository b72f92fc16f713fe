"""claude_health's report when the CLI fails: its output is shown, secrets are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cctui.mcp_server.tools.health import check_health
from tests.fakes.settings import make_settings


async def test_a_failing_cli_is_reported_with_its_output_redacted(tmp_path: Path) -> None:
    cli = tmp_path / "claude"
    cli.write_text(
        "#!/bin/sh\necho 'bad config: ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnop' >&2\n"
        "exit 3\n"
    )
    cli.chmod(0o755)
    settings = make_settings(tmp_path, claude_code_path=cli)
    health = await check_health(settings)
    assert not health.available and health.problem is not None
    assert "exited 3" in health.problem and "bad config" in health.problem
    assert "sk-ant-api03" not in health.problem and "[REDACTED]" in health.problem


def _cli(tmp_path: Path, status: str) -> Path:
    """A claude that knows its version and answers ``auth status --json`` with ``status``."""
    cli = tmp_path / "claude"
    cli.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi\n'
        f"cat <<'JSON'\n{status}\nJSON\n"
    )
    cli.chmod(0o755)
    return cli


async def test_a_cli_without_credentials_is_not_available(tmp_path: Path) -> None:
    cli = _cli(tmp_path, json.dumps({"loggedIn": False, "authMethod": "none"}))
    health = await check_health(make_settings(tmp_path, claude_code_path=cli))
    assert not health.available and health.logged_in is False
    assert health.version == "2.1.332 (Claude Code)"
    assert health.problem is not None and "not logged in" in health.problem
    assert health.suggestion is not None and "ANTHROPIC_API_KEY" in health.suggestion


async def test_a_cli_whose_auth_status_is_garbage_says_so(tmp_path: Path) -> None:
    cli = _cli(tmp_path, "Traceback: token=sk-ant-api03-abcdefghijklmnopqrst")
    health = await check_health(make_settings(tmp_path, claude_code_path=cli))
    assert not health.available and health.problem is not None
    assert "auth status" in health.problem and "sk-ant-api03" not in health.problem


async def test_the_real_cli_with_a_key_is_available_and_the_answer_is_reused(
    tmp_path: Path, claude_env: dict[str, str], claude_bin: Path
) -> None:
    settings = make_settings(tmp_path, claude_code_path=claude_bin)
    first = await check_health(settings)
    assert first.available and first.logged_in and first.auth_method == "api_key"
    assert first.auth_checked_at is not None and first.auth_age_seconds is not None
    again = await check_health(settings)
    assert again.auth_checked_at == first.auth_checked_at  # cached, with its age
    assert again.auth_age_seconds is not None
    assert again.auth_age_seconds >= first.auth_age_seconds


async def test_the_real_cli_in_a_home_without_login_is_not_available(
    tmp_path: Path, claude_bin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "empty-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    health = await check_health(make_settings(tmp_path, claude_code_path=claude_bin))
    assert not health.available and health.logged_in is False
