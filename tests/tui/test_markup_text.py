"""Text from sessions, users, paths, rules and errors is shown as text, never parsed as
markup (issue 39, item 1): a prompt like ``[[bash cmd=python3 -V]]`` once crashed the app
through the "Sent to …" toast, and ``[x]`` vanished from "Removed Bash(touch [x].txt)"."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App
from textual.widgets import Input

from cctui.core import SessionConfig
from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.metrics import MetricsScreen
from cctui.tui.screens.model import ModelScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.screens.peek import PeekScreen, ReplyInput
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.screens.projects import ProjectsScreen
from cctui.tui.screens.rules import RemoveRuleScreen, RulesScreen
from tests.fakes.fake_driver import question, text, tool
from tests.tui.conftest import Harness, RunApp, raised

PROMPT = "[[bash cmd=python3 -V]]"


def _notes(app: App[None]) -> list[str]:
    return [n.message for n in raised(app)]


def _screen_text(app: App[None]) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def _later_all(h: Harness) -> None:
    for _ in range(20):
        await h.pilot.pause(0.05)
        if isinstance(h.app.screen, PendingInputScreen):
            await h.pilot.press("escape")
        elif isinstance(h.app.screen, MainScreen):
            return


async def test_a_reply_from_the_peek_to_a_session_titled_with_brackets(run_app: RunApp) -> None:
    """The README path of the crash: n, ``[[bash cmd=python3 -V]]``, esc, space, hi, enter."""
    script = {"python3": [tool("Bash", {"command": "python3 -V"}), text("Python 3.11")]}
    async with run_app(script, notifications=True) as h:
        session_id = await h.create(PROMPT)
        await _later_all(h)
        h.app.main.sessions.select(session_id)
        h.app.main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        h.app.screen.query_one(ReplyInput).focus()
        await h.pilot.press("h", "i", "enter")
        await h.pilot.pause(0.2)
        assert h.app.is_running
        assert any(PROMPT in note for note in _notes(h.app))
        assert PROMPT in _screen_text(h.app)


MARKS = ("[x]", "[/]", "[bold]", "[[bash cmd=python3 -V]]")
"""Each would be eaten, styled or crash the parser if read as markup."""


async def _shown(h: Harness, *texts: str) -> None:
    """Each of ``texts`` is on the screen as written (the screen is drawn, no crash)."""
    await h.pilot.pause(0.1)
    assert h.app.is_running
    await h.until(lambda: all(t in _screen_text(h.app) for t in texts))


async def _close(h: Harness) -> None:
    await h.pilot.press("escape")
    await h.until(lambda: isinstance(h.app.screen, MainScreen))


async def test_markup_looking_text_is_shown_as_written_on_every_screen_and_toast(
    run_app: RunApp, tmp_path: Path
) -> None:
    """Titles, prompts, paths, tool input, options, rule and project names and error
    messages that look like markup reach every screen and toast as plain text."""
    where = tmp_path / "[x]web"
    where.mkdir()
    (where / ".claude").mkdir()
    rule = "Bash(touch [x].txt)"
    (where / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": [rule, "Read"]}})
    )
    prompt = "[bold]run [x] [/] [[bash cmd=python3 -V]]"
    script = {
        "run": [
            tool("Bash", {"command": "touch [x].txt [/]", "description": "[bold]make it"}),
            text("Made [x].txt [/] [bold]"),
        ],
        "pick": [question("Pick [x]?", ["[bold]one", "[/]two"], header="[x]")],
    }
    async with run_app(script, notifications=True) as h:
        h.app.project_registry.register("[bold]api[/]", str(where), project_id="api")
        run = (await h.manager.create(prompt, SessionConfig(cwd=where))).session_id
        pick = (await h.manager.create("pick one", SessionConfig(cwd=where))).session_id
        await h.settle(run)
        await h.settle(pick)
        # The approval modal of the first request that popped, then the other one (esc
        # leaves the rest in the inbox: opened from there).
        await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
        seen: list[PendingInputScreen] = []
        for turn in range(2):
            if turn:
                shown = {s.pending.id for s in seen}
                [other] = [p for p in h.app.inbox.pending() if p.id not in shown]
                h.app.inbox.open(other)
                await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
            screen = h.app.screen
            assert isinstance(screen, PendingInputScreen)
            if screen.pending.tool_name == "Bash":
                await _shown(h, "touch [x].txt [/]", "[bold]make it", "[x]web")
            else:
                await _shown(h, "Pick [x]?", "[bold]one", "[/]two")
            seen.append(screen)
            await h.pilot.press("escape")
            await h.pilot.pause(0.1)
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        h.app.main.open_session(run)
        await _shown(h, "[bold]run [x]")  # the list, the pane's header and prompt

        for key, screen_type, texts in (
            ("a", InboxScreen, ("[x]web", "touch [x].txt")),
            ("question_mark", HelpScreen, ()),
            ("M", ModelScreen, ("[x]web",)),
            ("m", MetricsScreen, ()),
        ):
            await h.pilot.press(key)
            await h.until(lambda t=screen_type: isinstance(h.app.screen, t))
            await _shown(h, *texts)
            await _close(h)

        h.app.main.sessions.select(run)
        h.app.main.sessions.focus()
        await h.pilot.press("space")
        await h.until(lambda: isinstance(h.app.screen, PeekScreen))
        await _shown(h, "touch [x].txt", "[bold]run [x]")
        await _close(h)

        # The projects page: a project's name and path.
        await h.pilot.press("p")
        await h.until(lambda: isinstance(h.app.screen, ProjectsScreen))
        await _shown(h, "[bold]api[/]", "[x]web")
        await _close(h)

        # The rules page, and removing a rule: its confirmation and its toast.
        await h.pilot.press("R")
        await h.until(lambda: isinstance(h.app.screen, RulesScreen))
        await _shown(h, rule)
        await h.pilot.press("d")
        await h.until(lambda: isinstance(h.app.screen, RemoveRuleScreen))
        await _shown(h, rule)
        await h.pilot.press("y")
        await h.until(lambda: any(f"Removed {rule}" in n for n in _notes(h.app)))
        await _shown(h, f"Removed {rule}")
        await _close(h)

        # The new-session form's error names the directory as typed.
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, NewSessionScreen))
        form = h.app.screen
        form.query_one("#prompt", Input).value = "[x] hello"
        form.query_one("#cwd", Input).value = str(tmp_path / "[/]nope[bold]")
        await h.pilot.press("ctrl+s")
        await _shown(h, "[/]nope[bold]")
        await _close(h)

        # Error toasts carry the core's message as written.
        for mark in MARKS:
            h.app.notify(f"failed: {mark}", title="Not sent", severity="error")
            h.app.main.notify(f"screen: {mark}")
        await _shown(h, *(f"failed: {m}" for m in MARKS[:2]))
        assert all(any(f"screen: {m}" in n for n in _notes(h.app)) for m in MARKS)
