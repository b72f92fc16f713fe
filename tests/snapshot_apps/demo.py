"""The real CctuiApp over the fake driver, seeded with a scenario, at a frozen time.

Used by the snapshot tests (``snap_compare(demo_app("main"), run_before=ready)``) and by
``python -m tests.snapshot_apps.screenshots``. What the pane shows must not change from run to
run, paths included: the screenshots use ``SHOWN_ROOT`` itself; each test process uses a
directory of its own of the same length (``own_root``), so every line lays out the same, and
the snapshot tests show it back as ``SHOWN_ROOT`` (``shown``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import string
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual.notifications import SeverityLevel
from textual.pilot import Pilot
from textual.widgets import Input, Select

from cctui.claude.frames import RewindAnswer
from cctui.config import Settings, load_settings
from cctui.core import SessionConfig, SessionManager
from cctui.core.dispatch import DispatchRequest
from cctui.core.policy import ClientGrant, Verdict
from cctui.fs.atomic import locked
from cctui.services import Services
from cctui.tui import clock
from cctui.tui.app import CctuiApp
from cctui.tui.remote import key_of
from cctui.tui.screens.decision import DecisionModal
from cctui.tui.screens.diff import DiffScreen
from cctui.tui.screens.finish import FinishScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.screens.rewind import RewindScreen
from cctui.tui.widgets.blocks import ToolBody, ToolCall
from cctui.tui.widgets.event_lines import PromptBlock
from tests.fakes.clock import FakeClock
from tests.fakes.fake_driver import fake_driver_factory, plan, text, tool
from tests.snapshot_apps.history import write_history, write_transcript
from tests.snapshot_apps.hosts import TOKENIZER, demo_hosts

SHOWN_ROOT = Path("/tmp/cctui-demo")
"""The demo's directory as the screenshots and the stored snapshots show it."""
ROOT = SHOWN_ROOT
"""Where the demo's files are (every app wipes and rebuilds it): ``SHOWN_ROOT`` for the
screenshots, a test process's ``own_root`` in the tests."""
LOCK = Path("/tmp/cctui-demo.lock")
"""Held while a demo app runs in ``SHOWN_ROOT`` (``demo_root``), so two screenshot runs take
turns instead of rebuilding each other's files mid-run."""
NOW = datetime.now(UTC).replace(microsecond=0)
"""Frozen for the app; the fake core stamps real times, which all read as "now"."""
SIZE = (130, 36)
TOAST_S = 24 * 3600.0
"""How long a demo toast stays: longer than any scenario, so no timer decides what is on it."""

SUMMARY = """\
The flaky test came from a **race** in `Session._pump`: the result frame could arrive
before the status change was published.

## What changed

- `session.py`: publish `StatusChanged` *before* the `ResultEvent`
- `test_session.py`: a regression test that delivers both frames in one read

```python
self._publish(StatusChanged(status=S.IDLE))
self._publish(result)
```

All 42 core tests pass.
"""

PLAN = """\
# Plan: split the session pane

1. Move transcript rendering into `widgets/transcript.py`
2. Keep `SessionPane` to the header, the output and the message line
3. Add snapshot tests for a **long** transcript

_Risk:_ the markdown widget re-renders on every delta; coalesce at 20 Hz.
"""

EDIT = {
    "file_path": "cctui/core/session.py",
    "old_string": (
        "    def _finish(self, result):\n        self._publish(result)\n"
        "        self._set_status(S.IDLE)\n"
    ),
    "new_string": (
        "    def _finish(self, result):\n        # Status first: readers of the result "
        "must see the session idle.\n        self._set_status(S.IDLE)\n"
        "        self._publish(result)\n"
    ),
}

QUESTIONS = {
    "questions": [
        {
            "question": "Which test runner should CI use?",
            "header": "Runner",
            "multiSelect": False,
            "options": [
                {"label": "pytest", "description": "what the repo uses today"},
                {"label": "nox", "description": "sessions per Python version"},
            ],
        },
        {
            "question": "Which checks should block a merge?",
            "header": "Checks",
            "multiSelect": True,
            "options": [
                {"label": "ruff", "description": ""},
                {"label": "mypy", "description": ""},
                {"label": "snapshots", "description": ""},
            ],
        },
    ]
}

SCRIPT: dict[str, list[Any]] = {
    "flaky": [
        text("Let me look at the session pump first."),
        tool(
            "Read",
            {"file_path": "cctui/core/session.py"},
            ask=False,
            output="class Session:\n    ...",
        ),
        tool(
            "Bash",
            {
                "command": "pytest -q tests/core -k flaky --count 50",
                "description": "Reproduce the flaky test",
            },
            ask=False,
            output="1 failed, 49 passed in 3.2s",
        ),
        tool("Edit", EDIT, ask=False, output="ok"),
        tool("Bash", {"command": "pytest -q tests/core"}, ask=False, output="42 passed in 1.3s"),
        text(SUMMARY),
    ],
    "deploy": [
        text("I'll check the cluster before deploying."),
        tool(
            "Bash",
            {
                "command": "kubectl --context staging rollout status deploy/api "
                "&& kubectl --context staging get pods -l app=api",
                "description": "Check the staging rollout",
            },
            suggestions=(
                {
                    "type": "addRules",
                    "rules": [
                        {"toolName": "Bash", "ruleContent": "kubectl --context staging rollout *"},
                        {"toolName": "Bash", "ruleContent": "kubectl --context staging get *"},
                    ],
                    "behavior": "allow",
                    "destination": "localSettings",
                },
            ),
        ),
    ],
    "race": [text("I found the race; here is the fix."), tool("Edit", EDIT)],
    "split": [text("Here is my plan."), plan(PLAN)],
    "ci": [tool("AskUserQuestion", QUESTIONS, output="answered")],
    "readme": [text("The README now has a **Quick start** and a keys table.")],
}

_IDS = {
    "flaky": "7f3c9a10-0000-4000-8000-000000000001",
    "deploy": "b21e44c2-0000-4000-8000-000000000002",
    "race": "c9d0e5f3-0000-4000-8000-000000000003",
    "split": "d4a7b8e1-0000-4000-8000-000000000004",
    "ci": "e5f6a7b8-0000-4000-8000-000000000005",
    "readme": "a1b2c3d4-0000-4000-8000-000000000006",
    "notes": "f0e1d2c3-0000-4000-8000-000000000007",
}

PROMPTS = {
    "flaky": ("api", "Fix the flaky test in tests/core/test_session.py"),
    "deploy": ("infra", "Deploy the api to staging and check the rollout"),
    "race": ("api", "Fix the race between result and status"),
    "split": ("cctui", "Split the session pane into smaller widgets"),
    "ci": ("cctui", "Set up CI for the project"),
    "readme": ("docs", "Rewrite the README quick start"),
}


def _rewind() -> RewindAnswer:
    """What the rewind scenario's dry run finds: the flaky fix's edit and its new test."""
    return RewindAnswer(
        can_rewind=True,
        files_changed=(
            str(ROOT / "api" / "cctui" / "core" / "session.py"),
            str(ROOT / "api" / "tests" / "core" / "test_session.py"),
        ),
        insertions=3,
        deletions=14,
    )


Scenario = Callable[["DemoApp"], Awaitable[None]]


def _reset() -> dict[str, str]:
    shutil.rmtree(ROOT, ignore_errors=True)
    home = ROOT / "home"
    for project in ("api", "infra", "cctui", "docs", "blog"):
        (ROOT / project).mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True)
    return {"HOME": str(home)}


def _history(claude_dir: Path, *, corrupt: int = 0) -> None:
    blog = str(ROOT / "blog")
    sid = "0a1b2c3d-0000-4000-8000-0000000000b1"
    write_transcript(
        claude_dir,
        sid,
        blog,
        NOW - timedelta(hours=5),
        [
            (
                "Draft a post about the release",
                [{"type": "text", "text": "Here is a first draft with three sections."}],
            ),
        ],
    )
    sid2 = "0a1b2c3d-0000-4000-8000-0000000000b2"
    write_transcript(
        claude_dir,
        sid2,
        str(ROOT / "docs"),
        NOW - timedelta(days=2),
        [
            (
                "Fix the broken links in docs/",
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "grep -rn 'http://' docs/"},
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "docs/a.md:3: http://x",
                    },
                    {"type": "text", "text": "Fixed **3** links."},
                ],
            ),
        ],
    )
    write_history(
        claude_dir,
        [
            ("Draft a post about the release", NOW - timedelta(hours=5), blog, sid),
            ("Fix the broken links in docs/", NOW - timedelta(days=2), str(ROOT / "docs"), sid2),
        ],
        corrupt=corrupt,
    )


SESSION_PY = """\
class Session:
    def _finish(self, result):
        self._publish(result)
        self._set_status(S.IDLE)

    def info(self):
        return self._info
"""


def _git(repo: Path, *args: str) -> None:
    # Fixed names and dates: the commit ids (shown on the diff page) are the same every run.
    stamp = "2026-11-20T10:00:00+00:00"
    env = {**os.environ, "GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.com"}
    env |= {"GIT_COMMITTER_NAME": "Demo", "GIT_COMMITTER_EMAIL": "demo@example.com"}
    env |= {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _repo(repo: Path) -> None:
    """``repo`` as a git repository with one commit."""
    _git(repo, "init", "-q", "-b", "main")
    (repo / "session.py").write_text(SESSION_PY)
    (repo / "README.md").write_text("# api\n\nThe api service.\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first")


def _edit(root: Path) -> None:
    """What the demo session "changed" in its work tree."""
    (root / "session.py").write_text(
        SESSION_PY.replace(
            "        self._publish(result)\n        self._set_status(S.IDLE)\n",
            "        # Status first: readers of the result must see the session idle.\n"
            "        self._set_status(S.IDLE)\n        self._publish(result)\n",
        )
    )
    (root / "test_session.py").write_text(
        "def test_status_before_result(session):\n"
        "    session._finish('ok')\n"
        "    assert session.events[-1].kind == 'result'\n"
    )


def _rules(claude_dir: Path) -> None:
    """Settings files for the rules page: the user's, the api project's shared and local."""
    files = {
        claude_dir / "settings.json": {
            "permissions": {"allow": ["Read", "Bash(git status)"], "deny": ["Read(./.env)"]},
            "theme": "dark",
        },
        ROOT / "api" / ".claude" / "settings.json": {
            "permissions": {"ask": ["Bash(git push *)"], "deny": ["Bash(rm -rf *)"]}
        },
        ROOT / "api" / ".claude" / "settings.local.json": {
            "permissions": {"allow": ["Bash(pytest -q *)", "Bash(npm test *)"]}
        },
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2))


POLICY = """
[hard_deny]
rules = ["Bash(terraform destroy*)"]

[rules]
allow = ["Bash(npm test*)", "Bash(make lint*)", "Read"]
deny = ["Bash(curl *)"]

[clients.ci-bot]
plans = true

[judge]
enabled = true

[judge.classes.tests]
description = "Running the project's own test suite"
rules = ["Bash(npm test*)", "Bash(pytest*)"]

[breaker]
max_allows = 20
deny_streak = 3
"""


def _policy_file(settings: Settings) -> None:
    """The user's policy, written before the core starts, as a user's file would be.

    Written mid-run (after the sessions settled) it showed only when the store's once a
    second re-check (``RECHECK_S``) had lapsed since the app's 1 s tick last read
    ``manager.problems``: a race between two timers, so the snapshot recorded the file
    unread ("none", judge off) and failed whenever the file was read."""
    assert settings.policy_file is not None
    settings.policy_file.parent.mkdir(parents=True, exist_ok=True)
    settings.policy_file.write_text(POLICY)


def _policy(manager: SessionManager, session_id: str) -> None:
    """A registered client and two automated allows on the session (the user's policy is
    in place from the start: ``_policy_file``)."""
    ladder = manager.decisions.ladder
    assert ladder.clients is not None
    ladder.clients.add("ci-bot", ClientGrant(projects=(str(ROOT),), rules=("Bash(npm test*)",)))
    allowed = Verdict(behavior="allow", rung="policy", basis="Bash(npm test*)")
    for _ in range(2):
        ladder.count(session_id, allowed, ladder.in_force(None).policy)


class DemoApp(CctuiApp):
    """CctuiApp plus a scenario run on its own loop before the first screenshot.

    Deterministic: the history is read before any session starts, modals wait until every
    session has settled and the pane shows the scenario's session, and the screen is drawn
    with ``settle()`` (no timer decides what is on it).
    """

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast stays until the screenshot: its timeout is wall-clock time, and on a loaded
        machine the archived scenario outlived its 6 s toast before the screenshot was taken
        (the snapshot then lacked it)."""
        del timeout
        super().notify(message, title=title, severity=severity, timeout=TOAST_S, markup=markup)

    def __init__(self, scenario: str) -> None:
        env = _reset()
        settings = load_settings(env=env, config_path=ROOT / "none.toml")
        if scenario == "policy":
            _policy_file(settings)
        self.factory = fake_driver_factory(SCRIPT, rewind_changes=_rewind())
        hosts, self.links = demo_hosts(NOW) if scenario.startswith("hosts") else (None, {})
        self.sm = SessionManager(settings, driver_factory=self.factory)
        """The in-process core itself (``self.manager`` is the TUI's view of it)."""
        # "attached": the banner of a window on another cctui's sessions (its core here is
        # the in-process one: the banner and the list are what the snapshot is about).
        banner = "⇄ attached to pid 4242 · q leaves them running"
        attached = (lambda: banner) if scenario == "attached" else None
        super().__init__(
            settings, Services.build(settings, self.sm), hosts=hosts, attached=attached
        )
        self.scenario = scenario
        self.ready = asyncio.Event()
        self._seeding = True
        self._confirming: asyncio.Task[tuple[str, str]] | None = None

    async def on_mount(self) -> None:
        # Runs before CctuiApp.on_mount (Textual calls handlers down the MRO).
        clock.freeze(NOW)
        if self.scenario != "empty":
            _history(self.settings.claude_config_dir, corrupt=1)
        await self.sm.start()

    def main_screen_on_top(self) -> bool:
        # No modal pops while seeding: it would cover a pane that is still being drawn.
        return not self._seeding and super().main_screen_on_top()

    async def seed(self) -> None:
        """Start the scenario's sessions and wait until each settles."""
        await self.history_loaded.wait()
        wanted = {
            "empty": [],
            "main": ["readme", "flaky", "deploy"],
            "bash": ["flaky", "deploy"],
            "edit": ["flaky", "race"],
            "plan": ["split"],
            "question": ["ci"],
            "inbox": ["deploy", "race", "split", "ci"],
            "help": ["readme", "flaky"],
            "new": ["readme"],
            "metrics": ["readme", "flaky", "deploy"],
            "projects": ["readme", "flaky", "race"],
            "confirm": ["readme"],
            "waiting": ["readme", "flaky", "deploy", "race"],
            "peek": ["readme", "flaky", "deploy", "race"],
            "project_form": ["readme", "flaky"],
            "project_remove": ["readme", "flaky"],
            "diff": ["readme", "flaky"],
            "finish": ["flaky", "readme"],
            "model": ["readme", "flaky"],
            "rules": ["readme", "flaky"],
            "policy": ["readme", "flaky"],
            "steer": ["readme", "flaky"],
            "rewind": ["readme", "flaky"],
            "starting": ["readme", "flaky"],
            "tool_open": ["readme", "flaky"],
            "quit": ["readme", "flaky", "deploy"],
            "dispatch": ["readme", "flaky", "deploy"],
            "dispatch_list": ["readme", "flaky", "deploy"],
            "after_picker": ["readme", "flaky", "deploy"],
            "schedule_form": ["readme", "flaky", "deploy"],
            "new_after": ["readme", "flaky", "deploy"],
            "hosts": ["readme", "flaky"],
            "hosts_approval": ["readme", "flaky"],
            "attached": ["readme", "flaky", "deploy"],
            "hundred": ["readme", "flaky", "deploy", "race", "ci"],
            "archived": ["readme", "flaky", "deploy", "race", "ci"],
        }[self.scenario]
        if self.scenario in ("diff", "finish", "hundred", "archived"):
            _repo(ROOT / "api")
        for name in wanted:
            project, prompt = PROMPTS[name]
            config = SessionConfig(cwd=ROOT / project, model="sonnet")
            if name == "split":
                config = config.model_copy(update={"permission_mode": "plan"})
            if self.scenario == "rewind":
                config = config.model_copy(update={"file_checkpointing": True})
            worktree = (
                "fix-race"
                if (self.scenario == "finish" and name == "readme")
                or (self.scenario in ("hundred", "archived") and name == "race")
                else None
            )
            if worktree is not None:
                config = config.model_copy(update={"cwd": ROOT / "api"})
            await self.manager.create(prompt, config, session_id=_IDS[name], worktree=worktree)
            # Settled (asking, or its turn over) however long that takes on a loaded
            # machine: a 5 s bound whose timeout went unread drew a row still running
            # (test_snapshot[waiting] lost a "waiting 3m" row at load 19).
            settled = await self.sm.wait(_IDS[name], 60)
            assert settled.reason != "timeout", (name, settled.session.status)
            if self.scenario in ("diff", "finish") and (project == "api" or worktree):
                await _counted(self.sm, _IDS[name])
        if self.scenario == "diff":
            _edit(ROOT / "api")
        if self.scenario == "finish":
            _edit(ROOT / "api" / ".claude" / "worktrees" / "fix-race")
        shown = {
            "main": "flaky",
            "bash": "flaky",
            "edit": "flaky",
            "plan": "split",
            "question": "ci",
            "inbox": "race",
            "help": "flaky",
            "new": "readme",
            "metrics": "flaky",
            "projects": "flaky",
            "confirm": "readme",
            "waiting": "flaky",
            "peek": "flaky",
            "project_form": "flaky",
            "project_remove": "flaky",
            "diff": "flaky",
            "finish": "readme",
            "model": "flaky",
            "rules": "flaky",
            "policy": "flaky",
            "steer": "flaky",
            "rewind": "flaky",
            "starting": "flaky",
            "tool_open": "flaky",
            "quit": "flaky",
            "dispatch": "flaky",
            "dispatch_list": "flaky",
            "attached": "flaky",
            "hundred": "flaky",
            "archived": "flaky",
        }.get(self.scenario)
        if shown is not None:
            self.main.open_session(_IDS[shown])
        if self.scenario == "steer":
            # What shift+tab twice and M -> opus do (the keys are driven in test_keys).
            await self.sm.set_permission_mode(_IDS["flaky"], "acceptEdits")
            await self.sm.set_permission_mode(_IDS["flaky"], "plan")
            await self.manager.set_model(_IDS["flaky"], "opus")
        if self.scenario == "rules":
            _rules(self.settings.claude_config_dir)
        if self.scenario in ("dispatch", "dispatch_list"):
            await self._dispatch()
        if self.scenario == "policy":
            _policy(self.sm, _IDS["flaky"])
        if self.scenario in ("waiting", "peek"):
            # Three minutes after the newest request: every waiting row says "waiting 3m".
            asked = max(p.created_at for p in self.manager.pending())
            clock.freeze(asked + timedelta(minutes=3, seconds=30))
        if self.scenario.startswith("hosts"):
            await self._hosts_seen()
        if self.scenario in ("projects", "project_form", "project_remove"):
            self.project_registry.register("API service", str(ROOT / "api"), project_id="api")
            self.project_registry.register("Docs site", str(ROOT / "docs"), project_id="docs")
        await self.settle()
        self._seeding = False
        if self.scenario == "confirm":
            # What an MCP client without elicitation gets for write_to_project on a file
            # that exists: the human picks.
            self._confirming = asyncio.create_task(
                self.sm.confirm(
                    "project:api",
                    "File exists",
                    "File 'docs/plan.md' already exists in project api. Overwrite it (replace "
                    "its content), append to it, or cancel?",
                    ("overwrite", "append", "cancel"),
                )
            )
        self.inbox.pump()
        self.ready.set()

    async def _dispatch(self) -> None:
        """A session that waits for two others (one still asks), two schedules (one run
        already, one paused), on a fixed dispatcher clock (a Monday morning, UTC)."""
        d = self.manager.dispatch
        d.clock = FakeClock(datetime(2026, 11, 30, 7, 40, tzinfo=UTC))
        await self.manager.create(
            "Write the release notes from the fix and the rollout",
            SessionConfig(cwd=ROOT / "api", model="sonnet"),
            session_id=_IDS["notes"],
            dispatch=DispatchRequest(after=(_IDS["flaky"], _IDS["deploy"]), parent_results="reply"),
        )
        config = SessionConfig(cwd=ROOT / "api", model="sonnet")
        d.add_schedule(
            "standup",
            "every weekday 09:00",
            "Summarise yesterday's commits",
            config,
            timezone="UTC",
        )
        d.add_schedule(
            "nightly-deps",
            "0 2 * * *",
            "Check for outdated dependencies",
            config,
            missed="skip",
            timezone="UTC",
        )
        d.edit_schedule("nightly-deps", paused=True)
        run = await d.run_schedule_now("standup")
        await self.sm.wait(run.session_id, 5)
        for _ in range(500):  # its process ends with its turn (Dispatcher._run_status)
            if not self.manager.get(run.session_id).is_active:
                break
            await asyncio.sleep(0.01)

    async def _hosts_seen(self) -> None:
        """Wait until devbox is followed (its permission seen) and gpu has dropped, then
        date gpu's last look two minutes back: its rows say "last seen 2m"."""
        hosts = self.remote.hosts
        assert hosts is not None
        devbox, gpu = hosts.get("devbox"), hosts.get("gpu")
        for _ in range(500):
            if devbox.pending() and devbox.events(TOKENIZER) and gpu.state == "offline":
                break
            await asyncio.sleep(0.01)
        gpu.last_seen = NOW - timedelta(minutes=2, seconds=10)
        for name in ("devbox", "gpu"):
            self.main.hosts_changed(name)
        if self.scenario == "hosts":
            self.main.open_session(key_of("devbox", TOKENIZER))


async def _counted(manager: SessionManager, session_id: str) -> None:
    """Wait for the turn's change count, so the demo's own edits after it are not in it
    (and the turn's "± N files" line is on screen). git runs in threads: on a loaded machine
    (the whole suite at once) it took over the 5 s this once waited, and the snapshot lost it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while not any(e.kind == "changes" for e in manager.events(session_id).events):
        if loop.time() > deadline:
            raise RuntimeError(f"no change count for {session_id} within 60 s")
        await asyncio.sleep(0.02)


@contextlib.contextmanager
def demo_root() -> Iterator[None]:
    """``SHOWN_ROOT`` for one app's run, waiting for another run's app to finish."""
    with locked(LOCK):
        yield


def own_root() -> Path:
    """A new directory for one test process's demos (``/tmp/cctui-xxxx``): as long as
    ``SHOWN_ROOT``, so every line that shows a path lays out the same, and of this process
    alone, so test runs at once (or xdist workers) never rebuild each other's files."""
    for _ in range(1000):
        tag = "".join(random.choices(string.ascii_lowercase + string.digits, k=4))
        path = SHOWN_ROOT.with_name(f"cctui-{tag}")
        if path == SHOWN_ROOT:
            continue
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return path
    raise RuntimeError(f"no free directory like {SHOWN_ROOT} in {SHOWN_ROOT.parent}")


def shown(text: str, root: Path) -> str:
    """``text`` with a demo run in ``root`` (an ``own_root``) named as ``SHOWN_ROOT``."""
    return text.replace(root.name, SHOWN_ROOT.name)


def demo_app(scenario: str) -> DemoApp:
    """A fresh demo app for ``scenario`` (empty, main, bash, edit, plan, question, inbox)."""
    return DemoApp(scenario)


async def settle(pilot: Pilot[None], *, modal: bool = False) -> None:
    """Seed, then wait for the screen to show what the scenario promises."""
    app = pilot.app
    assert isinstance(app, DemoApp)
    await app.seed()
    for _ in range(200):
        await pilot.pause()
        if not modal or isinstance(app.screen, DecisionModal):
            break
        await asyncio.sleep(0.02)
    for widget in app.query(Input):
        widget.cursor_blink = False
    # The history index builds in the background: read it whole now, so whether a row's time
    # comes from the index or not never depends on how far that build got.
    await app.source.index.arefresh()
    app.source.reload_history()
    await app.settle()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def _dismiss_modals(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, DemoApp)
    for _ in range(40):
        await pilot.pause()
        if isinstance(app.screen, PendingInputScreen):
            await pilot.press("escape")
        elif not app.inbox.queued:
            return


def ready(scenario: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A ``run_before`` for snap_compare."""

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, DemoApp)
        modal = ("bash", "edit", "plan", "question", "confirm", "hosts_approval")
        await settle(pilot, modal=scenario in modal)
        if scenario in (
            *("main", "inbox", "help", "new", "metrics", "projects", "waiting", "peek"),
            *("project_form", "project_remove", "diff", "finish", "rewind"),
            *("model", "rules", "steer", "starting", "tool_open", "quit", "dispatch"),
            "dispatch_list",
            *("after_picker", "new_after", "schedule_form"),
            "policy",
            "hosts",
            "attached",
            *("hundred", "archived"),
        ):
            await _dismiss_modals(pilot)  # "later": they stay in the inbox
            await app.settle()
        if scenario == "inbox":
            # One input the ladder sent up (a client's answer beyond its authority): the
            # inbox marks it `you ↑` and says why above the request.
            race = next(p for p in app.sm.pending() if p.session_id == _IDS["race"])
            app.sm.decisions.router.to_human(
                race.id,
                "ci-bot may not answer session 3f2a9c1e: it is created by the TUI, and no "
                f"grant of ci-bot covers {ROOT / 'api'}",
            )
            await app.settle()
            await pilot.press("a", "down")  # the escalated one: the preview says why
        if scenario == "quit":
            await pilot.press("q")
            await _until(pilot, lambda: type(app.screen).__name__ == "QuitScreen")
        if scenario == "help":
            await pilot.press("question_mark")
        if scenario in ("after_picker", "new_after"):
            # Run after two sessions: one typed by its id's start, one ticked.
            await pilot.press("n")
            form = app.screen
            form.query_one("#prompt", Input).value = "Write the release notes"
            form.query_one("#cwd", Input).value = "/home/you/src/cctui"
            await pilot.press("ctrl+t")
            await _until(pilot, lambda: type(app.screen).__name__ == "AfterPicker")
            picker = app.screen
            picker.query_one("#ids", Input).value = f"{_IDS['flaky'][:6]} {_IDS['deploy'][:6]}"
            picker.query_one("#ids", Input).focus()
            await pilot.press("enter")
            picker.query_one("#results", Select).value = "reply"
            await pilot.pause()
            if scenario == "new_after":
                await pilot.press("ctrl+s")
                await _until(pilot, lambda: app.screen is form)
                form.query_one("#prompt", Input).focus()
            await pilot.pause()
        if scenario == "new":
            await pilot.press("n")
            form = app.screen
            form.query_one("#prompt", Input).value = "Add a --json flag to cctui sessions"
            # The default directory is the checkout's path: pin it so the snapshot is portable.
            form.query_one("#cwd", Input).value = "/home/you/src/cctui"
        if scenario == "starting":
            # The new session's process takes a minute to start: the pane shows it starting.
            app.factory.connect_delay = 60.0
            await pilot.press("n")
            form = app.screen
            form.query_one("#cwd", Input).value = str(ROOT / "cctui")
            form.query_one("#prompt", Input).value = "Add a --json flag to cctui sessions"
            await pilot.press("enter")
            await _until(pilot, lambda: app.main.pane.starting)
            # Listed while it starts: the cursor is on its row.
            sessions = app.main.sessions
            await _until(
                pilot,
                lambda: (
                    getattr(sessions.row(sessions.selected_id or ""), "status", "") == "starting"
                ),
            )
        if scenario in ("projects", "project_form", "project_remove"):
            await pilot.press("p")
        if scenario == "project_form":
            await pilot.press("n")
            await pilot.pause()
            form = app.screen
            # The default is the directory cctui runs in: pin it so the snapshot is portable.
            form.query_one("#root", Input).value = "/home/you/src/cctui"
            name = form.query_one("#name", Input)
            name.value = "cctui"
            # The form's name starts as the checkout's directory name, and a shorter value
            # keeps the cursor where it was: put it at the end, wherever the checkout is.
            name.cursor_position = len(name.value)
            await pilot.pause()
        if scenario == "project_remove":
            await pilot.press("down", "x")
        if scenario == "peek":
            app.main.sessions.select(_IDS["deploy"])
            app.main.sessions.focus()
            await pilot.press("space")
            for _ in range(100):  # the last reply is read in a worker
                await pilot.pause(0.02)
                screen = app.screen
                if getattr(screen, "reply_text", None) is not None:
                    break
        if scenario == "diff":
            await pilot.press("d")
            await _until(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.drawn)
        if scenario == "finish":
            await pilot.press("f")
            await _until(pilot, lambda: isinstance(app.screen, FinishScreen))
            await pilot.press("x")
        if scenario == "model":
            await pilot.press("M")
        if scenario in ("dispatch", "schedule_form"):
            await pilot.press("t")
            await _until(pilot, lambda: type(app.screen).__name__ == "DispatchScreen")
        if scenario == "schedule_form":
            await pilot.press("n")
            await _until(pilot, lambda: type(app.screen).__name__ == "ScheduleForm")
            form = app.screen
            form.query_one("#directory", Input).value = "/home/you/src/cctui"
            form.query_one("#name", Input).focus()
        if scenario == "rules":
            await pilot.press("R")
            rules = app.screen
            for _ in range(100):
                if getattr(rules, "view", None) is not None:
                    break
                await asyncio.sleep(0.02)
        if scenario == "policy":
            await pilot.press("L")
            page = app.screen
            for _ in range(100):
                if getattr(page, "view", None) is not None:
                    break
                await asyncio.sleep(0.02)
        if scenario == "rewind":
            app.query(PromptBlock).first().focus()
            await pilot.press("r")
            for _ in range(100):
                await pilot.pause()
                if isinstance(app.screen, RewindScreen):
                    break
            assert isinstance(app.screen, RewindScreen)
        if scenario == "tool_open":
            app.query(ToolCall).first().focus()
            await pilot.press("enter")
            await _until(pilot, lambda: bool(app.query(ToolBody)))
        if scenario == "archived":
            # e on the deploy row hides it; status:archived lists it (and only it).
            app.main.sessions.select(_IDS["deploy"])
            app.main.sessions.focus()
            await pilot.press("e")
            app.main.set_filter("status:archived")
            await _until(pilot, lambda: app.main.sessions.shown == [_IDS["deploy"]])
        if scenario == "metrics":
            for tool, outcome, ms, retry in _CALLS:
                app.sm.record_tool_call(
                    "mcp:demo", tool, {}, outcome=outcome, duration_ms=ms, retry=retry
                )
            await pilot.press("m")
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    return run_before


async def _until(pilot: Pilot[None], done: Callable[[], bool]) -> None:
    for _ in range(300):
        if done():
            return
        await pilot.pause()
        await asyncio.sleep(0.02)
    raise AssertionError("the screen did not come up")


# MCP calls recorded for the metrics scenario: (tool, outcome, ms, elicitation retry).
_CALLS = [
    *[("claude_get_status", "ok", float(ms), False) for ms in (3, 4, 4, 5, 6, 9, 12, 40)],
    ("claude_create_session", "ok", 850.0, False),
    ("claude_create_session", "ok", 1240.0, False),
    ("claude_create_session", "launch_prefix_not_found", 2.0, False),
    ("claude_wait", "input_required", 30.0, False),
    ("claude_wait", "ok", 2100.0, True),
    ("claude_broadcast", "ok", 95.0, False),
    ("claude_sync_context", "validation_error", 1.0, False),
]
