"""Settings come from the TOML file, then the environment, then flags; bad values name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from cctui.config import load_settings
from cctui.errors import ConfigError


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path), **extra}


def test_defaults_follow_the_seeds(tmp_path: Path) -> None:
    settings = load_settings(env=_env(tmp_path))
    assert settings.permission_timeout_ms == 300_000
    assert settings.max_sessions == 10
    assert settings.event_buffer_size == 500
    assert settings.claude_config_dir == tmp_path / ".claude"
    assert settings.state_dir == tmp_path / ".local" / "state" / "cctui"
    assert settings.http_host == "127.0.0.1"


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    config = tmp_path / ".config" / "cctui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("max_sessions = 3\nevent_buffer_size = 50\nlog_level = 'DEBUG'\n")
    env = _env(tmp_path, MAX_SESSIONS="4", CLAUDE_CODE_ALLOWED_TOOLS="Read, Grep")
    settings = load_settings(env=env, overrides={"max_sessions": 5, "http_port": None})
    assert settings.max_sessions == 5  # flag beats env beats file
    assert settings.event_buffer_size == 50  # file only
    assert settings.log_level == "DEBUG"
    assert settings.allowed_tools == ("Read", "Grep")


def test_claude_config_dir_relocates_claude_home(tmp_path: Path) -> None:
    settings = load_settings(env=_env(tmp_path, CLAUDE_CONFIG_DIR=str(tmp_path / "cc")))
    assert settings.claude_config_dir == tmp_path / "cc"


def test_bad_environment_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(env=_env(tmp_path, PERMISSION_TIMEOUT_MS="soon"))
    assert "PERMISSION_TIMEOUT_MS" in err.value.message


def test_bad_file_value_and_unknown_key_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("max_sessions = 0\nmax_sesions = 3\n")
    with pytest.raises(ConfigError) as err:
        load_settings(env=_env(tmp_path), config_path=config)
    assert "'max_sessions'" in err.value.message
    assert "unknown setting 'max_sesions'" in err.value.message


def test_broken_toml_is_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("max_sessions = = 3")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(env=_env(tmp_path), config_path=config)


def test_settings_are_frozen(tmp_path: Path) -> None:
    settings = load_settings(env=_env(tmp_path))
    with pytest.raises(ValueError, match="frozen"):
        settings.max_sessions = 2  # type: ignore[misc]
