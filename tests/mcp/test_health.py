"""claude_health's report when the CLI fails: its output is shown, secrets are not."""

from __future__ import annotations

from pathlib import Path

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
