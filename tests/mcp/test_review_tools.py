"""The review tools through a real MCP client (in memory, FakeDriver behind the sessions):
seed 001's fields, bad paths refused before anything is read, structured failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager
from cctui.mcp_server.server import build_server
from cctui.mcp_server.transport.http import HttpService
from cctui.services import Services
from tests.fakes.fake_driver import FakeDriverFactory, fake_driver_factory
from tests.fakes.fake_driver import text as say
from tests.mcp.conftest import authed, client

VERDICT = json.dumps(
    {
        "verdict": "FAIL",
        "summary": "greet returns the wrong word",
        "blocking_issues": [{"description": "returns 'hi'", "file": "app.py", "line": 1}],
    }
)


@pytest.fixture
def factory() -> FakeDriverFactory:
    return fake_driver_factory({"You are the Judge": [say(VERDICT)]})


@pytest.fixture
def contract(project: Path) -> Path:
    (project / "app.py").write_text("def greet():\n    return 'hi'\n")
    (project / "_handoff").mkdir()
    path = project / "_handoff" / "TASK_CONTRACT.json"
    path.write_text(json.dumps({"task_id": "T-7", "changed_files": ["app.py"]}))
    return path


def refusal(result: Any) -> dict[str, Any]:
    """A refused review call, in seed 001's shape: a normal result with ``success`` false
    (its clients parse every answer as ``{success, ...}``), read as ``{code, message, ...}``."""
    assert not result.is_error, result.content
    body = result.structured_content
    assert body is not None and body["success"] is False, body
    assert body["error"] == body["error_code"] and body.get("verdict") is None, body
    assert json.loads(result.content[0].text) == body  # the text is the same JSON
    return {"code": body["error_code"], "message": body["error_message"], **body}


def menu(settings: Settings, **update: Any) -> Settings:
    return settings.model_copy(update={"tools_profile": "menu", **update})


async def test_judge_review_returns_the_seed_fields(
    manager: SessionManager, settings: Settings, contract: Path, project: Path
) -> None:
    notes: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append(message)

    async with client(build_server(manager, menu(settings))) as c:
        r = await c.call_tool(
            "claude_judge_review", {"contract_path": str(contract)}, progress_callback=on_progress
        )
    assert not r.is_error, r.content
    assert notes and (notes[0] or "").startswith("Claude is reviewing")
    out = r.structured_content or {}
    assert out["success"] is True and out["verdict"] == "FAIL"
    assert out["blocking_issues_count"] == 1 and isinstance(out["duration_ms"], int)
    assert out["report_md_path"] == str(project / "_handoff" / "JUDGE_REPORT.md")
    report = json.loads(Path(out["report_json_path"]).read_text())
    assert report["task_id"] == "T-7" and report["blocking_issues"][0]["line"] == 1


async def test_claude_review_is_the_seeds_name_for_the_judge_over_http(
    manager: SessionManager,
    settings: Settings,
    factory: FakeDriverFactory,
    contract: Path,
    project: Path,
) -> None:
    """Seed 001's own examples call the Judge ``claude_review``: a seed client works as is."""
    service = HttpService(build_server(manager, menu(settings)), settings)
    await service.start()
    try:
        async with client(authed(service), name="gemini") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            alias, judge = tools["claude_review"], tools["claude_judge_review"]
            assert alias.input_schema == judge.input_schema
            assert alias.output_schema == judge.output_schema
            assert alias.annotations == judge.annotations
            assert (alias.description or "").startswith("Seed 001's name for claude_judge_review")
            # The seed's §3.1 example, as it is.
            r = await c.call_tool(
                "claude_review", {"contract_path": str(contract), "timeout_seconds": 600}
            )
    finally:
        await service.stop()
    assert not r.is_error, r.content
    out = r.structured_content or {}
    assert out["success"] is True and out["verdict"] == "FAIL" and out["blocking_issues_count"] == 1
    assert out["report_json_path"] == str(project / "_handoff" / "JUDGE_REPORT.json")
    assert json.loads(Path(out["report_json_path"]).read_text())["task_id"] == "T-7"
    assert "You are the Judge" in factory.drivers[0].sent[0]
    assert "claude_review" in (settings.state_dir / "audit.jsonl").read_text()


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("claude_judge_review", {"contract_path": "/etc/passwd"}),
        ("claude_review", {"contract_path": "/etc/passwd"}),
        ("claude_judge_review", {"contract_path": "../outside/c.json"}),
        (
            "claude_judge_review",
            {"contract_path": "_handoff/TASK_CONTRACT.json", "report_dir": "/tmp"},
        ),
        ("claude_validate_proposal", {"proposal_path": "/etc/hostname"}),
        ("claude_security_audit", {"files": ["../../etc/passwd"], "working_directory": "."}),
        ("claude_security_audit", {"files": ["app.py"], "working_directory": "/etc"}),
        (
            "claude_resolve_conflict",
            {
                "contract_path": "_handoff/TASK_CONTRACT.json",
                "rebuttal_path": "/etc/passwd",
                "judge_report_path": "_handoff/TASK_CONTRACT.json",
            },
        ),
    ],
)
async def test_paths_outside_the_roots_are_refused_and_nothing_runs(
    manager: SessionManager,
    settings: Settings,
    factory: FakeDriverFactory,
    contract: Path,
    tool: str,
    args: dict[str, Any],
) -> None:
    async with client(build_server(manager, menu(settings))) as c:
        body = refusal(await c.call_tool(tool, args))
    assert body["code"] == "path_not_allowed", body
    assert "review_roots" in (body["suggestion"] or "")
    assert factory.drivers == []


async def test_changed_file_outside_the_roots_refuses_the_whole_review(
    manager: SessionManager, settings: Settings, factory: FakeDriverFactory, contract: Path
) -> None:
    contract.write_text(json.dumps({"changed_files": ["app.py", "../../etc/shadow"]}))
    async with client(build_server(manager, menu(settings))) as c:
        body = refusal(await c.call_tool("claude_judge_review", {"contract_path": str(contract)}))
    assert body["code"] == "path_not_allowed" and "changed file" in body["message"]
    assert factory.drivers == []


async def test_a_registered_project_is_a_root_too(
    manager: SessionManager, settings: Settings, tmp_path: Path
) -> None:
    other = tmp_path / "registered"
    (other / "_handoff").mkdir(parents=True)
    (other / "_handoff" / "TASK_CONTRACT.json").write_text("{}")
    shown = menu(settings)
    services = Services.build(shown, manager, project_roots=lambda: [other])
    server = build_server(manager, shown, services=services)
    async with client(server) as c:
        r = await c.call_tool(
            "claude_judge_review",
            {"contract_path": str(other / "_handoff" / "TASK_CONTRACT.json")},
        )
    assert not r.is_error and (r.structured_content or {})["success"] is True
    assert (other / "_handoff" / "JUDGE_REPORT.json").exists()


async def test_bad_documents_and_arguments_are_structured_errors(
    manager: SessionManager, settings: Settings, contract: Path, project: Path
) -> None:
    (project / "notes.txt").write_text("not json")
    async with client(build_server(manager, menu(settings))) as c:
        missing = await c.call_tool("claude_judge_review", {"contract_path": "nope.json"})
        assert refusal(missing)["code"] == "document_not_found"
        assert "verdict" in refusal(missing)  # the Judge's own shape: verdict null
        bad = await c.call_tool("claude_judge_review", {"contract_path": "notes.txt"})
        assert refusal(bad)["code"] == "invalid_contract"
        no_arg = await c.call_tool("claude_judge_review", {})
        assert refusal(no_arg)["code"] == "validation_error"
        too_long = await c.call_tool(
            "claude_judge_review", {"contract_path": str(contract), "timeout_seconds": 0}
        )
        assert refusal(too_long)["code"] == "validation_error"
        no_files = await c.call_tool(
            "claude_security_audit", {"files": [], "working_directory": str(project)}
        )
        assert refusal(no_files)["code"] == "validation_error"


async def test_cli_missing_is_reported_by_health_and_by_every_review(
    manager: SessionManager, settings: Settings, contract: Path, tmp_path: Path
) -> None:
    broken = menu(settings, claude_code_path=tmp_path / "no" / "claude")
    async with client(build_server(manager, broken)) as c:
        health = (await c.call_tool("claude_health", {})).structured_content or {}
        assert health["available"] is False and health["error"]
        r = await c.call_tool("claude_judge_review", {"contract_path": str(contract)})
    out = r.structured_content or {}
    assert out["success"] is False and out["error"] == "cli_missing"
    assert "CLAUDE_CODE_PATH" in (out["suggestion"] or "")
    assert not (contract.parent / "JUDGE_REPORT.json").exists()
