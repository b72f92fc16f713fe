"""The policy: rule patterns, files with line-precise problems, the last good policy, the
rules rung, the delegates' authority and the breaker."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from cctui.claude.frames import ToolAbout
from cctui.core import Decision
from cctui.core.policy import ClientGrant, ClientRegistry, Ladder, PolicyStore
from cctui.core.policy.judge import read_verdict
from cctui.core.policy.load import LAST_GOOD, PROJECT_FILE, RECHECK_S, check_text
from cctui.core.policy.model import JudgeClass
from cctui.core.policy.patterns import Pattern, PatternError
from cctui.core.policy.replay import ReplayReport
from cctui.errors import BeyondAuthority
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import fake_driver_factory, text, tool
from tests.helpers import git

HOME = "/home/u"
CWD = "/work/app"


def matches(rule: str, tool: str, deny: bool = False, **tool_input: str) -> bool:
    return Pattern.parse(rule).matches(tool, tool_input, cwd=CWD, home=HOME, deny=deny)


def test_bash_patterns_match_like_the_cli() -> None:
    assert matches("Bash(npm test*)", "Bash", command="npm test --watch")
    assert matches("Bash(npm test:*)", "Bash", command="npm test -- -x")
    assert not matches("Bash(npm test:*)", "Bash", command="npm testify")
    # An allow rule must cover every part of a compound command; a deny rule any part.
    assert not matches("Bash(npm test*)", "Bash", command="npm test && rm -rf /")
    assert matches("Bash(rm -rf /*)", "Bash", deny=True, command="npm test && rm -rf /")
    assert matches("Bash", "Bash", command="anything")
    assert not matches("Bash(npm test*)", "Read", file_path="x")


def test_path_patterns_are_gitignore_style_and_edit_covers_write() -> None:
    assert matches("Edit(src/**)", "Write", file_path=f"{CWD}/src/a/b.py")
    assert matches("Edit(src/**)", "Edit", file_path="src/x.py")
    assert not matches("Edit(src/**)", "Edit", file_path=f"{CWD}/src/../../etc/passwd")
    assert matches("Read(~/.ssh/**)", "Read", file_path=f"{HOME}/.ssh/id_rsa")
    assert matches("Read(//etc/*)", "Grep", path="/etc/hosts")
    assert matches("Read(*.env)", "Read", file_path=f"{CWD}/deep/dir/.env")
    assert not matches("Read(*.env)", "Read", file_path=f"{CWD}/deep/dir/env.txt")
    assert matches("Read(.env)", "Read", file_path=f"{CWD}/deep/dir/.env")
    assert matches("WebFetch(domain:example.com)", "WebFetch", url="https://api.example.com/x")
    assert matches("mcp__github", "mcp__github__create_issue")


def test_a_bad_rule_is_refused_by_name() -> None:
    with pytest.raises(PatternError, match="empty parentheses"):
        Pattern.parse("Bash()")
    with pytest.raises(PatternError, match="not a rule"):
        Pattern.parse("Bash(npm")


def test_problems_carry_their_line() -> None:
    text = (
        "version = 1\n"  # 1
        "[rules]\n"  # 2
        "allow = [\n"  # 3
        '  "Bash(npm test*)",\n'  # 4
        '  "Bash()",\n'  # 5
        "]\n"  # 6
        "[breaker]\n"  # 7
        "max_allows = 0\n"  # 8
        "surprise = 1\n"  # 9
    )
    policy, problems = check_text(text, "p.toml")
    assert policy is None
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (5, "rules.allow.1"),
        (8, "breaker.max_allows"),
        (9, "unknown key 'breaker.surprise'"),
    ]
    _, [syntax] = check_text("[rules\nallow = 1\n", "p.toml")
    assert (syntax.line, syntax.column) == (1, 7) and "not valid TOML" in syntax.message
    assert str(syntax).startswith("p.toml:1:7: ")


def test_a_project_file_may_not_grant_clients() -> None:
    _, [problem] = check_text("[clients.bot]\nplans = true\n", "x", project=True)
    assert problem.line == 1 and "not allowed in a project policy" in problem.message


def test_a_bad_file_keeps_the_last_good_policy_even_across_a_restart(tmp_path: Path) -> None:
    user = tmp_path / "policy.toml"
    state = tmp_path / "state"
    state.mkdir()
    user.write_text('[rules]\nallow = ["Bash(npm test*)"]\n')
    now = [0.0]
    store = PolicyStore(user, state, clock=lambda: now[0])
    assert store.in_force(None).policy.rules.allow == ("Bash(npm test*)",)
    user.write_text('[rules]\nallow = ["Bash(npm test*)", "Bash(make*)"\n')  # cut short
    os.utime(user, ns=(1, 1))
    now[0] += RECHECK_S  # the file is stat'ed again a second later, not on every ask
    force = store.in_force(None)
    assert force.policy.rules.allow == ("Bash(npm test*)",)
    assert force.problems and force.problems[0].line is not None
    assert (state / LAST_GOOD).is_file()
    restarted = PolicyStore(user, state)
    problems = restarted.start_problems()
    assert problems and restarted.in_force(None).policy.rules.allow == ("Bash(npm test*)",)
    # No good version ever: nothing is allowed by the unreadable file.
    fresh = PolicyStore(user, tmp_path / "elsewhere")
    assert fresh.in_force(None).policy.rules.allow == ()


def test_an_ask_reuses_the_policy_in_force_and_a_change_is_seen_within_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "policy.toml"
    user.write_text('[rules]\nallow = ["Read"]\n')
    project = tmp_path / "app"
    (project / ".claude").mkdir(parents=True)
    (project / PROJECT_FILE).write_text('[rules]\nallow = ["Bash(make*)"]\n')
    now = [100.0]
    store = PolicyStore(user, clock=lambda: now[0])
    first = store.in_force(project)
    stats: list[str] = []
    real_stat = os.stat

    def counted_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        stats.append(str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted_stat)
    for _ in range(50):  # many asks within the second: no stat, the same merged policy
        assert store.in_force(project) is first
    assert stats == []
    (project / PROJECT_FILE).write_text('[rules]\nallow = ["Bash(make*)", "Bash(npm*)"]\n')
    os.utime(project / PROJECT_FILE, ns=(5, 5))
    now[0] += RECHECK_S
    changed = store.in_force(project)
    assert len(stats) == 2 and changed.policy.rules.allow == ("Read", "Bash(make*)", "Bash(npm*)")
    now[0] += RECHECK_S  # stat'ed again, nothing changed: the merge is reused
    assert store.in_force(project) is changed


def ladder_for(tmp_path: Path, text: str = "", project_text: str = "") -> Ladder:
    user = tmp_path / "policy.toml"
    user.write_text(text)
    if project_text:
        (tmp_path / "app" / ".claude").mkdir(parents=True)
        (tmp_path / "app" / PROJECT_FILE).write_text(project_text)
    return Ladder(PolicyStore(user), ClientRegistry(tmp_path / "state"), home=HOME)


def test_the_rules_rung_hard_denies_first(tmp_path: Path) -> None:
    ladder = ladder_for(
        tmp_path,
        '[rules]\nallow = ["Bash", "Edit"]\n',
        project_text='[hard_deny]\nrules = ["Bash(terraform destroy*)"]\n',
    )
    cwd = tmp_path / "app"

    def screen(tool: str, **tool_input: str) -> tuple[str, str, str] | None:
        verdict = ladder.screen("s1", "permission", tool, tool_input, cwd)
        return None if verdict is None else (verdict.behavior, verdict.rung, verdict.basis)

    assert screen("Bash", command="npm test") == ("allow", "policy", "Bash")
    assert screen("Bash", command="cd x && rm -rf /") == ("deny", "hard-deny", "Bash(rm -rf /)")
    assert screen("Bash", command="cat ~/.ssh/id_rsa")[:2] == ("deny", "hard-deny")  # type: ignore[index]
    assert screen("Bash", command="terraform destroy -auto-approve") == (
        "deny",
        "hard-deny",
        "Bash(terraform destroy*)",
    )
    assert screen("Bash", command="git push origin main") == (
        "deny",
        "hard-deny",
        "a push to main",
    )
    assert screen("Bash", command="git push --force origin topic")[:2] == ("deny", "hard-deny")  # type: ignore[index]
    assert screen("Bash", command="git push origin topic") == ("allow", "policy", "Bash")
    assert screen("Write", file_path="/etc/cron.d/x") == (
        "deny",
        "hard-deny",
        "writes outside the project",
    )
    assert screen("Write", file_path=str(cwd / "src" / "a.py")) == ("allow", "policy", "Edit")
    assert screen("Edit", file_path=str(cwd / ".claude" / "cctui-policy.toml"))[:2] == (  # type: ignore[index]
        "deny",
        "hard-deny",
    )
    verdict = ladder.screen("s1", "permission", "Bash", {"command": "terraform destroy"}, cwd)
    assert verdict is not None and verdict.source.endswith("cctui-policy.toml")
    assert verdict.words().startswith("hard deny Bash(terraform destroy*) in ")


def test_the_hard_denies_go_to_the_cli_as_deny_rules(tmp_path: Path) -> None:
    """What the CLI gets at launch (``--settings`` deny rules) refuses what the ladder's own
    check refuses, read by the same rule matcher the CLI's syntax is copied from."""
    ladder = ladder_for(
        tmp_path, "", project_text='[hard_deny]\nrules = ["Bash(terraform destroy*)"]\n'
    )
    cwd = tmp_path / "app"
    rules = ladder.cli_deny_rules(cwd)
    assert "Bash(terraform destroy*)" in rules and "Read(~/.ssh/**)" in rules

    def cli_denies(command: str) -> bool:
        return ladder.first_match(rules, "Bash", {"command": command}, cwd, deny=True) is not None

    for command in (
        "git push origin main",
        "git push -u origin HEAD:main",
        "git push origin +master",
        "git push origin refs/heads/main",
        "git push --force origin topic",
        "git push origin topic -f",
        "cd x && git push origin main",
        "terraform destroy -auto-approve",
    ):
        assert cli_denies(command), command
        assert ladder.hard_denied(ladder.in_force(cwd), "Bash", {"command": command}, cwd)
    for command in ("git push origin topic", "git push origin feature-mainline", "npm test"):
        assert not cli_denies(command), command


def test_a_write_through_a_symbolic_link_out_of_the_project_is_outside_it(
    tmp_path: Path,
) -> None:
    ladder = ladder_for(tmp_path, "")
    cwd = tmp_path / "app"
    (cwd / "src").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cwd / "out").symlink_to(elsewhere)
    (cwd / "src" / "f.py").symlink_to(elsewhere / "f.py")
    force = ladder.in_force(cwd)

    def refused(path: Path) -> str | None:
        verdict = ladder.refusal(force, "Write", {"file_path": str(path)}, cwd)
        return None if verdict is None else verdict.basis

    assert refused(cwd / "out" / "new.txt") == "writes outside the project"
    assert refused(cwd / "src" / "f.py") == "writes outside the project"
    assert refused(cwd / "src" / "g.py") is None
    assert refused(cwd / "not-yet" / "deep" / "h.py") is None


async def test_the_sessions_check_refuses_an_unasked_hard_denied_call(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    """A call the CLI would run without asking (bypassPermissions, an allow rule, auto
    mode: ``ask=False``) still passes the session's PreToolUse check, which refuses a hard
    deny or a policy deny rule before it runs, tells the model why, and records it. Writes
    outside the project are left to the CLI (launched to block them itself)."""
    policy = tmp_path / "deny.toml"
    policy.write_text(
        '[hard_deny]\nrules = ["Bash(terraform destroy*)"]\n[rules]\ndeny = ["Bash(curl *)"]\n'
    )
    outside = str(tmp_path / "elsewhere.txt")
    calls = [
        tool("Bash", {"command": "terraform destroy -auto-approve"}, ask=False),
        tool("Write", {"file_path": outside, "content": "x"}, ask=False),
        tool("Bash", {"command": "curl -s example.com"}, ask=False),
        tool("Write", {"file_path": str(project / "in.txt"), "content": "x"}, ask=False),
    ]
    factory = fake_driver_factory({"*": [*calls, text("done")]})
    manager = make_manager(factory, policy_file=policy)
    await manager.start()
    info = await manager.create("go", manager.default_config(project))
    assert (await manager.wait(info.session_id, 5)).reason == "turn_ended"
    tools = [e for e in manager.events(info.session_id).events if e.kind == "tool"]
    final = {e.tool_use_id: e for e in tools}
    states = [(e.name, e.state) for e in final.values()]
    assert states == [
        ("Bash", "denied"),
        ("Write", "completed"),  # the fake has no CLI to block it: see the e2e test
        ("Bash", "denied"),
        ("Write", "completed"),
    ]
    first = next(iter(final.values()))
    assert first.result is not None and first.result.startswith(
        "PreToolUse:Bash hook error: Denied by cctui's policy: hard deny Bash(terraform "
    )
    records = [r for r in manager.audit.read() if r.get("event") == "decision"]
    assert [(r["rung"], r["basis"], r["decided_by"]) for r in records] == [
        ("hard-deny", "Bash(terraform destroy*)", "policy"),
        ("policy", "Bash(curl *)", "policy"),
    ]
    assert not manager.pending()
    [spec] = factory.specs  # the CLI is told to block writes outside its directories
    assert spec.block_writes_outside and "Bash(terraform destroy*)" in spec.deny_rules


async def test_a_worktree_session_s_project_is_its_worktree(
    make_manager: MakeManager, tmp_path: Path
) -> None:
    """A session the CLI moved into a new worktree: a write into the main checkout is
    outside its project, one into the worktree is not, and relative rules read from there."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    factory = fake_driver_factory({"*": [text("done")]})
    manager = make_manager(factory)
    await manager.start()
    info = await manager.create("go", manager.default_config(repo), worktree="wt")
    await manager.wait(info.session_id, 5)
    worktree = manager.get(info.session_id).worktree
    assert worktree is not None
    desk = manager._desk_of(info.session_id)  # the session's desk, as the hook reaches it
    assert desk is not None and desk.cwd == worktree.path
    ladder = manager.decisions.ladder
    force = ladder.in_force(desk.cwd)

    def refused(path: Path) -> str | None:
        verdict = ladder.refusal(force, "Write", {"file_path": str(path)}, desk.cwd)
        return None if verdict is None else verdict.basis

    assert refused(worktree.path / "src" / "a.py") is None
    assert refused(repo / "src" / "a.py") == "writes outside the project"
    assert await desk.guard(ToolAbout("Bash", {"command": "rm -rf /"})) is not None


def test_a_delegate_answers_only_within_its_authority(tmp_path: Path) -> None:
    ladder = ladder_for(tmp_path, '[clients.ci-bot]\nprojects = ["/work/app"]\n')
    assert ladder.clients is not None
    ladder.clients.add("ci-bot", ClientGrant(rules=("Bash(npm test*)",)))
    cwd = Path(CWD)

    def ask(
        label: str, command: str, creator: str | None, behavior: str = "allow"
    ) -> tuple[str, str]:
        verdict = ladder.authorize(
            label,
            session_id="s1",
            kind="permission",
            tool="Bash",
            tool_input={"command": command},
            behavior=behavior,
            creator=creator,
            cwd=cwd,
        )
        return verdict.behavior, verdict.basis or verdict.reason

    # A shared-token client: its own sessions only.
    assert ask("claude-code", "make", "claude-code") == ("allow", "own session")
    behavior, reason = ask("claude-code", "make", "other")
    assert behavior == "escalate" and "created by other" in reason
    # A registered client: its grant's projects, and only its grant's rules.
    assert ask("ci-bot", "npm test", "someone") == ("allow", "grant: Bash(npm test*)")
    behavior, reason = ask("ci-bot", "make deploy", "someone")
    assert behavior == "escalate" and "allows only Bash(npm test*)" in reason
    behavior, reason = ask("ci-bot", "rm -rf /", "ci-bot")
    assert behavior == "escalate" and "hard deny" in reason
    assert ask("ci-bot", "make", "ci-bot", "deny") == ("deny", "own session")


def test_the_breaker_opens_after_its_limit_and_the_human_closes_it(tmp_path: Path) -> None:
    now = [0.0]
    ladder = Ladder(PolicyStore(None), home=HOME, clock=lambda: now[0])
    (tmp_path / "p.toml").write_text(
        '[rules]\nallow = ["Bash(npm test*)"]\n[breaker]\nmax_allows = 3\nwindow_s = 60\n'
    )
    ladder.store = PolicyStore(tmp_path / "p.toml")
    cwd = Path(CWD)
    policy = ladder.in_force(cwd).policy
    for _ in range(3):
        verdict = ladder.screen("s1", "permission", "Bash", {"command": "npm test"}, cwd)
        assert verdict is not None and verdict.behavior == "allow"
        ladder.count("s1", verdict, policy)
        now[0] += 1
    verdict = ladder.screen("s1", "permission", "Bash", {"command": "npm test"}, cwd)
    assert verdict is not None and verdict.behavior == "escalate" and verdict.rung == "breaker"
    assert "3 automated allows within 60 s" in verdict.reason
    other = ladder.screen("s2", "permission", "Bash", {"command": "npm test"}, cwd)
    assert other is not None and other.behavior == "allow"  # per session
    ladder.human_answered("s1")
    verdict = ladder.screen("s1", "permission", "Bash", {"command": "npm test"}, cwd)
    assert verdict is not None and verdict.behavior == "allow"


def test_registered_tokens_are_stored_hashed_and_private(tmp_path: Path) -> None:
    clients = ClientRegistry(tmp_path)
    token = clients.add("ci-bot", ClientGrant(plans=True))
    assert clients.verify(token) == "ci-bot" and clients.verify(token + "x") is None
    stored = clients.path.read_text()
    assert token not in stored and "token_sha256" in stored
    assert clients.path.stat().st_mode & 0o777 == 0o600
    with pytest.raises(Exception, match="registered already"):
        clients.add("ci-bot")
    assert clients.remove("ci-bot") and clients.verify(token) is None


async def test_a_client_approving_its_own_session_in_a_loop_trips_the_breaker(
    make_manager: MakeManager, project: Path, tmp_path: Path
) -> None:
    """The driver of a session (the client that created it) is an automated approver too:
    after ``max_allows`` of its allows in the window the next input goes to the human, and
    its answer is refused with the reason."""
    policy = tmp_path / "breaker.toml"
    policy.write_text("[breaker]\nmax_allows = 2\n")
    calls = [tool("Bash", {"command": f"make step{i}"}) for i in range(3)]
    manager = make_manager(fake_driver_factory({"*": [*calls, text("done")]}), policy_file=policy)
    await manager.start()
    info = await manager.create("go", manager.default_config(project))
    sid = info.session_id
    manager.decisions.router.note_created(sid, "bot", can_ask=False)
    for _ in range(2):
        [item] = (await manager.wait(sid, 5)).pending
        manager.respond(item.id, Decision(behavior="allow"), "mcp:bot")
    [item] = (await manager.wait(sid, 5)).pending
    assert item.escalation and "2 automated allows" in item.escalation
    with pytest.raises(BeyondAuthority, match="breaker is open"):
        manager.respond(item.id, Decision(behavior="allow"), "mcp:bot")
    manager.respond(item.id, Decision(behavior="allow"), "tui")  # the human closes it
    assert (await manager.wait(sid, 5)).reason == "turn_ended"
    assert manager.decisions.ladder.breaker_open(sid) is None


def test_the_judge_allows_only_an_exact_answer_naming_one_of_the_calls_classes() -> None:
    classes = {
        "tests": JudgeClass(description="the test suite", rules=("Bash(npm test*)",)),
    }
    assert read_verdict("ALLOW tests", classes).behavior == "allow"
    assert read_verdict("  `ALLOW tests`\n", classes).basis == "class tests"
    for answer in (
        "ALLOW deploy",  # not one of this call's classes
        "ALLOW tests\nand also rm -rf /",  # more than the one line
        "ESCALATE: unsure",
        "Sure, ALLOW tests",
        "",
    ):
        verdict = read_verdict(answer, classes)
        assert verdict.behavior == "escalate" and verdict.rung == "judge", answer
    policy, problems = check_text(
        '[judge]\nenabled = true\n[judge.classes."bad name"]\ndescription = "x"\nrules = []\n',
        "p.toml",
    )
    assert policy is None and {p.line for p in problems} == {3, 5}  # the name, no rules
    _, problems = check_text('[judge.classes.tests]\ndescription = "x"\nrules = ["Bash("]\n', "p")
    assert problems and "is not a rule" in problems[0].message
    _, problems = check_text(
        "[judge]\nenabled = true\n", "x/.claude/cctui-policy.toml", project=True
    )
    assert problems and "[judge] is not allowed in a project policy" in problems[0].message


def test_a_replay_with_nothing_to_replay_says_so() -> None:
    """An empty audit log (or one of chats alone) reads as such, not "allowed 0 of 0"."""
    empty = ReplayReport()
    assert empty.summary() == "no permission decision in the audit log to replay"
    old = ReplayReport(skipped=3)
    assert old.summary().endswith("(3 too old: no tool input kept)")
