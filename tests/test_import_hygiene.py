"""The headless rooms never load the UI (import-linter checks the source; this checks what
actually lands in ``sys.modules``).

claude-agent-sdk itself imports ``mcp.server`` (for its in-process tool servers), so whether
our headless code imports mcp is left to import-linter's static contracts.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADLESS = ["cctui.core", "cctui.history", "cctui.config", "cctui.claude"]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_load_the_ui(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "bad = [m for m in ('textual', 'rich') "
        "if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"


def test_the_mcp_server_does_not_load_textual() -> None:
    code = "import sys, cctui.mcp_server.server\nprint('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
