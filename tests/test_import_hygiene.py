"""The headless rooms never load the UI (import-linter checks the source; this checks what
actually lands in ``sys.modules``).

claude-agent-sdk itself imports ``mcp.server`` (for its in-process tool servers), so whether
our headless code imports mcp is left to import-linter's static contracts.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADLESS = [
    "cctui.services",
    "cctui.review",
    "cctui.projects",
    "cctui.core",
    "cctui.claude",
    "cctui.history",
    "cctui.config",
    "cctui.fs",
    "cctui.cli_index",
    "cctui.cli_policy",
]
"""The rooms under the front ends (the first contract's layers), and the subcommands that
print without a UI."""


def _ui_loaded_by(*modules: str) -> str:
    """The UI packages a fresh Python has loaded after importing ``modules``."""
    code = (
        f"import sys, {', '.join(modules)}\n"
        "print(','.join(m for m in ('textual', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.process
def test_headless_modules_do_not_load_the_ui() -> None:
    """All of them in one fresh Python: a module that loads the UI alone loads it with the
    others too, so one process answers for all (each costs a Python start, ~1 s of CPU);
    only when it fails is each tried alone, to name the one."""
    if not _ui_loaded_by(*HEADLESS):
        return
    culprits = {m: bad for m in HEADLESS if (bad := _ui_loaded_by(m))}
    raise AssertionError(f"headless modules imported the UI: {culprits}")


@pytest.mark.process
def test_the_mcp_server_does_not_load_textual() -> None:
    code = "import sys, cctui.mcp_server.server\nprint('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.process
def test_the_tui_draws_before_the_sdks_are_imported() -> None:
    """What cctui imports before its first frame leaves out claude-agent-sdk and mcp (about a
    second: ``cli._LaterHttp`` imports them once the list is on screen)."""
    code = (
        "import sys, cctui.cli, cctui.services, cctui.history, cctui.tui.app\n"
        "print(','.join(m for m in ('claude_agent_sdk', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_session_ids_are_told_apart_as_the_sdk_does() -> None:
    """``history._sdk.validate_uuid`` is cctui's (no SDK import to scan a directory); it
    must agree with the SDK's on what names a transcript."""
    from claude_agent_sdk._internal import sessions

    from cctui.history import _sdk

    names = [
        "0b7e5c1a-3f2d-4c8e-9a1b-2c3d4e5f6a7b",
        "0B7E5C1A-3F2D-4C8E-9A1B-2C3D4E5F6A7B",
        "0b7e5c1a3f2d4c8e9a1b2c3d4e5f6a7b",
        "0b7e5c1a-3f2d-4c8e-9a1b-2c3d4e5f6a7",
        "0b7e5c1a-3f2d-4c8e-9a1b-2c3d4e5f6a7b-x",
        "agent-0b7e5c1a",
        "",
        "memory",
    ]
    for name in names:
        assert _sdk.validate_uuid(name) == sessions._validate_uuid(name), name
