"""Mode, model and project rules with the real bundled ``claude`` against the fake API:
what reaches the API after a live switch, a resume and a restart, and a rule ``P`` sends
back that a second session in the project no longer asks about."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from cctui.config import Settings
from cctui.core import Decision, SessionManager
from cctui.errors import SettingRefused
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.helpers import git

pytestmark = pytest.mark.e2e

PLAN_MODE = "Plan mode is active"


def make(claude_env: dict[str, str], claude_bin: Path, tmp_path: Path) -> SessionManager:
    return SessionManager(
        Settings(
            claude_code_path=claude_bin,
            claude_config_dir=Path(claude_env["CLAUDE_CONFIG_DIR"]),
            state_dir=tmp_path / "state",
            permission_timeout_ms=30_000,
        )
    )


@pytest.fixture
async def manager(
    claude_env: dict[str, str], claude_bin: Path, tmp_path: Path
) -> AsyncIterator[SessionManager]:
    m = make(claude_env, claude_bin, tmp_path)
    await m.start()
    yield m
    await m.shutdown()


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the request's last user message (where the CLI puts this turn's
    reminders, such as plan mode's)."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))


def request_for(api: FakeAnthropicAPI, word: str) -> dict[str, Any]:
    """The last main request whose prompt holds ``word``."""
    found = [
        r.body
        for r in api.message_requests
        if r.body and r.body.get("tools") and word in (r.summary.get("prompt") or "")
    ]
    assert found, f"no request for {word!r}"
    return found[-1]


def launched_with(manager: SessionManager, sid: str) -> set[tuple[str, str]]:
    """The live CLI's command line as (flag, value) pairs."""
    pid = manager.get(sid).pid
    assert pid is not None
    words = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return set(itertools.pairwise(words))


async def turn(manager: SessionManager, sid: str, text: str) -> None:
    await manager.send(sid, text)
    outcome = await manager.wait(sid, 30)
    assert outcome.reason == "turn_ended", outcome


async def test_plan_mode_and_model_reach_the_api_and_survive_resume_and_restart(
    manager: SessionManager,
    project_dir: Path,
    fake_api: FakeAnthropicAPI,
    claude_env: dict[str, str],
    claude_bin: Path,
    tmp_path: Path,
) -> None:
    info = await manager.create("[[say text=one]]", manager.default_config(project_dir))
    sid = info.session_id
    assert (await manager.wait(sid, 30)).reason == "turn_ended"
    first = request_for(fake_api, "one")
    assert PLAN_MODE not in last_user_text(first)

    mode = await manager.set_permission_mode(sid, "plan")
    model = await manager.set_model(sid, "claude-sonnet-4-5")
    assert (mode.applies, model.applies) == ("now", "now")
    assert manager.get(sid).permission_mode == "plan"
    await turn(manager, sid, "[[say text=two]]")
    second = request_for(fake_api, "two")
    assert second["model"] == "claude-sonnet-4-5" != first["model"]
    assert PLAN_MODE in last_user_text(second)

    await manager.kill(sid)
    await turn(manager, sid, "[[say text=three]]")  # a resume: a new process
    third = request_for(fake_api, "three")
    # The plan-mode reminder is in the history already (the CLI does not repeat it whole);
    # the resumed process was launched in plan mode, and says so.
    assert third["model"] == "claude-sonnet-4-5"
    assert launched_with(manager, sid) >= {
        ("--permission-mode", "plan"),
        ("--model", "claude-sonnet-4-5"),
    }
    assert manager.get(sid).permission_mode == "plan"
    await manager.shutdown()

    again = make(claude_env, claude_bin, tmp_path)  # a restart of cctui
    await again.start()
    try:
        await turn(again, sid, "[[say text=four]]")
        fourth = request_for(fake_api, "four")
        assert fourth["model"] == "claude-sonnet-4-5"
        assert ("--permission-mode", "plan") in launched_with(again, sid)
    finally:
        await again.shutdown()


async def test_a_switch_mid_turn_applies_to_the_turns_next_request(
    manager: SessionManager, project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    info = await manager.create(
        "[[write path=mid.txt content=x]]", manager.default_config(project_dir)
    )
    sid = info.session_id
    [item] = (await manager.wait(sid, 30)).pending
    # The turn waits on a permission: switch model and mode, then let it go on.
    await manager.set_model(sid, "claude-haiku-4-5")
    await manager.set_permission_mode(sid, "acceptEdits")
    manager.respond(item.id, Decision(behavior="allow"), "tui")
    assert (await manager.wait(sid, 30)).reason == "turn_ended"
    after = [r for r in fake_api.message_requests if r.summary.get("is_tool_result")]
    assert after and after[-1].body and after[-1].body["model"] == "claude-haiku-4-5"
    # acceptEdits holds: the next Write runs without asking.
    await turn(manager, sid, "[[write path=second.txt content=y]]")
    assert (project_dir / "second.txt").read_text() == "y"


async def test_what_the_cli_refuses_is_said_plainly(
    manager: SessionManager, project_dir: Path
) -> None:
    info = await manager.create("[[say text=hi]]", manager.default_config(project_dir))
    sid = info.session_id
    await manager.wait(sid, 30)
    with pytest.raises(SettingRefused) as bypass:
        await manager.set_permission_mode(sid, "bypassPermissions")
    assert bypass.value.message == (
        "Cannot set permission mode to bypassPermissions because the session was not "
        "launched with --dangerously-skip-permissions"
    )
    assert "claude-agent-sdk-python#251" in (bypass.value.suggestion or "")
    with pytest.raises(SettingRefused, match="not found"):
        await manager.set_model(sid, "no-such-model")
    info = manager.get(sid)
    assert info.permission_mode == "default" and info.config.model is None


@pytest.fixture
def worktree(project_dir: Path, tmp_path: Path, seed_trust: Callable[[Path], None]) -> Path:
    """``project_dir`` as a git repository with a linked worktree beside it."""
    git(project_dir, "init", "-q")
    git(project_dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q",
        "--allow-empty", "-m", "init")  # fmt: skip
    tree = tmp_path / "wt"
    git(project_dir, "worktree", "add", "-q", str(tree))
    seed_trust(tree)
    return tree.resolve()


@pytest.fixture
def seed_trust(claude_home: Path) -> Callable[[Path], None]:
    def trust(path: Path) -> None:
        for config in (claude_home / ".claude.json", claude_home / ".claude" / ".claude.json"):
            data = json.loads(config.read_text())
            data["projects"][str(path.resolve())] = {
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                "allowedTools": [],
            }
            config.write_text(json.dumps(data))

    return trust


async def test_p_from_a_worktree_writes_the_main_checkouts_file_and_sticks(
    manager: SessionManager, project_dir: Path, worktree: Path, fake_api: FakeAnthropicAPI
) -> None:
    # A command that writes no file: a redirect would need a path permission too.
    prompt = "[[bash cmd=python3 -V]]"
    first = await manager.create(prompt, manager.default_config(worktree))
    outcome = await manager.wait(first.session_id, 30)
    [item] = outcome.pending
    file = project_dir.resolve() / ".claude" / "settings.local.json"
    assert item.project_rules == ("Bash(python3 -V)",)
    assert item.project_file == str(file)
    manager.respond(item.id, Decision(behavior="allow", for_project=True), "tui")
    assert (await manager.wait(first.session_id, 30)).reason == "turn_ended"
    # The CLI wrote it, where cctui said it would.
    assert json.loads(file.read_text())["permissions"]["allow"] == ["Bash(python3 -V)"]
    assert not (worktree / ".claude" / "settings.local.json").exists()

    second = await manager.create(prompt, manager.default_config(worktree))
    outcome = await manager.wait(second.session_id, 30)
    assert outcome.reason == "turn_ended", outcome  # not asked again
    assert not outcome.pending
    tool_results = [r for r in fake_api.message_requests if r.summary.get("is_tool_result")]
    assert "Python 3" in json.dumps(tool_results[-1].summary.get("tool_results"))

    # Removed again (as the rules page does), the next session asks once more.
    change = await manager.remove_rule(worktree, "Bash(python3 -V)", source="local", by="tui")
    assert change.file == file and change.backup is not None
    third = await manager.create(prompt, manager.default_config(worktree))
    assert (await manager.wait(third.session_id, 30)).reason == "input_needed"


async def test_a_for_session_answer_writes_no_file(
    manager: SessionManager, project_dir: Path
) -> None:
    info = await manager.create(
        "[[bash cmd=echo hi > out.txt]]", manager.default_config(project_dir)
    )
    [item] = (await manager.wait(info.session_id, 30)).pending
    manager.respond(item.id, Decision(behavior="allow", always=True), "tui")
    assert (await manager.wait(info.session_id, 30)).reason == "turn_ended"
    assert not (project_dir / ".claude" / "settings.local.json").exists()
