"""Approvals that stick per project: what P offers, what goes back to the CLI, the client
gate, and the settings files (FakeDriver; the real CLI is in tests/e2e/test_project_rules)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cctui.core import Decision, SessionManager
from cctui.core.decisions.allowances import project_allowance
from cctui.core.decisions.grants import SESSION_ONLY, WRITE
from cctui.core.rules import add_rule, local_settings_file, remove_rule, rules_in_force
from cctui.errors import RuleNotFound, ValidationFailed
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import FakeDriverFactory, text, tool
from tests.helpers import git

BASH_RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
    "behavior": "allow",
    "destination": "localSettings",
}
ADD_DIR = {"type": "addDirectories", "directories": ["/tmp/x"], "destination": "session"}
SET_MODE = {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
WHOLE_TOOL = {
    "type": "addRules",
    "rules": [{"toolName": "Bash"}],
    "behavior": "allow",
    "destination": "localSettings",
}


def session_rule(content: str) -> dict[str, Any]:
    return {**BASH_RULE, "rules": [{"toolName": "Bash", "ruleContent": content}],
            "destination": "session"}  # fmt: skip


def test_only_rules_with_content_are_offered_for_the_project(tmp_path: Path) -> None:
    file = tmp_path / "settings.local.json"
    offered = project_allowance([BASH_RULE, ADD_DIR], file)
    assert offered is not None
    assert (offered.rules, offered.suggestions, offered.file) == (("Bash(npm test *)",), (0,), file)
    assert str(file) in offered.description
    # A rule the CLI declared for the session may be kept for the project too.
    assert project_allowance([session_rule("ls *")], file).rules == ("Bash(ls *)",)  # type: ignore[union-attr]
    # A mode, a directory, a whole tool: never.
    assert project_allowance([SET_MODE, ADD_DIR, WHOLE_TOOL], file) is None
    assert project_allowance([{**BASH_RULE, "behavior": "deny"}], file) is None


def bash_script(*suggestions: dict[str, Any]) -> dict[str, Any]:
    return {
        "*": [
            tool("Bash", {"command": "npm test"}, suggestions=suggestions, output="ok"),
            text("done"),
        ]
    }


async def ask_once(
    manager: SessionManager, project: Path, factory: FakeDriverFactory, *suggestions: Any
) -> tuple[str, str]:
    factory.script = bash_script(*suggestions)
    info = await manager.create("run the tests", manager.default_config(project))
    manager.decisions.router.note_created(info.session_id, "agent", can_ask=False)
    outcome = await manager.wait(info.session_id, 5)
    assert outcome.reason == "input_needed"
    return info.session_id, outcome.pending[0].id


async def test_p_sends_the_rule_back_for_local_settings(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid, input_id = await ask_once(manager, project, factory, BASH_RULE, ADD_DIR)
    item = manager.pending(sid)[0]
    assert item.project_rules == ("Bash(npm test *)",)
    assert item.project_file == str(project / ".claude" / "settings.local.json")
    assert item.allow_for_project and "Bash(npm test *)" in item.allow_for_project
    manager.respond(input_id, Decision(behavior="allow", for_project=True), "tui")
    await manager.wait(sid, 5)
    answer = factory.drivers[-1].answers[-1]
    # The rule for the project, the directory for the session: both go back.
    assert (answer.always, answer.suggestions, answer.persist) == (True, (0, 1), (0,))
    audit = [r for r in manager.audit.read() if r["event"] == "decision"]
    assert audit[-1]["project_rules"] == ["Bash(npm test *)"]


async def test_a_for_session_answer_persists_nothing(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid, input_id = await ask_once(manager, project, factory, BASH_RULE, ADD_DIR)
    manager.respond(input_id, Decision(behavior="allow", always=True), "tui")
    await manager.wait(sid, 5)
    answer = factory.drivers[-1].answers[-1]
    assert (answer.suggestions, answer.persist) == ((0, 1), ())


async def test_nothing_offered_without_a_rule_content(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid, input_id = await ask_once(manager, project, factory, SET_MODE)
    item = manager.pending(sid)[0]
    assert (item.allow_for_project, item.project_rules, item.project_file) == (None, (), None)
    manager.respond(input_id, Decision(behavior="allow", for_project=True), "tui")
    await manager.wait(sid, 5)
    answer = factory.drivers[-1].answers[-1]
    assert answer.persist == () and answer.suggestions == (0,)  # the session's, as A


async def test_a_client_cannot_persist_alone(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    sid, input_id = await ask_once(manager, project, factory, BASH_RULE)
    res, grant = manager.respond_as_client(
        input_id, Decision(behavior="allow", for_project=True), "agent", session_id=sid
    )
    assert grant is not None and grant.status == "session_only"
    assert "no cctui TUI" in grant.note and res.decided_by == "mcp:agent"
    await manager.wait(sid, 5)
    answer = factory.drivers[-1].answers[-1]
    assert answer.persist == () and answer.suggestions == (0,)


async def test_a_client_may_persist_when_configured(
    make_manager: MakeManager, project: Path, factory: FakeDriverFactory
) -> None:
    manager = make_manager(mcp_may_persist_rules=True)
    await manager.start()
    sid, input_id = await ask_once(manager, project, factory, BASH_RULE)
    _, grant = manager.respond_as_client(
        input_id, Decision(behavior="allow", for_project=True), "agent"
    )
    assert grant is not None and grant.status == "sent"
    await manager.wait(sid, 5)
    assert factory.drivers[-1].answers[-1].persist == (0,)


@pytest.mark.parametrize("choice", [WRITE, SESSION_ONLY])
async def test_a_client_request_waits_for_the_human(
    manager: SessionManager, project: Path, factory: FakeDriverFactory, choice: str
) -> None:
    detach = manager.decisions.attach_human()
    try:
        sid, input_id = await ask_once(manager, project, factory, BASH_RULE)
        _, grant = manager.respond_as_client(
            input_id, Decision(behavior="allow", for_project=True), "agent", session_id=sid
        )
        assert grant is not None and grant.status == "awaiting_confirmation"
        await manager.wait(sid, 5)
        # The tool ran for the session at once; the CLI was not told to persist anything.
        assert factory.drivers[-1].answers[-1].persist == ()
        for _ in range(1000):  # asked in the background: up to 10 s on a loaded machine
            confirmations = [p for p in manager.pending() if p.kind == "confirmation"]
            if confirmations:
                break
            await asyncio.sleep(0.01)
        [confirmation] = confirmations
        assert "Bash(npm test *)" in (confirmation.description or "")
        manager.respond(confirmation.id, Decision(behavior="allow", choice=choice), "tui")
        file = project / ".claude" / "settings.local.json"
        if choice == WRITE:
            # The rule is written (in a thread), then audited: wait for the audit line, not
            # a fixed 50 ms (a run at load 12 read the log before it).
            for _ in range(1000):
                if any(r["event"] == "rule" for r in manager.audit.read()):
                    break
                await asyncio.sleep(0.01)
            assert any(r["event"] == "rule" for r in manager.audit.read())
            assert json.loads(file.read_text()) == {"permissions": {"allow": ["Bash(npm test *)"]}}
        else:
            await asyncio.sleep(0.05)  # a write there would be in a thread: give it a moment
            assert not file.exists()
    finally:
        detach()


# --------------------------------------------------------------------------- files


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_rules_in_force_lists_every_source(tmp_path: Path, project: Path) -> None:
    config_dir, managed = tmp_path / "cfg", tmp_path / "managed"
    write(config_dir / "settings.json", {"permissions": {"allow": ["Read"], "deny": ["WebFetch"]}})
    write(project / ".claude" / "settings.json", {"permissions": {"ask": ["Bash(git push *)"]}})
    write(project / ".claude" / "settings.local.json", {"permissions": {"allow": ["Bash(ls *)"]}})
    write(managed / "managed-settings.json", {"permissions": {"deny": ["Bash(rm -rf *)"]}})
    write(managed / "managed-settings.d" / "10-x.json", {"permissions": {"deny": ["Bash(curl *)"]}})
    view = rules_in_force(project, config_dir, managed_dir=managed)
    got = {(r.rule, r.behavior, r.source) for r in view.rules}
    assert got == {
        ("Read", "allow", "user"),
        ("WebFetch", "deny", "user"),
        ("Bash(git push *)", "ask", "project"),
        ("Bash(ls *)", "allow", "local"),
        ("Bash(rm -rf *)", "deny", "managed"),
        ("Bash(curl *)", "deny", "managed"),
    }
    assert [f.source for f in view.files] == ["managed", "managed", "local", "project", "user"]
    assert not any(f.writable for f in view.files if f.source == "managed")


def test_a_broken_file_is_reported_not_fatal(tmp_path: Path, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text("{not json")
    view = rules_in_force(project, tmp_path / "cfg", managed_dir=tmp_path / "m")
    [local] = [f for f in view.files if f.source == "local"]
    assert local.problem and "not valid JSON" in local.problem and not view.rules


def test_remove_keeps_every_other_key_and_a_backup(tmp_path: Path, project: Path) -> None:
    file = project / ".claude" / "settings.local.json"
    original = {
        "env": {"A": "1"},
        "permissions": {"allow": ["Bash(ls *)", "Bash(npm test *)"], "deny": ["Read(.env)"]},
        "model": "sonnet",
    }
    write(file, original)
    file.chmod(0o640)
    change = remove_rule(project, tmp_path / "cfg", "Bash(npm test *)", source="local")
    assert change.changed and change.behavior == "allow" and change.file == file
    assert json.loads(file.read_text()) == {
        "env": {"A": "1"},
        "permissions": {"allow": ["Bash(ls *)"], "deny": ["Read(.env)"]},
        "model": "sonnet",
    }
    assert change.backup is not None and json.loads(change.backup.read_text()) == original
    assert file.stat().st_mode & 0o777 == 0o640
    assert not list(file.parent.glob(".*.tmp"))
    with pytest.raises(RuleNotFound) as missing:
        remove_rule(project, tmp_path / "cfg", "Bash(npm test *)", source="local")
    assert "Bash(ls *)" in (missing.value.suggestion or "")
    with pytest.raises(ValidationFailed):
        remove_rule(project, tmp_path / "cfg", "Bash(ls *)", source="managed")


def test_add_rule_creates_the_file_once(project: Path) -> None:
    file = project / ".claude" / "settings.local.json"
    assert add_rule(file, "Bash(make *)").changed
    assert not add_rule(file, "Bash(make *)").changed
    assert json.loads(file.read_text()) == {"permissions": {"allow": ["Bash(make *)"]}}


def test_a_worktree_writes_to_the_main_checkout(tmp_path: Path) -> None:
    main = tmp_path / "repo"
    main.mkdir()
    git(main, "init", "-q")
    git(
        main,
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    (main / "sub").mkdir()
    expected = main.resolve() / ".claude" / "settings.local.json"
    assert local_settings_file((tmp_path / "wt").resolve()) == expected
    assert local_settings_file((main / "sub").resolve()) == expected
    outside = tmp_path / "plain"
    outside.mkdir()
    assert local_settings_file(outside) == outside / ".claude" / "settings.local.json"


async def test_p_says_what_it_does_for_the_session_too(
    manager: SessionManager, project: Path, factory: FakeDriverFactory
) -> None:
    """Issue 39, item 6: P also switched the session to acceptEdits (the CLI's setMode
    suggestion goes back with the rule) while the modal named only the rule and the file."""
    sid, input_id = await ask_once(manager, project, factory, BASH_RULE, SET_MODE, ADD_DIR)
    item = manager.pending(sid)[0]
    words = item.allow_for_project or ""
    assert "Bash(npm test *)" in words and "settings.local.json" in words
    assert "acceptEdits" in words and "/tmp/x" in words and "this session" in words
    manager.respond(input_id, Decision(behavior="allow", for_project=True), "tui")
    await manager.wait(sid, 5)
    answer = factory.drivers[-1].answers[-1]
    assert (answer.suggestions, answer.persist) == ((0, 1, 2), (0,))  # as the words say
    # Only the rule: nothing more said.
    sid, _ = await ask_once(manager, project, factory, BASH_RULE)
    assert "session" not in (manager.pending(sid)[0].allow_for_project or "")
