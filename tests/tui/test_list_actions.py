"""From the list without opening a session (issue 18): the peek (``space``), how long a row
waits and the inbox's order, taking a session over in Claude Code (``o``), the projects page's
register / rename / remove, and an interrupted turn that reads as interrupted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.app import App
from textual.widgets import Input

from cctui.claude.frames import AssistantText
from cctui.core import Decision, PendingInput, ResultEvent, SessionStatus
from cctui.tui import clock
from cctui.tui.rows import SessionRow
from cctui.tui.screens.ask import AskScreen
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.peek import PeekAsk, PeekScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.screens.project_form import ProjectForm
from cctui.tui.screens.projects import ProjectsScreen
from cctui.tui.widgets.blocks import AssistantBlock, Note, ResultBlock
from cctui.tui.widgets.session_pane import MessageInput
from tests.fakes.fake_driver import emit, fail, hold, text
from tests.snapshot_apps.history import write_history, write_transcript
from tests.tui.conftest import Harness, RunApp, raised


async def _later_all(h: Harness) -> None:
    """Put every popped approval modal back in the inbox (``esc``: later)."""
    for _ in range(20):
        await h.pilot.pause(0.05)
        if isinstance(h.app.screen, PendingInputScreen):
            await h.pilot.press("escape")
        elif isinstance(h.app.screen, MainScreen):
            return


async def _peek(h: Harness, session_id: str) -> PeekScreen:
    h.app.main.sessions.select(session_id)
    h.app.main.sessions.focus()
    await h.pilot.press("space")
    await h.until(lambda: isinstance(h.app.screen, PeekScreen))
    screen = h.app.screen
    assert isinstance(screen, PeekScreen)
    await h.pilot.pause(0.1)
    return screen


def _notified(h: Harness, words: str) -> bool:
    return any(words in n.message for n in raised(h.app))


def _plain(widget: object) -> str:
    render = getattr(widget, "render")  # noqa: B009 - Static and Markdown alike
    return str(getattr(render(), "plain", render()))


# -- the peek -----------------------------------------------------------------------------


async def test_space_peeks_and_y_answers_the_permission_there(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("please bash")
        await _later_all(h)
        peek = await _peek(h, session_id)
        ask = peek.query_one(PeekAsk)
        assert ask.pending.tool_name == "Bash"
        assert ask.has_focus  # the request first: y answers it, not the reply line
        assert "echo hi" in _plain(ask.query_one(".ask-body"))
        head = _plain(peek.query_one("#head"))
        assert "waiting" in head and "please bash" in head
        assert "request ↔ reply" in _plain(peek.query_one("#keys"))  # a request to switch to
        await h.pilot.press("y")
        await h.settle(session_id)
        answer = h.factory.drivers[0].answers[0]
        assert answer.allow and not answer.always
        await h.until(lambda: not peek.query(PeekAsk))
        # The turn ended: the peek shows the last reply and the reply line has the focus.
        await h.until(lambda: peek.reply_text == "Ran it.")
        assert isinstance(h.app.focused, Input) and h.app.focused.id == "reply-line"
        assert isinstance(h.app.screen, PeekScreen)
        # Nothing waits any more: tab has nothing to switch to, so the key line drops it.
        assert "tab" not in _plain(peek.query_one("#keys"))


async def test_the_peek_reply_line_sends_a_message_and_closes(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        peek = await _peek(h, session_id)
        await h.until(lambda: peek.reply_text is not None)
        assert peek.reply_text == "OK: hello" or peek.reply_text
        assert not peek.query(PeekAsk)
        await h.pilot.press(*"and now this")
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        await h.until(lambda: h.factory.drivers[0].sent[-1:] == ["and now this"])


async def test_the_peek_reply_resumes_an_ended_session(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        await h.manager.kill(session_id)
        await h.pilot.pause(0.1)
        await _peek(h, session_id)
        await h.pilot.press(*"wake up", "enter")
        await h.until(lambda: len(h.factory.drivers) == 2)
        assert h.factory.drivers[1].spec.resume == session_id
        await h.until(lambda: h.factory.drivers[1].sent[-1:] == ["wake up"])


async def test_the_peek_answers_a_question_and_n_rejects_a_plan(run_app: RunApp) -> None:
    async with run_app() as h:
        asked = await h.create("ask")
        planned = await h.create("plan", permission_mode="plan")
        await _later_all(h)
        peek = await _peek(h, asked)
        assert peek.query_one(PeekAsk).pending.kind == "user_question"
        await h.pilot.press("y")  # the first option is chosen by default
        await h.settle(asked)
        assert h.factory.drivers[0].answers[0].updated_input is not None
        answers = h.factory.drivers[0].answers[0].updated_input["answers"]
        assert answers == {"Which color do you prefer?": "Red"}
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        peek = await _peek(h, planned)
        assert peek.query_one(PeekAsk).pending.kind == "plan_review"
        await h.pilot.press("n")
        await h.settle(planned)
        answer = h.factory.drivers[1].answers[0]
        assert not answer.allow and answer.message == "The user rejected the plan."


async def test_enter_on_the_peeked_request_opens_the_full_modal_over_the_peek(
    run_app: RunApp,
) -> None:
    async with run_app() as h:
        session_id = await h.create("please bash")
        await _later_all(h)
        await _peek(h, session_id)
        await h.pilot.press("tab")
        assert isinstance(h.app.focused, Input) and h.app.focused.id == "reply-line"
        await h.pilot.press("shift+tab")
        assert isinstance(h.app.focused, PeekAsk)
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
        await h.pilot.press("A")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        await h.settle(session_id)
        assert h.factory.drivers[0].answers[0].always


async def test_enter_on_a_row_still_opens_the_pane(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("enter")
        await h.until(lambda: h.app.main.pane.session_id == session_id)
        assert isinstance(h.app.focused, MessageInput)
        assert isinstance(h.app.screen, MainScreen)


# -- how long a session waits, and the inbox's order ----------------------------------------


async def test_a_waiting_row_says_for_how_long(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("please bash")
        await _later_all(h)
        asked_at = h.manager.pending(session_id)[0].created_at
        clock.freeze(asked_at + timedelta(minutes=3, seconds=5))
        h.app.main.tick()
        await h.pilot.pause(0.05)
        table = h.app.main.sessions
        cell = table.get_cell(session_id, "status")
        assert cell.plain == "◆ waiting 3m"
        h.manager.respond(h.manager.pending(session_id)[0].id, Decision(behavior="allow"), "tui")
        await h.settle(session_id)
        await h.until(lambda: "waiting" not in table.get_cell(session_id, "status").plain)


async def test_the_inbox_lists_the_longest_waiting_first(run_app: RunApp) -> None:
    async with run_app() as h:
        first = await h.create("please bash")
        second = await h.create("please bash")
        await _later_all(h)
        older, newer = h.manager.pending(first)[0], h.manager.pending(second)[0]
        # Whatever order the source gives: here the newest first, and an input handed back
        # to the human later can be older than one already listed.
        newer = newer.model_copy(update={"created_at": older.created_at + timedelta(minutes=1)})

        def items() -> list[PendingInput]:
            return [newer, older]

        clock.freeze(older.created_at + timedelta(minutes=4))
        h.app.push_screen(InboxScreen(items, h.app.describe_session))
        await h.until(lambda: isinstance(h.app.screen, InboxScreen))
        await h.pilot.pause(0.1)
        inbox = h.app.screen
        assert isinstance(inbox, InboxScreen)
        table = inbox.query_one("#table")
        rows = [str(r.key.value) for r in table.ordered_rows]  # type: ignore[attr-defined]
        assert rows == [older.id, newer.id]
        assert table.get_cell(older.id, "age").plain == "4m"  # type: ignore[attr-defined]
        assert table.get_cell(newer.id, "age").plain == "3m"  # type: ignore[attr-defined]
        assert "longest first" in _plain(inbox.query_one("#title"))


# -- take over in Claude Code ---------------------------------------------------------------


class Runs:
    """Stands in for the terminal hand-over (Pilot has no terminal to suspend)."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], Path]] = []
        self.while_running: list[bool] = []

    def runner(self, h: Harness):  # type: ignore[no-untyped-def]
        async def run(app: App[None], argv: Sequence[str], cwd: Path) -> int:
            self.calls.append((list(argv), cwd))
            sid = argv[-1]
            # Two processes never write one session: cctui's has ended by now.
            self.while_running.append(h.manager.get(sid).is_active)
            return 0

        return run


async def test_o_asks_then_ends_cctuis_process_and_runs_claude_resume(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        runs = Runs()
        h.app.takeover.runner = runs.runner(h)
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("o")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        assert "ended first" in _plain(h.app.screen.query_one("#body"))
        await h.pilot.press("y")
        await h.until(lambda: bool(runs.calls))
        argv, cwd = runs.calls[0]
        assert argv[-2:] == ["--resume", session_id]
        assert Path(argv[0]).name == "claude" or "claude" in argv[0]
        assert cwd == h.project.resolve()
        assert runs.while_running == [False]
        assert h.factory.drivers[0].closed
        await h.until(lambda: _notified(h, "Back from Claude Code"))
        assert h.app.main.pane.session_id == session_id


async def test_o_then_n_keeps_the_session_in_cctui(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        runs = Runs()
        h.app.takeover.runner = runs.runner(h)
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("o")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        await h.pilot.pause(0.1)
        assert runs.calls == [] and h.manager.get(session_id).is_active


async def test_o_on_an_ended_session_runs_at_once(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        await h.manager.kill(session_id)
        runs = Runs()
        h.app.takeover.runner = runs.runner(h)
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("o")
        await h.until(lambda: bool(runs.calls))
        assert not isinstance(h.app.screen, AskScreen)


async def test_o_where_the_terminal_cannot_be_handed_over_says_so(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        await h.manager.kill(session_id)
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("o")  # the real runner: a headless app cannot suspend
        await h.until(lambda: _notified(h, "cannot be handed over"))


# -- projects page ----------------------------------------------------------------------------


async def _projects(h: Harness) -> ProjectsScreen:
    await h.pilot.press("p")
    await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
    screen = h.app.screen
    assert isinstance(screen, ProjectsScreen)
    return screen


def _registry(h: Harness) -> list[dict[str, object]]:
    data = json.loads(h.app.project_registry.path.read_text())
    projects = data["projects"]
    assert isinstance(projects, list)
    return projects


async def test_register_rename_and_remove_a_project_from_the_projects_page(
    run_app: RunApp,
) -> None:
    async with run_app() as h:
        await _projects(h)
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, ProjectForm))
        form = h.app.screen
        # The current directory (here the configured default) by default, named after it.
        assert form.query_one("#root", Input).value == str(h.project)
        assert form.query_one("#name", Input).value == "proj"
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        [entry] = _registry(h)
        assert entry["id"] == "proj" and entry["rootPath"] == str(h.project.resolve())

        await h.pilot.press("r")
        await h.until(lambda: isinstance(h.app.screen, ProjectForm))
        h.app.screen.query_one("#name", Input).value = "My project"
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        [entry] = _registry(h)
        assert entry["name"] == "My project" and entry["id"] == "proj"

        await h.pilot.press("x")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        await h.pilot.press("y")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        assert _registry(h) == []
        assert h.project.is_dir()  # only the registry entry went


async def test_the_project_form_shows_what_is_wrong_and_stays_open(
    run_app: RunApp, tmp_path: Path
) -> None:
    async with run_app() as h:
        await _projects(h)
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, ProjectForm))
        form = h.app.screen
        form.query_one("#root", Input).value = str(tmp_path / "nowhere")
        await h.pilot.press("enter")
        await h.pilot.pause(0.05)
        assert isinstance(h.app.screen, ProjectForm)
        error = _plain(form.query_one("#error"))
        assert "does not exist" in error and "mkdir -p" in error
        form.query_one("#root", Input).value = str(h.project)
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        # The same directory again is refused, naming the project that has it.
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, ProjectForm))
        await h.pilot.press("enter")
        await h.pilot.pause(0.05)
        assert "registered already, as 'proj'" in _plain(h.app.screen.query_one("#error"))
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        assert len(_registry(h)) == 1


async def test_removing_a_project_can_be_cancelled(run_app: RunApp) -> None:
    async with run_app() as h:
        h.app.project_registry.register("Proj", str(h.project))
        await _projects(h)
        await h.pilot.press("x")
        await h.until(lambda: isinstance(h.app.screen, AskScreen))
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        assert len(_registry(h)) == 1


# -- an interrupted turn ----------------------------------------------------------------------


async def test_an_interrupted_turn_reads_as_interrupted(run_app: RunApp) -> None:
    async with run_app({"*": [text("working"), hold(asyncio.Event())]}) as h:
        session_id = await h.create("long job")
        await h.until(lambda: h.manager.get(session_id).status == SessionStatus.RUNNING)
        h.app.main.open_session(session_id)
        await h.manager.interrupt(session_id, wait_s=3)
        results = [e for e in h.manager.events(session_id).events if isinstance(e, ResultEvent)]
        assert results[-1].interrupted and results[-1].is_error  # the CLI calls it an error
        await h.app.settle()
        await h.pilot.pause(0.1)
        [block] = h.app.main.pane.query(ResultBlock)
        line = _plain(block)
        assert "turn interrupted" in line
        assert "failed" not in line and "aborted_streaming" not in line
        assert block.has_class("-interrupted")


async def test_a_turn_claude_could_not_authenticate_says_it_once_and_what_to_do(
    run_app: RunApp,
) -> None:
    """A new user's first session, not logged in: the CLI's reply, the result, the error and
    the status each carried "Not logged in · Please run /login" (four times, found in a real
    terminal), and /login is a command of Claude Code's own UI. It is said once, then what
    to do from here."""
    said = "Not logged in · Please run /login"
    reply = AssistantText("msg_login", said, api_error="authentication_failed")
    async with run_app({"*": [emit(reply), fail(said)]}) as h:
        session_id = await h.create("hello")
        await h.until(lambda: h.manager.get(session_id).status == SessionStatus.ERROR)
        error = h.manager.get(session_id).error or ""
        assert error.startswith(said) and "running `claude` in a terminal" in error
        assert "ANTHROPIC_API_KEY" in error
        h.app.main.open_session(session_id)
        await h.app.settle()
        await h.pilot.pause(0.1)
        pane = h.app.main.pane
        drawn = [
            w.text if isinstance(w, AssistantBlock) else _plain(w)
            for w in pane.query("AssistantBlock, ResultBlock, Note")
        ]
        assert sum(line.count("Please run /login") for line in drawn) == 2, drawn
        assert drawn[0] == said  # the CLI's own words, then the failed turn without them
        assert drawn[1].startswith("✗ turn failed") and "/login" not in drawn[1]
        assert drawn[2] == f"✗ {error}" and drawn[3] == "✗ error", drawn


async def test_an_interrupted_live_session_and_a_killed_one_read_differently(
    run_app: RunApp,
) -> None:
    """Both are ``interrupted`` in the core; the list, the pane's header and the peek say
    whether its process still runs (issue 39: both read "■ stopped"), and so do the pane's
    notes: no "■ stopped" under an interrupted turn whose process runs on, one once it is
    killed."""
    async with run_app({"*": [text("working"), hold(asyncio.Event())]}) as h:
        session_id = await h.create("long job")
        await h.until(lambda: h.manager.get(session_id).status == SessionStatus.RUNNING)
        h.app.main.open_session(session_id)
        await h.manager.interrupt(session_id, wait_s=3)

        def cell() -> str:
            return str(h.app.main.sessions.get_cell(session_id, "status"))

        def notes() -> list[str]:
            return [_plain(n) for n in h.app.main.pane.query(Note) if n.has_class("status")]

        await h.until(lambda: "interrupted" in cell())
        assert "stopped" not in cell()
        assert "interrupted" in str(h.app.main.pane.query_one("#pane-header").render())
        await h.until(lambda: bool(h.app.main.pane.query(ResultBlock)))
        await h.app.settle()
        assert notes() == []
        await h.manager.kill(session_id)
        await h.until(lambda: "stopped" in cell())
        assert h.manager.get(session_id).status == SessionStatus.INTERRUPTED
        assert "stopped" in str(h.app.main.pane.query_one("#pane-header").render())
        await h.until(lambda: notes() == ["■ stopped"])


async def test_peek_at_a_session_known_only_from_disk_reads_its_transcript(
    run_app: RunApp,
) -> None:
    async with run_app() as h:
        sid = "0a1b2c3d-0000-4000-8000-0000000000c1"
        claude_dir = h.app.settings.claude_config_dir
        when = datetime.now(UTC) - timedelta(hours=1)
        reply = [{"type": "text", "text": "Here is a **first draft**."}]
        write_transcript(claude_dir, sid, str(h.project), when, [("Draft a post", reply)])
        write_history(claude_dir, [("Draft a post", when, str(h.project), sid)])
        await h.until(lambda: h.app.main.sessions.row(sid) is not None, wait_s=10)
        peek = await _peek(h, sid)
        await h.until(lambda: peek.reply_text is not None)
        assert peek.reply_text == "Here is a **first draft**."
        assert not peek.query(PeekAsk)
        assert isinstance(h.app.focused, Input) and h.app.focused.id == "reply-line"


async def test_o_refuses_a_session_a_foreign_claude_has_open(run_app: RunApp) -> None:
    async with run_app() as h:
        sid = "0a1b2c3d-0000-4000-8000-0000000000c2"
        row = SessionRow(
            session_id=sid,
            status="running",
            project="proj",
            title="someone else's",
            last_activity=datetime.now(UTC),
            cost_usd=None,
            cwd=h.project,
            live=True,
            ours=False,
        )
        h.app.main.sessions.set_rows([row])
        runs = Runs()
        h.app.takeover.runner = runs.runner(h)
        h.app.main.sessions.select(sid)
        h.app.main.sessions.focus()
        await h.pilot.press("o")
        await h.until(lambda: _notified(h, "did not start has this session open"))
        assert runs.calls == [] and not isinstance(h.app.screen, AskScreen)


async def test_the_palette_peeks_and_the_footer_lists_the_new_keys(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("hello")
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        shown = {key for key, b in h.app.main.active_bindings.items() if b.binding.show}
        assert {"space", "o"} <= shown
        await h.pilot.press("ctrl+p")
        await h.pilot.pause(0.2)
        await h.pilot.press(*"Peek at session")
        await h.pilot.pause(0.3)
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        assert h.app.screen.session_id == session_id
