"""Approval modals and the inbox: keys, queueing, answers from elsewhere, notifications."""

from __future__ import annotations

import uuid

import pytest
from textual.widgets import Input, RadioSet, SelectionList, Static

from cctui.core import Decision, SessionConfig
from cctui.errors import BeyondAuthority
from cctui.tui.messages import OpenSession
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from tests.fakes.fake_driver import plan, text, tool
from tests.tui.conftest import Harness, RunApp, raised

QUESTIONS = {
    "questions": [
        {
            "question": "Which runner?",
            "header": "Runner",
            "multiSelect": False,
            "options": [{"label": "pytest"}, {"label": "nox"}],
        },
        {
            "question": "Which checks?",
            "header": "Checks",
            "multiSelect": True,
            "options": [{"label": "ruff"}, {"label": "mypy"}, {"label": "snapshots"}],
        },
    ]
}


async def _modal(h: object) -> PendingInputScreen:
    from tests.tui.conftest import Harness

    assert isinstance(h, Harness)
    await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
    screen = h.app.screen
    assert isinstance(screen, PendingInputScreen)
    return screen


async def test_y_allows_a_permission(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await h.create("please bash")
        screen = await _modal(h)
        assert screen.pending.tool_name == "Bash"
        assert "echo hi" in str(screen.query_one("#tool-input").render())
        await h.pilot.press("y")
        await h.settle(session_id)
        answer = h.factory.drivers[0].answers[0]
        assert answer.allow and not answer.always
        assert isinstance(h.app.screen, MainScreen)


async def test_n_denies_with_the_typed_reason(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("please bash")
        await _modal(h)
        await h.pilot.press("n")
        reason = h.app.screen.query_one("#reason", Input)
        assert reason.display and h.app.focused is reason
        reason.value = "not on prod"
        await h.pilot.press("enter")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answer = h.factory.drivers[0].answers[0]
        assert not answer.allow and answer.message == "not on prod"


async def test_capital_a_allows_for_the_rest_of_the_session(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("please write")
        screen = await _modal(h)
        assert screen.pending.tool_name == "Write"
        await h.pilot.press("A")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        assert h.factory.drivers[0].answers[0].always


async def test_escape_leaves_it_for_the_inbox(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("please bash")
        await _modal(h)
        await h.pilot.press("escape")
        await h.pilot.pause(0.1)
        assert isinstance(h.app.screen, MainScreen)
        assert len(h.manager.pending()) == 1
        await h.pilot.press("a")
        assert isinstance(h.app.screen, InboxScreen)
        await h.pilot.press("y")  # allow straight from the inbox
        await h.until(lambda: not h.manager.pending())
        assert h.factory.drivers[0].answers[0].allow


async def test_inbox_enter_opens_the_modal(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("please bash")
        await _modal(h)
        await h.pilot.press("escape")
        await h.pilot.press("a")
        await h.pilot.press("enter")
        screen = await _modal(h)
        await h.pilot.press("n", "enter")
        await h.until(lambda: not h.manager.pending())
        assert isinstance(h.app.screen, InboxScreen)
        assert screen.pending.id not in {p.id for p in h.manager.pending()}


async def test_several_requests_queue_one_modal_at_a_time(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.create("bash one")
        await h.create("bash two")
        first = await _modal(h)
        assert first.queued == 1
        assert sum(isinstance(s, PendingInputScreen) for s in h.app.screen_stack) == 1
        await h.pilot.press("y")
        await h.until(
            lambda: isinstance(h.app.screen, PendingInputScreen) and h.app.screen is not first
        )
        await h.pilot.press("n", "enter")
        await h.until(lambda: not h.manager.pending())
        answers = [d.answers[0].allow for d in h.factory.drivers]
        assert sorted(answers) == [False, True]


async def test_the_status_bar_beside_a_modal_counts_a_request_that_came_since(
    run_app: RunApp,
) -> None:
    """The list waits under a modal (it catches up when the modal closes); the status bar,
    drawn beside the modal, says at once that another request is waiting."""
    async with run_app() as h:
        await h.create("bash one")
        await _modal(h)
        status = h.app.main.query_one("#status")
        await h.until(lambda: "1 waiting for you" in str(status.render()))
        await h.create("bash two")
        await h.until(lambda: len(h.manager.pending()) == 2)
        await h.until(lambda: "2 waiting for you" in str(status.render()))
        assert isinstance(h.app.screen, PendingInputScreen)


async def test_answered_elsewhere_closes_the_modal_and_says_who(run_app: RunApp) -> None:
    async with run_app() as h:
        sid = await h.create("please bash")
        screen = await _modal(h)
        h.manager.decisions.router.note_created(sid, "claude-code", can_ask=False)  # its own
        h.manager.respond(screen.pending.id, Decision(behavior="deny"), "mcp:claude-code")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        assert screen.withdrawn_by == "mcp:claude-code"
        notes = [n.message for n in raised(h.app)]
        assert any("mcp:claude-code" in m for m in notes)


async def test_an_open_modal_says_why_when_a_delegate_s_answer_sends_it_up(
    run_app: RunApp,
) -> None:
    """A client answers beyond its authority while the human's modal is open: the answer is
    not applied, and the open modal now says why the request is the human's."""
    async with run_app() as h:
        await h.create("please bash")
        screen = await _modal(h)
        note = screen.query_one("#escalation", Static)
        assert not note.display
        with pytest.raises(BeyondAuthority):
            h.manager.respond(screen.pending.id, Decision(behavior="allow"), "mcp:stranger")
        await h.until(lambda: note.display)
        assert h.app.screen is screen
        assert "stranger may not answer session" in str(note.render())
        await h.pilot.press("y")
        await h.until(lambda: not h.manager.pending())


async def test_client_routed_inputs_wait_in_the_inbox_without_a_modal(run_app: RunApp) -> None:
    async with run_app() as h:
        sid = str(uuid.uuid4())
        h.manager.decisions.router.note_created(sid, "claude-code", can_ask=True)  # its own
        with h.manager.decisions.router.waiting(sid, "claude-code", can_ask=True):
            config = SessionConfig(cwd=h.project)
            await h.manager.create("please bash", config, session_id=sid)
            await h.settle(sid)
        await h.pilot.pause(0.2)
        assert isinstance(h.app.screen, MainScreen)
        h.app.app_focus = False  # the person is elsewhere: they would be told of their own
        assert not [a for a in h.app.alerts.tick() if a.reason == "waiting"]
        await h.pilot.press("a")
        inbox = h.app.screen
        assert isinstance(inbox, InboxScreen)
        assert "claude-code" in str(inbox.query_one("#table").render_line(1))


async def test_a_request_notifies_once_and_not_while_it_is_on_screen(run_app: RunApp) -> None:
    async with run_app(notify={"delay_s": 0}) as h:
        await h.create("please bash")
        await _modal(h)
        # Its modal is in front of the person: nothing to tell them, now or later.
        assert not h.app.alerts.tick()
        await h.pilot.press("escape")
        h.app.app_focus = False
        assert not h.app.alerts.tick()


async def test_a_request_notifies_a_person_elsewhere_once(run_app: RunApp) -> None:
    async with run_app(notify={"delay_s": 0}) as h:
        h.app.app_focus = False  # the terminal lost the focus: the person is elsewhere
        await h.create("please bash")
        await _modal(h)
        h.app.alerts.tick()  # (or the app's own tick did, a moment ago)
        sent = h.app.alerts.sinks.sent
        assert [(sink, a.reason) for sink, a in sent] == [("terminal", "waiting")]
        assert "permission for Bash" in sent[0][1].asks and "please bash" in sent[0][1].session
        h.app.inbox.enqueue_existing()  # the same request seen again
        await h.pilot.pause(0.1)
        assert not h.app.alerts.tick()
        assert len(sent) == 1


async def test_plan_review_y_approves(run_app: RunApp) -> None:
    async with run_app({"*": [plan("# Plan\n\n1. do it"), text("ok")]}) as h:
        await h.create("go", permission_mode="plan")
        screen = await _modal(h)
        assert screen.pending.kind == "plan_review"
        assert screen.query("#plan")
        await h.pilot.press("y")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        assert h.factory.drivers[0].answers[0].allow


async def test_plan_review_n_rejects_with_feedback(run_app: RunApp) -> None:
    async with run_app({"*": [plan("# Plan\n\n1. do it"), text("ok")]}) as h:
        await h.create("go", permission_mode="plan")
        await _modal(h)
        await h.pilot.press("n")
        h.app.screen.query_one("#reason", Input).value = "add tests first"
        await h.pilot.press("enter")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answer = h.factory.drivers[0].answers[0]
        assert not answer.allow and "add tests first" in answer.message


async def test_question_sends_single_multi_and_free_text_answers(run_app: RunApp) -> None:
    async with run_app({"*": [tool("AskUserQuestion", QUESTIONS), text("thanks")]}) as h:
        await h.create("go")
        screen = await _modal(h)
        radios = screen.query_one(RadioSet)
        radios.focus()
        await h.pilot.press("down", "enter")  # nox
        checks = screen.query_one(SelectionList)
        checks.select("ruff")
        checks.select("mypy")
        await h.pilot.press("y")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answer = h.factory.drivers[0].answers[0]
        assert answer.allow
        assert answer.updated_input is not None
        assert answer.updated_input["answers"] == {
            "Which runner?": "nox",
            "Which checks?": "ruff, mypy",
        }


async def test_question_free_text_wins(run_app: RunApp) -> None:
    async with run_app({"*": [tool("AskUserQuestion", QUESTIONS), text("thanks")]}) as h:
        await h.create("go")
        screen = await _modal(h)
        others = screen.query(".other").results(Input)
        first = next(others)
        first.value = "tox"
        screen.query_one(SelectionList).select("ruff")
        screen.query_one(RadioSet).focus()
        await h.pilot.press("y")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answers = h.factory.drivers[0].answers[0].updated_input or {}
        assert answers["answers"]["Which runner?"] == "tox"


async def test_a_modal_waits_while_the_new_session_form_is_open(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("n")
        await h.create("please bash")
        await h.pilot.pause(0.2)
        assert not isinstance(h.app.screen, PendingInputScreen)  # never over a form being typed
        await h.pilot.press("escape")
        await _modal(h)


async def test_a_modal_asked_while_any_page_covers_the_list_pops_when_it_closes(
    run_app: RunApp,
) -> None:
    """The queue is pumped in one place, when the main screen is uncovered: no page or
    form needs a call of its own (one that forgot it left approvals stuck)."""
    from cctui.tui.screens.metrics import MetricsScreen

    async with run_app() as h:
        for key, page in (("m", MetricsScreen), ("question_mark", None)):
            await h.pilot.press(key)
            await h.until(lambda: not isinstance(h.app.screen, MainScreen))
            covering = h.app.screen
            assert page is None or isinstance(covering, page)
            session_id = await h.create("please bash")
            await h.until(lambda sid=session_id: bool(h.manager.pending(sid)))
            await h.pilot.pause()
            assert h.app.screen is covering  # it waits behind the page
            await h.pilot.press("escape")
            screen = await _modal(h)
            assert screen.pending.session_id == session_id
            await h.pilot.press("y")
            await h.settle(session_id)
            await h.until(lambda: isinstance(h.app.screen, MainScreen))


async def test_escape_holds_the_other_modals_until_a_new_request(run_app: RunApp) -> None:
    """Many sessions waiting (issue 39): the first pops; ``esc`` leaves it and every other
    one in the inbox (one key, not one per session); only a request that comes later pops."""
    async with run_app() as h:
        for i in range(6):
            await h.create(f"please bash {i}")
        await h.until(lambda: len(h.manager.pending()) == 6)
        first = await _modal(h)
        assert first.queued == 5
        assert "esc" in first.key_line().plain and "inbox" in first.key_line().plain
        await h.pilot.press("escape")
        for _ in range(10):  # no other modal pops
            await h.pilot.pause(0.05)
            assert isinstance(h.app.screen, MainScreen)
        assert len(h.manager.pending()) == 6
        assert "6 waiting for you · a" in str(h.app.main.query_one("#status").render())
        # A request that comes after the esc pops; the held ones still do not.
        await h.create("please bash again")
        newer = await _modal(h)
        assert "again" in newer.context and newer.queued == 0
        await h.pilot.press("escape")
        for _ in range(10):
            await h.pilot.pause(0.05)
            assert isinstance(h.app.screen, MainScreen)
        await h.pilot.press("a")
        assert isinstance(h.app.screen, InboxScreen)
        assert len(h.app.inbox.pending()) == 7


async def _inbox_keys(h: Harness) -> str:
    """The inbox's key line, the modal left for later (``esc``) and the inbox opened."""
    await h.pilot.press("escape", "a")
    await h.until(lambda: isinstance(h.app.screen, InboxScreen))
    return str(h.app.screen.query_one("#keys", Static).render())


async def test_the_inbox_key_line_shows_the_keys_of_the_selected_request(
    run_app: RunApp,
) -> None:
    # A question has no allow/deny: its key line says enter answers, and y/n are not offered.
    async with run_app({"*": [tool("AskUserQuestion", QUESTIONS), text("thanks")]}) as h:
        await h.create("go")
        await _modal(h)
        keys = await _inbox_keys(h)
        assert "answer" in keys and "allow" not in keys and "deny" not in keys
    async with run_app() as h:
        await h.create("please bash")
        await _modal(h)
        keys = await _inbox_keys(h)
        assert "allow" in keys and "deny" in keys


async def test_the_pane_drops_the_inbox_hint_once_the_request_is_answered(
    run_app: RunApp,
) -> None:
    async with run_app() as h:
        session_id = await h.create("please bash")
        await _modal(h)
        h.app.post_message(OpenSession(session_id))
        await h.until(lambda: h.app.main.pane.session_id == session_id)

        def asks() -> list[str]:
            return [str(n.render()) for n in h.app.main.pane.query(".input")]

        await h.until(lambda: any("◆ asks you" in n for n in asks()))
        assert any("(a: inbox)" in n for n in asks())  # open: the inbox has it
        await h.pilot.press("y")
        await h.settle(session_id)
        await h.until(lambda: any("allowed by you" in n for n in asks()))
        assert any("◆ asks you" in n for n in asks())
        assert not any("(a: inbox)" in n for n in asks())  # answered: not in the inbox
