"""The review menu end to end: a real MCP client over HTTP on the ``menu`` profile, the real
``claude`` CLI behind each review, the fake Anthropic API scripted per case.

One test per tool, each covering one way a review can go: a Write attempt (refused by the
CLI, no file) before a valid verdict; not-JSON once (the retry succeeds); not-JSON twice
(parse_error); an answer slower than the timeout (process killed). Plus a CLI that crashes
at start (a script standing in for ``claude``), whose stderr comes back redacted.
``test_review_matrix.py`` runs every tool in every one of these scenarios (FakeDriver).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest

from cctui.config import Settings
from cctui.core import SessionManager, SessionStatus, StatusChanged
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from tests.fakes.anthropic_api import FakeAnthropicAPI, Reply, text, tool_use
from tests.mcp.conftest import authed, client

pytestmark = pytest.mark.e2e

VERDICT = {
    "task_id": "T-1",
    "verdict": "CONDITIONAL",
    "summary": "Works; one edge case.",
    "blocking_issues": [],
    "suggestions": ["handle an empty name"],
    "acceptance_criteria": [{"criterion": "greets", "met": True}],
}


@pytest.fixture
async def menu(real_settings: Settings) -> AsyncIterator[tuple[HttpService, SessionManager]]:
    settings = real_settings.model_copy(update={"tools_profile": "menu"})
    manager = SessionManager(settings)
    await manager.start()
    service = HttpService(build_server(manager, settings), settings)
    await service.start()
    yield service, manager
    await service.stop()
    await manager.shutdown()


@pytest.fixture
def handoff(project_dir: Path) -> Path:
    (project_dir / "greet.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    (project_dir / "_handoff").mkdir()
    contract = project_dir / "_handoff" / "TASK_CONTRACT.json"
    contract.write_text(
        json.dumps(
            {
                "task_id": "T-1",
                "specification": {"requirements": ["greet(name) says hello"]},
                "acceptance_criteria": ["greets"],
                "changed_files": ["greet.py"],
            }
        )
    )
    return contract


async def call(service: HttpService, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with client(authed(service), name="floor-manager") as c:
        r = await c.call_tool(tool, args)
    assert not r.is_error, r.content
    assert r.structured_content is not None
    return cast("dict[str, Any]", r.structured_content)


def main_prompts(fake_api: FakeAnthropicAPI) -> list[str]:
    return [r.prompt for r in fake_api.message_requests if r.summary.get("tools")]


async def test_judge_write_is_refused_then_verdict_and_reports(
    menu: tuple[HttpService, SessionManager],
    fake_api: FakeAnthropicAPI,
    handoff: Path,
    project_dir: Path,
    tmp_path: Path,
) -> None:
    service, _ = menu
    target = project_dir / "pwned.txt"
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    fake_api.add_rule(
        contains="You are the Judge",
        tool_result=False,
        reply=Reply(content=[tool_use("Write", {"file_path": str(target), "content": "x"})]),
    )
    fake_api.add_rule(
        tool_name="Write",
        reply=Reply(content=[tool_use("Read", {"file_path": str(secret)})]),
    )
    fake_api.add_rule(
        tool_name="Read",
        tool_result_contains="denied",
        reply=Reply(content=[tool_use("Read", {"file_path": str(project_dir / "greet.py")})]),
    )
    fake_api.add_rule(tool_name="Read", reply=json.dumps(VERDICT))
    out = await call(service, "claude_judge_review", {"contract_path": str(handoff)})
    assert out["success"] is True and out["verdict"] == "CONDITIONAL", out
    assert out["blocking_issues_count"] == 0 and out["refused_tools"] == ["Write", "Read"]
    # The CLI refused both: Write is not even offered; reading outside the project is denied
    # by dontAsk (Read is allowed inside the project only), reading inside it works.
    first = fake_api.message_requests[0].summary
    assert (
        "greet(name) says hello" in first["prompt"] and "return f'hello {name}'" in first["prompt"]
    )
    assert {"Read", "Grep", "Glob"} <= set(first["tools"])
    assert not {"Write", "Edit", "Bash", "NotebookEdit"} & set(first["tools"])
    results = [
        r.summary["tool_results"] for r in fake_api.message_requests if r.summary["is_tool_result"]
    ]
    write_result, secret_result, inside_result = (r[0] for r in results)
    assert write_result["is_error"] and "Write is disabled" in write_result["content"]
    assert secret_result["is_error"]
    assert "Permission to use Read has been denied" in secret_result["content"]
    assert "TOPSECRET" not in json.dumps([r.summary for r in fake_api.message_requests])
    assert not inside_result["is_error"] and "def greet(name)" in inside_result["content"]
    assert not target.exists()
    # cctui wrote the reports from the JSON answer.
    report = json.loads(Path(out["report_json_path"]).read_text())
    assert report["verdict"] == "CONDITIONAL" and report["suggestions"] == ["handle an empty name"]
    assert out["suggestions"] == report["suggestions"]  # seed 001's schema lists them too
    # The CLI's usage of the review's four model calls, summed (the fake API reports some).
    assert isinstance(report["tokens_used"], int) and report["tokens_used"] > 1000
    assert report["tokens_used"] == out["tokens_used"] and report["cost_usd"] == out["cost_usd"]
    assert Path(out["report_md_path"]).read_text().startswith("# Judge report: T-1")
    assert Path(out["report_md_path"]).parent == project_dir / "_handoff"


async def test_proposal_not_json_once_then_the_retry_answers(
    menu: tuple[HttpService, SessionManager], fake_api: FakeAnthropicAPI, project_dir: Path
) -> None:
    service, manager = menu
    (project_dir / "PROPOSAL_FINAL.md").write_text("# Proposal\nAdd greet().\n")
    fake_api.add_rule(contains="You check proposals", kind="main", reply="Looks good to me!")
    fake_api.add_rule(
        contains="could not be used",
        kind="main",
        reply='```json\n{"valid": false, "issues": ["no acceptance criteria"]}\n```',
    )
    out = await call(service, "claude_validate_proposal", {"proposal_path": "PROPOSAL_FINAL.md"})
    assert out["success"] is True and out["attempts"] == 2
    assert out["valid"] is False and out["issues"] == ["no acceptance criteria"]
    prompts = main_prompts(fake_api)
    assert len(prompts) == 2 and "could not be used: the answer is not JSON." in prompts[1]
    info = manager.get(out["session_id"])
    assert info.status == SessionStatus.COMPLETED and not info.is_active


async def test_audit_valid_findings_then_parse_error_after_one_retry(
    menu: tuple[HttpService, SessionManager], fake_api: FakeAnthropicAPI, project_dir: Path
) -> None:
    service, _ = menu
    (project_dir / "db.py").write_text("q = 'SELECT * FROM t WHERE id=' + user_id\n")
    finding = {"file": "db.py", "line": 1, "severity": "high", "description": "SQL injection"}
    fake_api.add_rule(
        contains="security auditor",
        kind="main",
        once=True,
        reply=json.dumps({"findings": [finding]}),
    )
    args = {"files": ["db.py"], "working_directory": str(project_dir)}
    out = await call(service, "claude_security_audit", args)
    assert out["success"] is True and out["findings"][0]["file"] == "db.py"
    assert out["findings"][0]["line"] == 1 and out["findings"][0]["severity"] == "high"

    fake_api.reset()
    fake_api.add_rule(kind="main", reply="I'd rather explain in prose.")
    out = await call(service, "claude_security_audit", args)
    assert out["success"] is False and out["error"] == out["error_code"] == "parse_error"
    assert out["attempts"] == 2 and len(main_prompts(fake_api)) == 2  # exactly one retry
    # Both answers were paid for, and the result says so.
    assert out["cost_usd"] > 0 and out["tokens_used"] > 1000


async def test_conflict_slower_than_the_timeout_is_killed_then_answered(
    menu: tuple[HttpService, SessionManager],
    fake_api: FakeAnthropicAPI,
    handoff: Path,
    project_dir: Path,
) -> None:
    service, manager = menu
    (project_dir / "_handoff" / "JUDGE_REPORT.md").write_text("FAIL")
    (project_dir / "_handoff" / "REBUTTAL.md").write_text("The Judge is wrong.")
    fake_api.add_rule(
        kind="main",
        reply=Reply(content=[text('{"side": "judge", "reasoning": "late"}')], delay=120),
    )
    pids: list[int] = []

    def watch(ev: Any) -> None:
        if isinstance(ev, StatusChanged) and ev.status == SessionStatus.RUNNING:
            pid = manager.get(ev.session_id).pid
            if pid:
                pids.append(pid)

    unsubscribe = manager.subscribe(watch)
    args = {
        "contract_path": str(handoff),
        "rebuttal_path": "_handoff/REBUTTAL.md",
        "judge_report_path": "_handoff/JUDGE_REPORT.md",
        "timeout_seconds": 3,
    }
    try:
        out = await call(service, "claude_resolve_conflict", args)
    finally:
        unsubscribe()
    assert out["success"] is False and out["timed_out"] is True
    assert out["error"] == out["error_code"] == "timeout"
    assert out["side"] is None
    info = manager.get(out["session_id"])
    assert not info.is_active and info.status == SessionStatus.INTERRUPTED
    assert pids, "the review process was never seen running"
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

    # The same question answered in time.
    fake_api.reset()
    fake_api.add_rule(kind="main", reply='{"side": "floor_manager", "reasoning": "spec wins"}')
    out = await call(service, "claude_resolve_conflict", {**args, "timeout_seconds": 120})
    assert out["success"] is True and out["side"] == "floor_manager"
    assert out["reasoning"] == "spec wins" and out["timed_out"] is False
    prompt = main_prompts(fake_api)[0]
    assert "The Judge is wrong." in prompt and "FAIL" in prompt


async def test_a_cli_that_crashes_reports_redacted_stderr(
    real_settings: Settings, handoff: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\necho 'fatal: bad config ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnop' >&2\n"
        "exit 3\n"
    )
    fake.chmod(0o755)
    settings = real_settings.model_copy(update={"tools_profile": "menu", "claude_code_path": fake})
    manager = SessionManager(settings)
    await manager.start()
    try:
        async with client(build_server(manager, settings)) as c:
            r = await c.call_tool("claude_judge_review", {"contract_path": str(handoff)})
    finally:
        await manager.shutdown()
    out = r.structured_content or {}
    # Seed 001 §4.4: {success: false, error: stderr}; the code is in error_code.
    assert out["success"] is False and out["error_code"] == "cli_crash", out
    # Just what the CLI wrote, not the SDK's wrapper text around it.
    assert out["stderr"].startswith("fatal: bad config") and out["error"] == out["stderr"]
    assert "sk-ant-api03" not in json.dumps(out)
