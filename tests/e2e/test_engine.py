"""The session engine end to end: SessionManager + the real driver + the real bundled
``claude`` CLI, offline against the fake Messages API (``tests/fakes``)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cctui.config import Settings, load_settings
from cctui.core import (
    AssistantTextEvent,
    Decision,
    SessionEvent,
    SessionManager,
    SessionStatus,
    WaitOutcome,
)
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.procs import alive

pytestmark = pytest.mark.e2e
S = SessionStatus


@pytest.fixture
async def manager(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path
) -> AsyncIterator[SessionManager]:
    settings = Settings(
        claude_code_path=claude_bin,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=tmp_path / "state",
        permission_timeout_ms=30_000,
    )
    m = SessionManager(settings)
    await m.start()
    yield m
    await m.shutdown()


async def until(
    manager: SessionManager, sid: str, reason: str, timeout_s: float = 20
) -> WaitOutcome:
    outcome = await manager.wait(sid, timeout_s)
    assert outcome.reason == reason, outcome
    return outcome


async def test_turn_completes(manager: SessionManager, project_dir: Path) -> None:
    info = await manager.create("[[say text=Hello from fake]]", manager.default_config(project_dir))
    assert info.pid is not None
    outcome = await until(manager, info.session_id, "turn_ended")
    assert outcome.session.status == S.IDLE
    assert outcome.session.last_result == "Hello from fake"
    assert outcome.session.total_cost_usd > 0
    texts = [e for e in manager.events(info.session_id).events if e.kind == "text"]
    assert texts and texts[-1].text == "Hello from fake"


async def test_write_allowed_and_bash_denied(manager: SessionManager, project_dir: Path) -> None:
    info = await manager.create(
        "[[write path=hello.txt content=hi]]", manager.default_config(project_dir)
    )
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    assert item.kind == "permission" and item.tool_name == "Write"
    manager.respond(item.id, Decision(behavior="allow"), "tui")
    await until(manager, info.session_id, "turn_ended")
    assert (project_dir / "hello.txt").read_text() == "hi"

    await manager.send(info.session_id, "[[bash cmd=echo no > bash_out.txt]]")
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    assert item.tool_name == "Bash"
    manager.decisions.router.note_created(info.session_id, "t", can_ask=False)  # its own
    manager.respond(item.id, Decision(behavior="deny", message="Not this time"), "mcp:t")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert not (project_dir / "bash_out.txt").exists()
    assert "Not this time" in (outcome.session.last_result or "")
    states = {t.name: t.state for t in manager.tool_uses(info.session_id)}
    assert states == {"Write": "completed", "Bash": "denied"}
    decisions = [r["decision"] for r in manager.audit.read() if r["event"] == "decision"]
    assert decisions == ["allow", "deny"]


# The SDK warns that whole-tool allow rules skip can_use_tool: exactly what is asked here.
@pytest.mark.filterwarnings("ignore:can_use_tool will not be invoked")
async def test_seed_003_lowercase_allowed_tools_reach_the_cli(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path, project_dir: Path
) -> None:
    # Seed 003's own example spells tools in lower case; the CLI matches names exactly.
    env = dict(claude_env, CLAUDE_CODE_ALLOWED_TOOLS="read,write,edit,grep,glob")
    settings = load_settings(env=env, config_path=tmp_path / "none.toml")
    settings = settings.model_copy(
        update={"claude_code_path": claude_bin, "state_dir": tmp_path / "state"}
    )
    manager = SessionManager(settings)
    await manager.start()
    try:
        info = await manager.create(
            "[[write path=free.txt content=no prompt]]", manager.default_config(project_dir)
        )
        outcome = await until(manager, info.session_id, "turn_ended")
        assert not outcome.pending
        assert (project_dir / "free.txt").read_text() == "no prompt"
    finally:
        await manager.shutdown()


async def test_allow_for_the_session_uses_the_clis_own_rules(
    manager: SessionManager, project_dir: Path
) -> None:
    """`A` sends the CLI's own suggestions for this session only (nothing is written to a
    settings file): what they cover runs without asking, anything else still asks."""
    info = await manager.create("[[bash cmd=mkdir d1]]", manager.default_config(project_dir))
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    manager.respond(item.id, Decision(behavior="allow", always=True), "tui")
    await until(manager, info.session_id, "turn_ended")
    assert (project_dir / "d1").is_dir()
    assert not (project_dir / ".claude" / "settings.local.json").exists()

    await manager.send(info.session_id, "[[bash cmd=mkdir d2]]")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert outcome.pending == [] and (project_dir / "d2").is_dir()

    command = "python3 -c \"open('three.txt', 'w')\""
    await manager.send(info.session_id, f"[[bash cmd={command}]]")
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    assert item.tool_input["command"] == command
    manager.respond(item.id, Decision(behavior="deny"), "tui")
    await until(manager, info.session_id, "turn_ended")
    assert not (project_dir / "three.txt").exists()


async def test_plan_approved_and_rejected(manager: SessionManager, project_dir: Path) -> None:
    config = manager.default_config(project_dir, permission_mode="plan")
    info = await manager.create("[[plan text=# Rejected plan\\n1. nothing]]", config)
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    assert item.kind == "plan_review" and "Rejected plan" in (item.plan or "")
    manager.respond(item.id, Decision(behavior="deny", message="Add tests first"), "tui")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert "Add tests first" in (outcome.session.last_result or "")
    assert outcome.session.permission_mode == "plan"  # a rejected plan stays in plan mode

    await manager.send(info.session_id, "[[plan text=# Good plan\\n1. tests]]")
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    assert "Good plan" in (item.plan or "")
    manager.respond(item.id, Decision(behavior="allow"), "tui")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert "approved" in (outcome.session.last_result or "").lower()
    assert outcome.session.permission_mode == "default"  # the CLI left plan mode
    # The plan file is written outside the project (Claude Code's plans directory), and
    # the session's PreToolUse check lets it be: not a write outside the project.
    writes = [
        e for e in manager.events(info.session_id).events if e.kind == "tool" and e.name == "Write"
    ]
    assert writes and all(e.state != "denied" for e in writes), writes
    assert any(e.state == "completed" for e in writes)


async def test_question_answer_reaches_the_model(
    manager: SessionManager, project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    info = await manager.create("[[ask]]", manager.default_config(project_dir))
    [item] = (await until(manager, info.session_id, "input_needed")).pending
    assert item.kind == "user_question"
    question = item.questions[0]
    assert {o.label for o in question.options} >= {"Red", "Blue"}
    manager.respond(item.id, Decision(behavior="allow", answers={question.question: "Blue"}), "tui")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert "Blue" in (outcome.session.last_result or "")
    bodies = json.dumps([r.body for r in fake_api.requests if r.body])
    assert "Blue" in bodies


async def test_interrupt_stops_a_slow_turn_quickly(
    manager: SessionManager, project_dir: Path
) -> None:
    """The turn ends at the interrupt, not when the model's 60 s stream would have: its last
    chunk never arrives. (Read from what was said, not a wall-clock bound: on a loaded
    machine the interrupt takes a while, but never the rest of the stream.)"""
    texts: list[str] = []
    talking = asyncio.Event()

    def heard(ev: SessionEvent) -> None:
        if isinstance(ev, AssistantTextEvent):
            texts.append(ev.text)
            talking.set()

    manager.subscribe(heard)
    info = await manager.create(
        "[[slow seconds=60 chunks=600]]", manager.default_config(project_dir)
    )
    await asyncio.wait_for(talking.wait(), 60)  # the stream is flowing
    assert manager.get(info.session_id).status == S.RUNNING
    await manager.interrupt(info.session_id)
    outcome = await until(manager, info.session_id, "turn_ended", 30)
    assert "[slow 600/600]" not in "".join(texts)
    assert outcome.session.status == S.INTERRUPTED
    await manager.send(info.session_id, "[[say text=after interrupt]]")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert outcome.session.status == S.IDLE
    assert outcome.session.last_result == "after interrupt"


async def test_resume_after_the_process_ended_keeps_the_id(
    manager: SessionManager, project_dir: Path
) -> None:
    info = await manager.create("[[say text=first]]", manager.default_config(project_dir))
    await until(manager, info.session_id, "turn_ended")
    first_pid = info.pid
    killed = await manager.kill(info.session_id)
    assert not killed.is_active and first_pid is not None and not alive(first_pid)
    resumed = await manager.send(info.session_id, "[[say text=second]]")
    assert resumed.session_id == info.session_id and resumed.pid != first_pid
    outcome = await until(manager, info.session_id, "turn_ended")
    assert outcome.session.last_result == "second"
    assert outcome.session.session_id == info.session_id


async def test_sigkilled_cli_is_error_and_resumable(
    manager: SessionManager, project_dir: Path
) -> None:
    info = await manager.create("[[say text=warm up]]", manager.default_config(project_dir))
    await until(manager, info.session_id, "turn_ended")
    await manager.send(info.session_id, "[[slow seconds=20 chunks=100]]")
    await asyncio.sleep(0.8)
    assert info.pid is not None
    os.kill(info.pid, signal.SIGKILL)
    outcome = await until(manager, info.session_id, "session_ended", 10)
    assert outcome.session.status == S.ERROR and outcome.session.error
    await manager.send(info.session_id, "[[say text=back]]")
    outcome = await until(manager, info.session_id, "turn_ended")
    assert outcome.session.status == S.IDLE and outcome.session.last_result == "back"


async def test_permission_timeout_denies(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path, project_dir: Path
) -> None:
    settings = Settings(
        claude_code_path=claude_bin,
        claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
        state_dir=tmp_path / "state2",
        permission_timeout_ms=500,
    )
    manager = SessionManager(settings)
    try:
        info = await manager.create(
            "[[bash cmd=echo x > timed_out.txt]]", manager.default_config(project_dir)
        )
        await until(manager, info.session_id, "input_needed")
        await asyncio.sleep(0.7)
        await until(manager, info.session_id, "turn_ended")
        assert not (project_dir / "timed_out.txt").exists()
        assert manager.audit.read()[-1]["decided_by"] == "timeout"
    finally:
        await manager.shutdown()


async def test_shutdown_leaves_no_claude_process(
    manager: SessionManager, project_dir: Path
) -> None:
    idle = await manager.create("[[say text=idle]]", manager.default_config(project_dir))
    busy = await manager.create(
        "[[slow seconds=30 chunks=100]]", manager.default_config(project_dir)
    )
    waiting = await manager.create(
        "[[bash cmd=echo hi > w.txt]]", manager.default_config(project_dir)
    )
    await until(manager, idle.session_id, "turn_ended")
    await until(manager, waiting.session_id, "input_needed")
    pids = [i.pid for i in (idle, busy, waiting)]
    assert all(p is not None for p in pids)
    started = time.monotonic()
    await manager.shutdown()
    assert time.monotonic() - started < 5
    assert [p for p in pids if p is not None and alive(p)] == []
    assert manager.pending() == []
    assert manager.get(idle.session_id).status == S.COMPLETED
    assert manager.get(busy.session_id).status == S.INTERRUPTED


async def test_fork_continues_under_a_new_id(
    manager: SessionManager, project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    info = await manager.create(
        "[[say text=remember the word pelican]]", manager.default_config(project_dir)
    )
    await until(manager, info.session_id, "turn_ended")
    forked = await manager.fork(info.session_id, "[[say text=forked]]")
    assert forked.session_id != info.session_id
    outcome = await until(manager, forked.session_id, "turn_ended")
    assert outcome.session.last_result == "forked"
    last = [r for r in fake_api.requests if r.body][-1]
    assert "pelican" in json.dumps(last.body)  # the fork carried the history
    assert last.headers.get("x-claude-code-session-id") == forked.session_id


async def test_launch_prefix_wraps_the_cli(manager: SessionManager, project_dir: Path) -> None:
    config = manager.default_config(project_dir, launch_prefix=("env", "CCTUI_PREFIXED=1"))
    info = await manager.create("[[say text=prefixed]]", config)
    assert info.pid is not None
    assert b"CCTUI_PREFIXED=1" in Path(f"/proc/{info.pid}/environ").read_bytes()
    outcome = await until(manager, info.session_id, "turn_ended")
    assert outcome.session.last_result == "prefixed"


async def test_a_cli_not_logged_in_says_what_to_do_from_here(
    manager: SessionManager, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real CLI with no API key and no login answers "Not logged in · Please run /login"
    (flagging its reply ``authentication_failed``): /login is a command of its own UI, so the
    session's error says what to do from here (the TUI, an MCP client, another window)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    info = await manager.create("hello", manager.default_config(project_dir))
    await manager.wait(info.session_id, 30)
    session = manager.get(info.session_id)
    assert session.status == S.ERROR, session
    error = session.error or ""
    assert error.startswith("Not logged in") and "/login" in error, error
    assert "running `claude` in a terminal" in error and "ANTHROPIC_API_KEY" in error
    errors = [e for e in manager.events(info.session_id).events if e.kind == "error"]
    assert errors and errors[-1].message == error
