"""claude_query with default-mode (2026-07-28) clients: the real ``claude`` CLI against the
fake API, over real HTTP.

The Bash permission rides an input-required round and the run goes on when the client
retries with the answer; a client that cannot be asked gets the input back at once (no TUI
here) rather than after the permission timeout (20 s in these settings).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.types import LoggingMessageNotificationParams

from cctui.mcp_server.transport.http import HttpService
from tests.mcp.conftest import Answers, authed, client, ok

pytestmark = pytest.mark.e2e


async def test_a_default_mode_client_is_asked_and_the_query_succeeds(
    real_http: HttpService, project_dir: Path
) -> None:
    answers = Answers("accept", {"decision": "allow"})
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with client(
        authed(real_http),
        name="desktop",
        elicit=answers,
        logging_callback=on_log,
        log_level="debug",
    ) as c:  # mode="auto"
        out = await ok(c, "claude_query", {"prompt": "[[bash cmd=echo hi > out.txt]]"})
    assert len(answers.asked) == 1 and "Bash" in answers.asked[0], answers.asked
    # The command ran: the client's answer allowed it (a permission timeout denies).
    assert (project_dir / "out.txt").read_text().strip() == "hi"
    result = out["result"]
    assert result["success"] is True and result["summary"].startswith("Tool result:"), out
    assert "(error)" not in result["summary"] and result["error"] is None
    assert out["usage"] is not None and isinstance(out["executionTime"], int)
    notes = [p.data for p in logs if p.logger == "claude-code/messages"]
    assert notes and all(n["sessionId"] == out["sessionId"] for n in notes)


async def test_a_default_mode_client_that_cannot_be_asked_is_told_at_once(
    real_http: HttpService, project_dir: Path
) -> None:
    async with client(authed(real_http), name="plain") as c:  # mode="auto", no elicitation
        out = await ok(c, "claude_query", {"prompt": "[[bash cmd=echo hi > late.txt]]"})
        [pending] = out["pendingInputs"]
        sid = out["sessionId"]
        assert pending["toolName"] == "Bash" and out["result"]["success"] is False, out
        assert pending["inputId"] in out["result"]["error"] and "claude_respond" in out["error"]
        # Told at once, not after the permission timeout: the input is still open, so this
        # answer is the one taken (a timeout would have denied it, and this would fail as
        # already answered). Read from the answer, not a wall clock.
        await ok(
            c,
            "claude_respond",
            {"sessionId": sid, "inputId": pending["inputId"], "decision": "allow"},
        )
        waited = await ok(c, "claude_wait", {"sessionId": sid, "timeoutMs": 50_000})
    assert waited["reason"] in ("turn_ended", "session_ended"), waited
    assert (project_dir / "late.txt").read_text().strip() == "hi"
