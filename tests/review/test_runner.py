"""The review runner over the session core (FakeDriver: no process), every way a run ends."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import SessionManager, SessionStatus
from cctui.core.session.turns import TurnLedger
from cctui.errors import CliNotFound
from cctui.review import READ_ONLY_TOOLS, ReviewService
from cctui.review.runner import WRITE_TOOLS, read_rules
from tests.fakes.fake_driver import (
    FakeDriver,
    FakeDriverFactory,
    crash,
    fail,
    fake_driver_factory,
    sleep,
    tool,
)
from tests.fakes.fake_driver import text as say

VERDICT = '{"verdict": "CONDITIONAL", "summary": "ok", "blocking_issues": [], "suggestions": ["x"]}'


async def review(
    settings: Settings, factory: FakeDriverFactory
) -> tuple[SessionManager, ReviewService]:
    manager = SessionManager(settings, driver_factory=factory)
    await manager.start()
    return manager, ReviewService(manager, settings)


@pytest.fixture
async def run(review_settings: Settings):  # type: ignore[no-untyped-def]
    made: list[SessionManager] = []

    async def go(script: Any, **settings: Any) -> tuple[SessionManager, ReviewService, Any]:
        factory = fake_driver_factory(script)
        manager, svc = await review(review_settings.model_copy(update=settings), factory)
        made.append(manager)
        return manager, svc, factory

    yield go
    for m in made:
        await m.shutdown()


async def test_a_judge_review_runs_locked_down_and_writes_reports(
    run: Any, handoff: Path, project: Path
) -> None:
    manager, svc, factory = await run(
        {"You are the Judge": [say(VERDICT)]}, allowed_tools=("Bash", "Read")
    )
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert out.success and out.verdict == "CONDITIONAL" and out.blocking_issues_count == 0
    assert out.task_id == "T-42" and out.attempts == 1
    assert Path(out.report_md_path or "").parent == project / "_handoff"
    spec = factory.specs[0]
    assert spec.permission_mode == "dontAsk" and not spec.skip_permissions
    # Only the read-only tools, only inside the project; the settings' Bash is not merged in.
    assert spec.allowed_tools == (
        f"Read(/{project}/**)",
        f"Grep(/{project}/**)",
        f"Glob(/{project}/**)",
    )
    assert set(WRITE_TOOLS) <= set(spec.disallowed_tools) and "Bash" in spec.disallowed_tools
    assert spec.cwd == project
    sent = factory.drivers[0].sent[0]
    assert "def greet()" in sent and "src/gone.py\n(missing" in sent
    info = manager.get(out.session_id or "")
    assert info.status == SessionStatus.COMPLETED and not info.is_active
    assert "review" in info.config.tags


async def test_reports_that_cannot_be_written_still_return_the_verdict(
    run: Any, handoff: Path
) -> None:
    (handoff.parent / "JUDGE_REPORT.json").mkdir()  # os.replace onto a directory fails
    _, svc, _ = await run({"*": [say(VERDICT)]})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert not out.success and out.error == "report_error" and out.verdict == "CONDITIONAL"
    assert out.report_json_path is None and "could not be written" in (out.error_message or "")
    assert [p.name for p in handoff.parent.iterdir() if p.name.startswith(".")] == []


async def test_an_ask_is_denied_without_bothering_anyone(run: Any, handoff: Path) -> None:
    script = {
        "You are the Judge": [tool("Write", {"file_path": "x", "content": "y"}), say(VERDICT)]
    }
    manager, svc, factory = await run(script)
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert out.success and out.refused_tools == ["Write"]
    answers = factory.drivers[0].answers
    assert [(a.allow, a.message) for a in answers] == [(False, "Review sessions are read-only.")]
    assert manager.pending() == []


async def test_not_json_is_retried_once_then_parse_error(run: Any, handoff: Path) -> None:
    _, svc, factory = await run({"could not be used": [say("still prose")], "*": [say("prose")]})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert not out.success and out.error == out.error_code == "parse_error" and out.attempts == 2
    # Both attempts were paid for (the fake CLI charges 0.01 a turn).
    assert out.cost_usd == pytest.approx(0.02)
    assert out.report_json_path is None and not (handoff.parent / "JUDGE_REPORT.json").exists()
    retry = factory.drivers[0].sent[1]
    assert "could not be used: the answer is not JSON." in retry and '"verdict"' in retry

    _, svc, _ = await run({"could not be used": [say(VERDICT)], "*": [say("prose")]})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert out.success and out.attempts == 2 and out.verdict == "CONDITIONAL"


async def test_a_failed_run_keeps_its_cost_and_refusals(run: Any, handoff: Path) -> None:
    script = {
        "You are the Judge": [tool("Write", {"file_path": "x", "content": "y"}), say("prose")],
        "could not be used": [say("more prose")],
    }
    _, svc, _ = await run(script)
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert out.error_code == "parse_error" and out.attempts == 2
    assert out.cost_usd == pytest.approx(0.02) and out.refused_tools == ["Write"]


def test_tokens_are_summed_from_each_turns_usage() -> None:
    ledger = TurnLedger()
    assert ledger.tokens_used is None
    ledger.result(0.01, 1)  # a result without usage counts nothing
    assert ledger.tokens_used is None
    usage = {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 5}
    ledger.result(0.02, 1, usage)
    ledger.result(0.03, 1, {**usage, "cache_creation_input_tokens": 1, "x": 9})
    assert ledger.tokens_used == 125 + 126


async def test_tokens_reach_the_result_and_judge_report_json(
    run: Any, handoff: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, svc, _ = await run({"could not be used": [say(VERDICT)], "*": [say("prose")]})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert json.loads(Path(out.report_json_path or "").read_text())["tokens_used"] is None
    monkeypatch.setattr(FakeDriver, "usage", {"input_tokens": 5, "output_tokens": 2})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert out.success and out.attempts == 2 and out.tokens_used == 14
    assert json.loads(Path(out.report_json_path or "").read_text())["tokens_used"] == 14


async def test_timeout_kills_the_process(run: Any, handoff: Path) -> None:
    manager, svc, factory = await run({"*": [sleep(60), say(VERDICT)]})
    out = await svc.judge_review(str(handoff), timeout_seconds=1)
    assert not out.success and out.error == out.error_code == "timeout"
    assert out.timed_out and out.attempts == 1
    info = manager.get(out.session_id or "")
    assert not info.is_active and info.status == SessionStatus.INTERRUPTED
    assert factory.drivers[0].closed


async def test_crash_and_error_results_are_reported(run: Any, handoff: Path) -> None:
    _, svc, _ = await run({"*": [crash("segfault ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijk")]})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    # Seed 001 §4.4: a crash is {success: false, error: stderr}; the code is beside it.
    assert not out.success and out.error_code == "cli_crash"
    assert "segfault" in (out.error or "") and out.error == out.stderr
    assert "sk-ant-api03" not in out.model_dump_json()
    _, svc, _ = await run({"*": [fail("API Error: 500 overloaded")]})
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert not out.success and out.error == out.error_code == "claude_error"
    assert "500" in (out.error_message or "")


async def test_cli_missing_and_cli_that_cannot_start(
    run: Any, handoff: Path, tmp_path: Path
) -> None:
    manager, svc, factory = await run({}, claude_code_path=tmp_path / "no" / "claude")
    out = await svc.validate_proposal(str(handoff))
    assert not out.success and out.error == out.error_code == "cli_missing"
    assert factory.drivers == [] and out.attempts == 0 and out.session_id is None
    assert out.cost_usd == 0.0 and out.tokens_used is None
    factory2 = fake_driver_factory(connect_error=CliNotFound("claude did not start: boom"))
    manager2, svc2 = await review(manager.settings.model_copy(update={"claude_code_path": None}),
                                  factory2)  # fmt: skip
    try:
        out = await svc2.validate_proposal(str(handoff))
        assert not out.success and out.error_code == "cli_crash"
        assert "boom" in (out.error or "") and "boom" in (out.stderr or "")
    finally:
        await manager2.shutdown()


async def test_the_other_three_reviews(run: Any, handoff: Path, project: Path) -> None:
    (project / "_handoff" / "PROPOSAL_FINAL.md").write_text("# Add greet()\n")
    (project / "_handoff" / "JUDGE_REPORT.md").write_text("FAIL: greet is wrong")
    (project / "_handoff" / "REBUTTAL.md").write_text("The Judge misread the spec.")
    script = {
        "You check proposals": [say('{"valid": false, "issues": ["no acceptance criteria"]}')],
        "security auditor": [
            say(
                '{"findings": [{"file": "src/greet.py", "line": 2, "severity": "low",'
                ' "description": "none really"}]}'
            )
        ],
        "Floor Manager and the Judge disagree": [
            say('{"side": "judge", "reasoning": "the spec says hello"}')
        ],
    }
    _, svc, factory = await run(script)
    proposal = await svc.validate_proposal("_handoff/PROPOSAL_FINAL.md")
    assert proposal.success and proposal.valid is False
    assert proposal.issues == ["no acceptance criteria"]
    audit = await svc.security_audit(["src/greet.py"], str(project))
    assert audit.success and audit.findings_count == 1 and audit.findings[0].line == 2
    conflict = await svc.resolve_conflict(
        str(handoff), "_handoff/REBUTTAL.md", "_handoff/JUDGE_REPORT.md"
    )
    assert conflict.success and conflict.side == "judge"
    assert "The Judge misread the spec." in factory.drivers[2].sent[0]
    assert all(s.allowed_tools == read_rules(project) for s in factory.specs)
    assert all(s.permission_mode == "dontAsk" for s in factory.specs)


def test_read_rules_stay_inside_the_root(tmp_path: Path) -> None:
    assert read_rules(Path("/srv/app")) == (
        "Read(//srv/app/**)",
        "Grep(//srv/app/**)",
        "Glob(//srv/app/**)",
    )
    # A path the rule syntax cannot carry gets no blanket rule instead.
    assert read_rules(Path("/srv/odd (copy)")) == ()
    assert all(t in READ_ONLY_TOOLS for t in ("Read", "Grep", "Glob"))


async def test_progress_is_reported_while_claude_works(
    run: Any, handoff: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cctui.review.runner.PROGRESS_EVERY_S", 0.05)
    _, svc, _ = await run({"*": [sleep(0.5), say(VERDICT)]})
    seen: list[str] = []

    async def progress(message: str) -> None:
        seen.append(message)

    out = await svc.judge_review(str(handoff), timeout_seconds=30, progress=progress)
    assert out.success
    assert seen[0].startswith("Claude is reviewing: 0 s")
    assert any(m.startswith("Still reviewing") for m in seen[1:])
    assert all(out.session_id in m for m in seen)


async def test_a_cancelled_review_kills_its_process(run: Any, handoff: Path) -> None:
    manager, svc, factory = await run({"*": [sleep(60), say(VERDICT)]})
    running = asyncio.Event()

    async def progress(message: str) -> None:
        running.set()

    task = asyncio.create_task(svc.judge_review(str(handoff), progress=progress))
    await asyncio.wait_for(running.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (info,) = manager.list()
    assert not info.is_active and info.status == SessionStatus.INTERRUPTED
    assert factory.drivers[0].closed


async def test_reviews_use_the_launch_prefix_and_a_missing_one_is_reported(
    run: Any, handoff: Path, project: Path
) -> None:
    _, svc, factory = await run(
        {"*": [say(VERDICT)]}, project_launch_prefixes={project: ("env", "A=1")}
    )
    assert (await svc.judge_review(str(handoff), timeout_seconds=30)).success
    assert factory.specs[0].launch_prefix == ("env", "A=1")
    _, svc, factory = await run({"*": [say(VERDICT)]}, launch_prefix=("no-such-wrapper-10a",))
    out = await svc.judge_review(str(handoff), timeout_seconds=30)
    assert not out.success and out.error == "cli_missing" and factory.drivers == []
    assert "no-such-wrapper-10a" in (out.error_message or "")
