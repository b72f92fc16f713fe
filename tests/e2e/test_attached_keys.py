"""Every key of a window attached to the owner, through ``AttachedCore`` over a real owner.

The owner is a real ``cctui serve --http`` under a temp HOME (real HTTP MCP, its sessions
real ``claude`` processes against the fake API); the window's core is ``AttachedCore``,
which reaches it through ``cctui bridge`` as ``cctui`` started beside an owner does. One test
per family of keys: each asks the owner's core through the one ``CoreApi`` boundary.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from cctui.config import load_settings
from cctui.core import (
    AssistantTextEvent,
    Decision,
    InputResolvedEvent,
    SessionEvent,
    SessionStatus,
    StatusChanged,
)
from cctui.core.api import CoreApi
from cctui.core.dispatch import DispatchRequest
from cctui.core.dispatch.board import ScheduleChanges
from cctui.errors import CctuiError
from cctui.owner import find_owner
from cctui.remote.attached import AttachedCore, NotAvailableAttached
from tests.fakes.anthropic_api import FakeAnthropicAPI
from tests.fakes.plugin import offline_env, use_environ
from tests.fakes.seed_home import seed_claude_home
from tests.helpers import git

# One worker runs them all, in turn, over the one owner (see ``owner``).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("attached-keys-owner")]


async def _until(
    predicate: Callable[[], object], what: str, within: float = 30, said: Callable[[], object] = str
) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {said()}")
        await asyncio.sleep(0.05)


async def _attached(state: Path) -> AttachedCore:
    for _ in range(600):
        owner = find_owner(state)
        if owner is not None and owner.url is not None:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("no owner came up")
    core = AttachedCore(load_settings(), owner)
    await core.start()
    await _until(lambda: core.status_line().startswith("⇄ attached"), "attached", 60)
    return core


class Owner:
    """One owner for the module: its HOME, its environment and where projects go."""

    def __init__(self, home: Path, env: dict[str, str], projects: Path) -> None:
        self.home = home
        self.env = env
        self.projects = projects
        self.trusted: list[Path] = []


@pytest.fixture(scope="module")
def owner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Owner]:
    """A real owner shared by the module's tests (starting one per test cost each a Python
    with the MCP stack, and ``cctui stop``). Each test has its own project and window, and
    ends its sessions: no test reads what another left."""
    root = tmp_path_factory.mktemp("owner")
    home = root / "home"
    for sub in (".config", ".local/state", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    seed_claude_home(home)
    api = FakeAnthropicAPI(log_path=root / "fake_api.jsonl").start()
    env = offline_env(dict(os.environ), api.url, home)
    with pytest.MonkeyPatch.context() as patch:
        use_environ(patch, env)
        server = subprocess.Popen(
            [sys.executable, "-m", "cctui", "serve", "--http"],
            env=dict(env, CCTUI_HTTP_PORT="0"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield Owner(home, env, root / "projects")
        finally:
            subprocess.run(
                [sys.executable, "-m", "cctui", "stop"], env=env, capture_output=True, check=False
            )
            if server.poll() is None:
                server.kill()
            server.wait(30)
            api.stop()


@pytest.fixture
def claude_home(owner: Owner) -> Path:
    return owner.home


@pytest.fixture
def project_dir(owner: Owner, request: pytest.FixtureRequest) -> Path:
    """This test's own git repository, trusted in the owner's HOME."""
    path: Path = owner.projects / request.node.name.replace("/", "_")
    path.mkdir(parents=True)
    owner.trusted.append(path)
    seed_claude_home(owner.home, *owner.trusted)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test")
    git(path, "config", "user.email", "t@example.com")
    (path / "f.txt").write_text("one\n")
    git(path, "add", "f.txt")
    git(path, "commit", "-qm", "first")
    return path


@pytest.fixture
async def window(owner: Owner, project_dir: Path) -> AsyncIterator[AttachedCore]:
    """A window attached to the module's owner; the test's sessions end with it."""
    core = await _attached(owner.home / ".local" / "state" / "cctui")
    try:
        yield core
    finally:
        for info in core.list():
            if info.config.cwd.is_relative_to(project_dir):
                with contextlib.suppress(CctuiError):
                    await core.kill(info.session_id)
        await core.shutdown()


async def _session(core: CoreApi, cwd: Path, prompt: str, **fields: object) -> str:
    info = await core.create(prompt, core.default_config(cwd, **fields))
    sid = info.session_id
    await _until(
        lambda: core.get(sid).status in (SessionStatus.IDLE, SessionStatus.WAITING_FOR_INPUT),
        "the first turn",
        said=lambda: (core.get(sid), core.problems),
    )
    return sid


async def test_mode_and_model_shift_tab_and_capital_m(
    window: AttachedCore, project_dir: Path
) -> None:
    sid = await _session(window, project_dir, "[[say text=hello]]")
    # What the pane's header says, from the owner's list: the CLI's model, the mode.
    said = lambda: window.get(sid)  # noqa: E731
    await _until(lambda: window.get(sid).permission_mode == "default", "the mode", said=said)
    assert window.get(sid).model
    change = await window.cycle_permission_mode(sid)
    assert change.value == "acceptEdits"
    await _until(
        lambda: window.get(sid).permission_mode == "acceptEdits", "the new mode", said=said
    )
    offered = await window.model_options(sid)
    assert offered and all(o.value for o in offered)
    model = await window.set_model(sid, "haiku")
    assert model.value == "haiku"


async def test_diff_finish_and_worktree_fork_d_f_w(window: AttachedCore, project_dir: Path) -> None:
    sid = await _session(
        window, project_dir, "[[write path=new.txt content=made]]", permission_mode="acceptEdits"
    )
    diff = await window.diff(sid)
    assert [f.path for f in diff.files] == ["new.txt"]
    with pytest.raises(CctuiError, match="worktree"):  # not in a worktree: the owner says so
        await window.finish_preview(sid)
    fork = await window.fork(sid, worktree=True)
    assert fork.worktree is not None and fork.worktree.path.is_dir()
    preview = await window.finish_preview(fork.session_id)
    assert preview.worktree.branch == fork.worktree.branch
    done = await window.finish_worktree(fork.session_id, "discard", force=True)
    assert not fork.worktree.path.exists(), done.note


async def test_new_session_form_template_and_worktree(
    window: AttachedCore, project_dir: Path
) -> None:
    config_file = Path(load_settings().state_dir).parent.parent.parent / ".config" / "cctui"
    config_file.mkdir(parents=True, exist_ok=True)
    (config_file / "config.toml").write_text(
        '[templates.careful]\npermission_mode = "plan"\nmodel = "haiku"\n'
    )
    window.settings = load_settings()
    config = window.default_config(project_dir, template="careful")
    assert (config.permission_mode, config.model) == ("plan", "haiku")
    info = await window.create("[[say text=hi]]", config, worktree="from-window")
    assert info.worktree is not None and info.worktree.branch.endswith("from-window")
    assert info.config.permission_mode == "plan"


async def test_rewind_r(window: AttachedCore, project_dir: Path) -> None:
    sid = await _session(
        window, project_dir, "[[write path=f.txt content=two]]", permission_mode="acceptEdits"
    )
    assert (project_dir / "f.txt").read_text() == "two"
    preview = await window.rewind_files(sid, prompt_index=0, dry_run=True, by="tui")
    assert [Path(f).name for f in preview.files] == ["f.txt"]
    await window.rewind_files(sid, prompt_index=0, by="tui")
    assert (project_dir / "f.txt").read_text() == "one\n"


async def test_rules_policy_metrics_takeover_capital_r_l_m_o(
    window: AttachedCore, project_dir: Path, claude_home: Path
) -> None:
    started = (await window.read_metrics()).sessions_started
    sid = await _session(window, project_dir, "[[say text=hello]]")
    settings = project_dir / ".claude" / "settings.local.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text('{"permissions": {"allow": ["Bash(make test)"]}}')
    rules = await window.rules_for(project_dir)
    assert [r.rule for r in rules.rules] == ["Bash(make test)"]
    await window.remove_rule(project_dir, "Bash(make test)", source="local", by="tui")
    assert "make test" not in settings.read_text()
    view = await window.policy_view(project_dir, sid)
    assert view.breaker is not None and view.human_s > 0
    await window.close_breaker(sid)
    metrics = await window.read_metrics()
    assert metrics.sessions_started == started + 1
    argv, cwd = await window.interactive_command(sid, None)
    assert sid in argv and cwd == project_dir
    audit = (claude_home / ".local" / "state" / "cctui" / "audit.jsonl").read_text()
    assert '"tui:window"' in audit  # the rule removed by the window, as the window
    with pytest.raises(NotAvailableAttached):
        window.dispatch  # noqa: B018 -- the owner's object stays there; t uses the calls below


async def test_queue_and_schedules_t(window: AttachedCore, project_dir: Path) -> None:
    """The t page's reads and changes, answered by the owner's dispatcher."""
    # The first waits for a permission nobody gives, so the later one stays queued for as long
    # as the test takes (a 20 s stream once ended first at load 20: "is not queued").
    first = await window.create(
        "[[bash cmd=echo hi > held.txt]]", window.default_config(project_dir)
    )
    later = await window.create(
        "after it",
        window.default_config(project_dir),
        dispatch=DispatchRequest(after=(first.session_id,)),
    )
    board = await window.dispatch_board()
    assert board.owner and [q.session_id for q in board.queued] == [later.session_id]
    assert board.queued[0].note == "waits for 1 session" and board.queued[0].prompt == "after it"
    assert await window.queue_move(later.session_id, 1) == 1

    made = await window.schedule_add(
        "standup", "every weekday 09:00", "[[say text=standup]]", window.default_config(project_dir)
    )
    assert made.cron == "0 9 * * 1-5"
    with pytest.raises(CctuiError, match="already named"):  # the owner's refusal, as it says it
        await window.schedule_add("standup", "daily", "x", window.default_config(project_dir))
    paused = await window.schedule_edit("standup", ScheduleChanges(paused=True))
    assert paused.paused and paused.prompt == "[[say text=standup]]"
    run = await window.schedule_run_now("standup")
    board = await window.dispatch_board()
    [schedule] = board.schedules
    assert schedule.runs[-1].session_id == run.session_id
    assert run.session_id in board.last_status
    # Its row says whose run it is, as the owner's window does; its claude ends with its turn.
    await _until(
        lambda: window.get(run.session_id).status == SessionStatus.COMPLETED,
        "the run's end",
        said=lambda: window.get(run.session_id),
    )
    view = window.get(run.session_id).dispatch
    assert view is not None and view.note == "run of schedule standup"
    # A window attached after the run ended is told of its row (no event of its own comes),
    # so its list draws the owner's row ("run of schedule standup"), not the transcript's.
    late = AttachedCore(load_settings(), window.owner)
    told: list[SessionEvent] = []
    late.subscribe(told.append)
    await late.start()
    try:
        await _until(
            lambda: any(e.session_id == run.session_id for e in told),
            "the run's row",
            said=lambda: told,
        )
        assert late.get(run.session_id).dispatch == view
    finally:
        await late.shutdown()

    await window.queue_cancel(later.session_id, by="tui")
    cancelled = await window.dispatch_board()
    assert cancelled.queued == []
    await _until(
        lambda: window.get(later.session_id).status == SessionStatus.CANCELLED, "the cancel"
    )
    gone = await window.schedule_delete("standup")
    assert gone.name == "standup" and (await window.dispatch_board()).schedules == []


async def test_the_pane_streams_the_owners_reply(window: AttachedCore, project_dir: Path) -> None:
    """A reply streamed at the owner reaches the attached window's listeners as it grows (the
    follower's push, ``cctui_follow``), and whole at the end."""
    texts: list[str] = []

    def heard(event: SessionEvent) -> None:
        if isinstance(event, AssistantTextEvent):
            texts.append(event.text)

    window.subscribe(heard)
    sid = await _session(window, project_dir, "[[slow seconds=2 chunks=40]]")
    await _until(lambda: texts and "040/040" in texts[-1], "the whole reply")
    assert len(set(texts)) >= 2, "the reply came at once, not streamed"
    assert any("040/040" in getattr(e, "text", "") for e in window.events(sid).events)


async def test_two_windows_first_answer_wins(
    window: AttachedCore, project_dir: Path, claude_home: Path
) -> None:
    """A permission of a session an MCP client started (a client that cannot be asked, so it
    falls back to the human) pops in both attached windows; the first answer wins, and the
    other window sees it answered (its own late answer is refused, not applied)."""
    state = claude_home / ".local" / "state" / "cctui"
    other = await _attached(state)
    try:
        owner = find_owner(state)
        assert owner is not None and owner.url is not None
        token = (state / "token").read_text().strip()
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(owner.url, http_client=http)) as client,
        ):
            created = await client.call_tool(
                "claude_create_session",
                {
                    "prompt": "[[write path=both.txt content=hi]]",
                    "workingDirectory": str(project_dir),
                },
            )
            assert not created.is_error, created.content
        await _until(lambda: window.pending() and other.pending(), "the input in both", 60)
        [asked] = window.pending()
        assert [p.id for p in other.pending()] == [asked.id]
        window.respond(asked.id, Decision(behavior="allow"), "tui")
        await _until((project_dir / "both.txt").exists, "the allowed write")

        def resolved() -> list[InputResolvedEvent]:
            return [
                e
                for e in other.events(asked.session_id).events
                if isinstance(e, InputResolvedEvent) and e.input_id == asked.id
            ]

        await _until(lambda: resolved() and not other.pending(), "the other window to see it")
        assert resolved()[0].decided_by == "tui:window"
        other.respond(asked.id, Decision(behavior="deny"), "tui", session_id=asked.session_id)
        await _until(lambda: other.problems, "the late answer refused")
        assert "Your answer" in other.problems[-1]
        audit = (state / "audit.jsonl").read_text()
        answered = [line for line in audit.splitlines() if asked.id in line]
        assert sum('"decided_by": "tui:window"' in line for line in answered) == 1, audit[-1500:]
    finally:
        await other.shutdown()


async def test_cctui_stop_while_attached_says_the_owner_was_stopped(
    window: AttachedCore, project_dir: Path, claude_env: dict[str, str]
) -> None:
    """Not "the link dropped" (and reconnecting forever): the owner's process is gone, so
    the window says it was stopped, and its sessions are no longer shown live."""
    sid = await _session(window, project_dir, "[[say text=hello]]")
    assert window.banner() == f"⇄ attached to pid {window.owner.pid} · q leaves them running"
    await _until(lambda: window.get(sid).is_active, "the session listed live")
    seen: list[SessionEvent] = []
    window.subscribe(seen.append)
    stopped = subprocess.run(
        [sys.executable, "-m", "cctui", "stop"],
        env=claude_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert stopped.returncode == 0, stopped.stderr
    await _until(lambda: window.owner_stopped, "the window to see the owner stopped", 60)
    assert window.status_line() == "⇄ owner stopped"
    # The banner under the list no longer says q leaves them running: they ended.
    gone = f"⇄ owner pid {window.owner.pid} stopped · its sessions ended · q closes"
    assert window.banner() == gone
    assert any("was stopped" in p for p in window.problems), window.problems
    assert not any("link dropped" in p for p in window.problems), window.problems
    assert window.get(sid).status not in (SessionStatus.IDLE, SessionStatus.RUNNING)
    # The list is told (no event comes from the owner any more): not live, no process.
    assert not window.get(sid).is_active and window.get(sid).pid is None
    ended = [e for e in seen if isinstance(e, StatusChanged) and e.session_id == sid]
    assert ended and ended[-1].status == SessionStatus.INTERRUPTED, seen
    with pytest.raises(CctuiError, match="was stopped"):
        await window.read_metrics()
