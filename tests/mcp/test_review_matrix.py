"""Every review tool against every way Claude's answer can go, through a real MCP client on
the ``menu`` profile (in memory, FakeDriver behind the sessions, so the whole matrix takes
seconds): a valid JSON answer, an invalid one (parse_error after exactly one retry), an
answer slower than the timeout (process killed), and a Write attempt (refused, then the
answer). ``test_review_e2e.py`` runs each of these once with the real CLI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager, SessionStatus
from cctui.mcp_server.server import build_server
from cctui.review import WRITE_TOOLS
from tests.fakes.fake_driver import FakeDriverFactory, Step, fake_driver_factory, sleep, tool
from tests.fakes.fake_driver import text as say
from tests.mcp.conftest import client


@dataclass(frozen=True)
class Tool:
    """One review tool: the words that pick its fixed template, a valid answer, the
    arguments of a call, and what its result must then say."""

    name: str
    marker: str
    answer: dict[str, Any]
    args: dict[str, Any]
    expected: dict[str, Any]


TOOLS = [
    Tool(
        "claude_judge_review",
        "You are the Judge",
        {"verdict": "FAIL", "blocking_issues": [{"description": "returns 'hi'"}]},
        {"contract_path": "_handoff/TASK_CONTRACT.json"},
        {"verdict": "FAIL", "blocking_issues_count": 1},
    ),
    Tool(  # seed 001's name for the Judge
        "claude_review",
        "You are the Judge",
        {"verdict": "PASS", "blocking_issues": []},
        {"contract_path": "_handoff/TASK_CONTRACT.json"},
        {"verdict": "PASS", "blocking_issues_count": 0},
    ),
    Tool(
        "claude_validate_proposal",
        "You check proposals",
        {"valid": False, "issues": ["no acceptance criteria"]},
        {"proposal_path": "_handoff/PROPOSAL_FINAL.md"},
        {"valid": False, "issues": ["no acceptance criteria"]},
    ),
    Tool(
        "claude_security_audit",
        "security auditor",
        {"findings": [{"file": "app.py", "line": 2, "severity": "low", "description": "x"}]},
        {"files": ["app.py"], "working_directory": "."},
        {"findings_count": 1},
    ),
    Tool(
        "claude_resolve_conflict",
        "Floor Manager and the Judge disagree",
        {"side": "judge", "reasoning": "the spec says hello"},
        {
            "contract_path": "_handoff/TASK_CONTRACT.json",
            "rebuttal_path": "_handoff/REBUTTAL.md",
            "judge_report_path": "_handoff/JUDGE_REPORT.md",
        },
        {"side": "judge", "reasoning": "the spec says hello"},
    ),
]
SCENARIOS = ["valid", "invalid", "timeout", "write"]
RETRY = "could not be used"
"""Words of the retry prompt that asks again for valid JSON."""


def script(t: Tool, scenario: str) -> dict[str, list[Step]]:
    valid = say(json.dumps(t.answer))
    firsts: dict[str, list[Step]] = {
        "valid": [valid],
        "invalid": [say("Looks fine to me, no JSON needed.")],
        "timeout": [sleep(60), valid],
        "write": [tool("Write", {"file_path": "app.py", "content": "pwned"}), valid],
    }
    return {RETRY: [say("Still prose.")], t.marker: firsts[scenario]}


@pytest.fixture
def docs(project: Path) -> Path:
    """Every document the four tools read, in a project that is the review root."""
    (project / "app.py").write_text("def greet():\n    return 'hi'\n")
    handoff = project / "_handoff"
    handoff.mkdir()
    contract = {"task_id": "T-9", "changed_files": ["app.py"]}
    (handoff / "TASK_CONTRACT.json").write_text(json.dumps(contract))
    (handoff / "PROPOSAL_FINAL.md").write_text("# Add greet()\n")
    (handoff / "JUDGE_REPORT.md").write_text("FAIL: greet is wrong")
    (handoff / "REBUTTAL.md").write_text("The Judge misread the spec.")
    return project


@pytest.fixture
def factory(t: Tool, scenario: str) -> FakeDriverFactory:
    return fake_driver_factory(script(t, scenario))


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("t", TOOLS, ids=[t.name for t in TOOLS])
async def test_each_tool_in_each_scenario(
    manager: SessionManager,
    settings: Settings,
    factory: FakeDriverFactory,
    docs: Path,
    t: Tool,
    scenario: str,
) -> None:
    timeout = 1 if scenario == "timeout" else 30
    menu = settings.model_copy(update={"tools_profile": "menu"})
    async with client(build_server(manager, menu)) as c:
        r = await c.call_tool(t.name, {**t.args, "timeout_seconds": timeout})
    assert not r.is_error, r.content
    out = r.structured_content or {}
    (driver,) = factory.drivers
    (spec,) = factory.specs
    # Whatever happens, the session was read-only and its process is gone.
    assert spec.permission_mode == "dontAsk" and not spec.skip_permissions
    assert set(WRITE_TOOLS) <= set(spec.disallowed_tools)
    assert t.marker in driver.sent[0] and driver.closed
    info = manager.get(out["session_id"])
    assert not info.is_active and "review" in info.config.tags
    judge_report = docs / "_handoff" / "JUDGE_REPORT.json"

    if scenario in ("valid", "write"):
        assert out["success"] is True and out["error"] is None, out
        assert {k: out[k] for k in t.expected} == t.expected
        assert out["attempts"] == 1 and len(driver.sent) == 1
        assert out["cost_usd"] == pytest.approx(0.01)
        assert info.status == SessionStatus.COMPLETED
        if "verdict" in t.expected:
            assert json.loads(judge_report.read_text())["verdict"] == t.expected["verdict"]
    if scenario == "valid":
        assert out["refused_tools"] == [] and driver.answers == []
    if scenario == "write":
        # The ask was denied by the runner and nobody was asked.
        assert out["refused_tools"] == ["Write"]
        assert [(a.allow, a.message) for a in driver.answers] == [
            (False, "Review sessions are read-only.")
        ]
        assert manager.pending() == []
    if scenario == "invalid":
        assert out["success"] is False and out["error"] == out["error_code"] == "parse_error"
        assert out["attempts"] == 2 and len(driver.sent) == 2 and RETRY in driver.sent[1]
        assert out["cost_usd"] == pytest.approx(0.02)  # both answers were paid for
        assert out["retryable"] is True and out["timed_out"] is False
    if scenario == "timeout":
        assert out["success"] is False and out["timed_out"] is True
        assert out["error"] == out["error_code"] == "timeout" and out["attempts"] == 1
        assert info.status == SessionStatus.INTERRUPTED
    # The audit log and the metrics count a failed review as the failure it is.
    [call] = [r for r in manager.audit.read() if r["event"] == "tool_call"]
    assert call["tool"] == t.name and call["outcome"] == (out["error_code"] or "ok")
    if scenario != "valid" and scenario != "write":
        assert all(out.get(k) in (None, [], 0) for k in t.expected), out
        assert not judge_report.exists()
