"""The real bundled ``claude`` CLI against the fake Messages API, offline.

These document what the CLI (2.1.330) does in the flows cctui depends on: permissions,
AskUserQuestion answers, plan mode / ExitPlanMode, interrupts and API retries.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionMode,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    TextBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from tests.fakes.anthropic_api import FakeAnthropicAPI

pytestmark = pytest.mark.e2e

Decision = PermissionResultAllow | PermissionResultDeny
Decide = Callable[[str, dict[str, Any]], Decision]


def allow(name: str, tool_input: dict[str, Any]) -> Decision:
    return PermissionResultAllow(updated_input=tool_input)


@dataclass
class Run:
    messages: list[Any] = field(default_factory=list)
    asks: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def result(self) -> ResultMessage:
        return next(m for m in reversed(self.messages) if isinstance(m, ResultMessage))

    def tool_uses(self, name: str) -> list[ToolUseBlock]:
        return [
            b
            for m in self.messages
            if isinstance(m, AssistantMessage)
            for b in m.content
            if isinstance(b, ToolUseBlock) and b.name == name
        ]

    def tool_results(self) -> list[tuple[ToolResultBlock, Any]]:
        return [
            (b, m.tool_use_result)
            for m in self.messages
            if isinstance(m, UserMessage) and isinstance(m.content, list)
            for b in m.content
            if isinstance(b, ToolResultBlock)
        ]


async def run_sdk(
    claude_bin: Path,
    cwd: Path,
    prompt: str,
    decide: Decide = allow,
    mode: PermissionMode = "default",
    during: Callable[[ClaudeSDKClient], Coroutine[Any, Any, None]] | None = None,
) -> Run:
    run = Run()

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext
    ) -> Decision:
        run.asks.append((name, tool_input))
        return decide(name, tool_input)

    options = ClaudeAgentOptions(
        cwd=str(cwd),
        cli_path=str(claude_bin),
        can_use_tool=can_use_tool,
        permission_mode=mode,
    )
    async with asyncio.timeout(60), ClaudeSDKClient(options) as client:
        await client.query(prompt)
        task = asyncio.create_task(during(client)) if during else None
        async for message in client.receive_response():
            run.messages.append(message)
        if task is not None:
            await task
    return run


def test_print_mode_one_shot(
    claude_bin: Path, claude_env: dict[str, str], project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    proc = subprocess.run(
        [str(claude_bin), "-p", "hello", "--output-format", "stream-json", "--verbose"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=claude_env,
        cwd=project_dir,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init"
    assert lines[0]["cwd"] == str(project_dir)
    result = lines[-1]
    assert result["type"] == "result" and not result["is_error"]
    assert result["result"] == "OK: hello"
    (req,) = fake_api.message_requests
    assert req.query == "beta=true" and req.prompt == "hello"
    assert req.summary["cwd"] == str(project_dir)
    assert fake_api.connect_attempts == []


@pytest.mark.usefixtures("claude_env")
async def test_write_allowed_creates_the_file(claude_bin: Path, project_dir: Path) -> None:
    run = await run_sdk(claude_bin, project_dir, "[[write path=hello.txt content=hi there]]")
    assert [name for name, _ in run.asks] == ["Write"]
    assert run.asks[0][1]["file_path"] == str(project_dir / "hello.txt")
    assert (project_dir / "hello.txt").read_text() == "hi there"
    assert run.result.result is not None
    assert run.result.result.startswith("Tool result: File created successfully")


@pytest.mark.usefixtures("claude_env")
async def test_bash_denied_does_not_run_and_the_model_sees_why(
    claude_bin: Path, project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    def deny(name: str, tool_input: dict[str, Any]) -> Decision:
        return PermissionResultDeny(message="Denied by the test")

    run = await run_sdk(claude_bin, project_dir, "[[bash cmd=echo hi > out.txt]]", deny)
    assert [(n, i["command"]) for n, i in run.asks] == [("Bash", "echo hi > out.txt")]
    assert not (project_dir / "out.txt").exists()
    assert run.result.result == "Tool result (error): Denied by the test"
    last = fake_api.message_requests[-1]
    assert last.summary["tool_results"][0]["is_error"] is True


@pytest.mark.usefixtures("claude_env")
async def test_ask_user_question_answer_reaches_the_model(
    claude_bin: Path, project_dir: Path
) -> None:
    def answer(name: str, tool_input: dict[str, Any]) -> Decision:
        q = tool_input["questions"][0]["question"]
        return PermissionResultAllow(updated_input={**tool_input, "answers": {q: "Blue"}})

    run = await run_sdk(claude_bin, project_dir, "[[ask]]", answer)
    ((name, asked),) = run.asks
    assert name == "AskUserQuestion"
    assert asked["questions"][0]["question"] == "Which color do you prefer?"
    assert run.result.result is not None
    assert '"Which color do you prefer?"="Blue"' in run.result.result
    ((block, structured),) = run.tool_results()
    assert block.content is not None and "Blue" in str(block.content)
    assert structured["answers"] == {"Which color do you prefer?": "Blue"}


@pytest.mark.usefixtures("claude_env")
async def test_plan_mode_exit_plan_carries_the_plan_file(
    claude_bin: Path, project_dir: Path, claude_home: Path
) -> None:
    run = await run_sdk(claude_bin, project_dir, "[[plan text=# My plan\\n1. do it]]", mode="plan")
    # The plan file Write is allowed without asking in plan mode; only ExitPlanMode asks.
    ((name, asked),) = run.asks
    assert name == "ExitPlanMode"
    (plan_file,) = (claude_home / ".claude" / "plans").glob("*.md")
    assert plan_file.read_text() == "# My plan\n1. do it"
    # 2.1.330 fills ExitPlanMode's input from the plan file, in the request and the message.
    assert asked == {"plan": "# My plan\n1. do it", "planFilePath": str(plan_file)}
    assert run.tool_uses("ExitPlanMode")[0].input == asked
    assert run.tool_uses("Write")[0].input["file_path"] == str(plan_file)
    block, structured = run.tool_results()[-1]
    assert "User has approved your plan" in str(block.content)
    assert structured == {
        "plan": "# My plan\n1. do it",
        "isAgent": False,
        "filePath": str(plan_file),
    }
    assert run.result.result == "Plan approved, proceeding."


@pytest.mark.usefixtures("claude_env")
async def test_plan_denied_keeps_planning(claude_bin: Path, project_dir: Path) -> None:
    def deny_plan(name: str, tool_input: dict[str, Any]) -> Decision:
        return PermissionResultDeny(message="Keep planning: add tests")

    run = await run_sdk(claude_bin, project_dir, "[[plan]]", deny_plan, mode="plan")
    assert [n for n, _ in run.asks] == ["ExitPlanMode"]
    assert run.result.result == "Plan not approved. Feedback: Keep planning: add tests"


@pytest.mark.usefixtures("claude_env")
async def test_interrupt_during_a_slow_stream(
    claude_bin: Path, project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    async def interrupt(client: ClaudeSDKClient) -> None:
        await asyncio.to_thread(fake_api.wait_for, lambda r: "[[slow" in r.prompt)
        await asyncio.sleep(0.3)
        await client.interrupt()

    # The turn ends at the interrupt, not when the 20 s stream would have: its last chunk is
    # never said. (Read from what was said, not a wall-clock bound: at load 20 the interrupt
    # took longer than the 10 s this once allowed, but never the rest of the stream.)
    run = await run_sdk(claude_bin, project_dir, "[[slow seconds=20 chunks=50]]", during=interrupt)
    said = "".join(
        b.text for m in run.messages if isinstance(m, AssistantMessage) for b in m.content
        if isinstance(b, TextBlock)
    )  # fmt: skip
    assert "[slow 050/050]" not in said
    assert run.result.subtype == "error_during_execution"


@pytest.mark.usefixtures("claude_env")
async def test_overloaded_once_is_retried(claude_bin: Path, project_dir: Path) -> None:
    run = await run_sdk(claude_bin, project_dir, "[[error status=529 times=1]] hi")
    assert not run.result.is_error
    assert run.result.result == "OK: [[error status=529 times=1]] hi"
