"""Settings for tests that run the core without the real CLI: everything inside ``tmp_path``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cctui.config import Settings


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Claude's dir and cctui's state in ``tmp_path``; any free port; a short-ish timeout."""
    values: dict[str, Any] = {
        "claude_config_dir": tmp_path / "claude",
        "state_dir": tmp_path / "state",
        "permission_timeout_ms": 5_000,
        "http_port": 0,
    }
    return Settings(**(values | overrides))
