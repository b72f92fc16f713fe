"""Where cctui and Claude Code keep their files, honouring XDG and ``CLAUDE_CONFIG_DIR``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def home(env: Mapping[str, str] | None = None) -> Path:
    """The user's home directory, from ``HOME`` when set (tests point it at a temp dir)."""
    value = _env(env).get("HOME")
    return Path(value) if value else Path.home()


def claude_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's own directory: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    value = _env(env).get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else home(env) / ".claude"


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """cctui's config file: ``$XDG_CONFIG_HOME/cctui/config.toml``."""
    base = _env(env).get("XDG_CONFIG_HOME")
    return (Path(base) if base else home(env) / ".config") / "cctui" / "config.toml"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """cctui's state (server.json, registry, audit log, logs): ``$XDG_STATE_HOME/cctui``."""
    base = _env(env).get("XDG_STATE_HOME")
    return (Path(base) if base else home(env) / ".local" / "state") / "cctui"


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """cctui's rebuildable caches (the history index): ``$XDG_CACHE_HOME/cctui``."""
    base = _env(env).get("XDG_CACHE_HOME")
    return (Path(base) if base else home(env) / ".cache") / "cctui"
