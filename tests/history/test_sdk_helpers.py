"""history._sdk: the SDK's transcript helpers, and a one-shot command's lighter load of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.history.conftest import SAMPLES

_CHECK = """
import sys
from pathlib import Path
from cctui.history import _sdk, one_shot_command
from cctui.history.transcripts import read_meta

samples = sorted(Path(sys.argv[1]).glob("transcript-*.jsonl"))
with one_shot_command():
    light = [read_meta(p, p.stem) for p in samples]
loaded = sorted(m for m in sys.modules if m.startswith(("claude_agent_sdk", "mcp")))
assert loaded == [], loaded  # neither the SDK's package nor the mcp SDK was imported

import claude_agent_sdk  # the package proper, whole, as if the helpers had not been read
from claude_agent_sdk import ClaudeSDKClient  # noqa: F401
assert claude_agent_sdk.types.SDKSessionInfo is not None
assert "mcp" in sys.modules
_sdk._sessions.cache_clear()
whole = [read_meta(p, p.stem) for p in samples]
assert light == whole and all(m is not None for m in light), (light, whole)
print(len(light))
"""


@pytest.mark.process  # a fresh interpreter: out of make test-fast, in make check
def test_a_one_shot_command_reads_a_transcript_without_the_mcp_sdk() -> None:
    """``cctui sessions`` after a transcript changed read it through the SDK's helpers, and
    importing the SDK's package imported the whole mcp SDK (~1 s of CPU, a 0.35 s command
    became 1.5 s). In a one-shot command the helpers load alone; what they read is what the
    package's own copy reads, and the package still imports whole afterwards. A fresh
    interpreter: this one has the SDK imported already."""
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(SAMPLES)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"
