"""Seed 004's configuration (Appendix B, Environment Variables) read by cctui as written,
and the ``compat`` profile word that lists its tools."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from cctui.cli import _parser, _settings
from cctui.config import load_settings
from cctui.core import SessionConfig, SessionRecord, SessionStatus
from cctui.core.records import SessionRecords
from cctui.errors import ConfigError

APPENDIX_B = {
    "DOPPLER_PROJECT": "claude-code-mcp",
    "DOPPLER_CONFIG": "dev",
    "MCP_PORT": "8914",
    "MCP_LOG_LEVEL": "info",
    "MAX_CONCURRENT_SESSIONS": "10",
    "MAX_SESSION_DURATION": "86400000",
    "STATE_DIR": "~/.claude/sessions",
    "BACKUP_ENABLED": "true",
}


def test_appendix_b_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**APPENDIX_B, "HOME": str(home), "MAX_CONCURRENT_SESSIONS": "3"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        s = load_settings(env=env, config_path=tmp_path / "none.toml")
    assert s.doppler_project == "claude-code-mcp" and s.doppler_config == "dev"
    assert s.http_port == 8914
    assert s.log_level == "INFO"
    assert s.max_sessions == 3
    assert s.max_session_duration_ms == 86_400_000
    assert s.state_dir == home / ".claude" / "sessions"
    assert s.backup_enabled is True


def test_a_bad_seed_value_names_its_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MAX_SESSION_DURATION"):
        load_settings(env={"MAX_SESSION_DURATION": "soon"}, config_path=tmp_path / "x.toml")


def test_backup_enabled_keeps_the_previous_registry(tmp_path: Path) -> None:
    def record(title: str) -> SessionRecord:
        return SessionRecord.fresh(
            str(uuid.uuid4()),
            SessionConfig(cwd=tmp_path),
            title=title,
            status=SessionStatus.COMPLETED,
        )

    registry = SessionRecords(tmp_path, backup=True)
    registry.save([record("first")])
    assert not (tmp_path / "sessions.json.bak").exists()  # nothing to keep yet
    registry.save([record("second")])
    kept = json.loads((tmp_path / "sessions.json.bak").read_text())
    assert [s["title"] for s in kept["sessions"]] == ["first"]
    SessionRecords(tmp_path / "plain").save([record("x")])
    assert not (tmp_path / "plain" / "sessions.json.bak").exists()


@pytest.mark.parametrize(
    ("words", "profile", "listed"),
    [
        ("full,compat", "full", True),
        ("compat,sessions", "sessions", True),
        ("compat", "full", True),
        ("sessions", "sessions", True),
        ("sessions,nocompat", "sessions", False),
    ],
)
def test_the_compat_profile_word(tmp_path: Path, words: str, profile: str, listed: bool) -> None:
    args = _parser().parse_args(["serve", "--tools", words, "--config", str(tmp_path / "x")])
    s = _settings(args)
    assert (s.tools_profile, s.compat_tools) == (profile, listed)
    from_env = load_settings(env={"CCTUI_TOOLS": words}, config_path=tmp_path / "x.toml")
    assert (from_env.tools_profile, from_env.compat_tools) == (profile, listed)


def test_an_unknown_profile_word_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["--tools", "full,bogus"])
    assert "full, sessions, projects, menu" in capsys.readouterr().err
