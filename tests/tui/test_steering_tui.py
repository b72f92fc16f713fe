"""The TUI's keys for steering a session and keeping approvals: shift+tab, M, P, the rules page."""

from __future__ import annotations

import json

from textual.widgets import DataTable, Input, OptionList

from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.model import ModelScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.screens.rules import RemoveRuleScreen, RulesScreen
from tests.fakes.fake_driver import text, tool
from tests.tui.conftest import Harness, RunApp

RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
    "behavior": "allow",
    "destination": "localSettings",
}
SCRIPT = {
    "npm": [tool("Bash", {"command": "npm test"}, suggestions=(RULE,)), text("ran")],
    "whole": [
        tool(
            "Bash",
            {"command": "make"},
            suggestions=({"type": "setMode", "mode": "acceptEdits", "destination": "session"},),
        ),
        text("made"),
    ],
    "*": [text("hello")],
}


async def opened(h: Harness, prompt: str = "hi") -> str:
    session_id = await h.create(prompt)
    main = h.app.main
    main.open_session(session_id)
    main.sessions.focus()
    await h.pilot.pause(0.05)
    return session_id


async def test_shift_tab_cycles_the_mode_and_the_pane_says_so(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        session_id = await opened(h)
        await h.pilot.press("shift+tab")
        await h.until(lambda: h.manager.get(session_id).permission_mode == "acceptEdits")
        await h.pilot.press("shift+tab")
        await h.until(lambda: h.manager.get(session_id).permission_mode == "plan")
        assert h.factory.drivers[0].mode_changes == ["acceptEdits", "plan"]
        await h.app.settle()
        notes = [str(n.render()) for n in h.app.main.pane.query(".setting")]
        assert any("acceptEdits → plan" in n and "claude confirmed it" in n for n in notes)
        assert "plan mode" in str(h.app.main.pane.query_one("#pane-header").render())


async def test_shift_tab_elsewhere_still_moves_the_focus_back(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        session_id = await opened(h)
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, NewSessionScreen))
        before = h.app.focused
        await h.pilot.press("shift+tab")
        await h.pilot.pause(0.05)
        assert h.app.focused is not before
        assert h.factory.drivers[0].mode_changes == []
        assert h.manager.get(session_id).permission_mode == "default"


async def test_m_picks_a_model(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        session_id = await opened(h)
        await h.pilot.press("M")
        await h.until(lambda: isinstance(h.app.screen, ModelScreen))
        models = h.app.screen.query_one(OptionList)
        assert models.highlighted == 0  # the default model, which the session uses
        await h.pilot.press("down", "enter")  # opus
        await h.until(lambda: h.factory.drivers[0].model_changes == ["opus"])
        assert h.manager.get(session_id).config.model == "opus"
        assert isinstance(h.app.screen, MainScreen)
        await h.pilot.press("M")
        await h.until(lambda: isinstance(h.app.screen, ModelScreen))
        assert h.app.screen.query_one(OptionList).highlighted == 1  # opus marked now
        await h.pilot.press("escape")
        assert h.factory.drivers[0].model_changes == ["opus"]


async def test_p_shows_rule_and_file_then_keeps_it_for_the_project(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        await h.create("run npm tests")
        await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
        screen = h.app.screen
        shown = str(screen.query_one("#project-scope").render())
        assert "Bash(npm test *)" in shown
        assert str(h.project / ".claude" / "settings.local.json") in shown
        assert "always allow in this project" in str(screen.query_one("#keys").render())
        await h.pilot.press("P")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        answer = h.factory.drivers[0].answers[0]
        assert answer.allow and answer.persist == (0,)


async def test_p_without_a_rule_content_is_not_offered(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        await h.create("whole make")
        await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
        screen = h.app.screen
        assert "nothing to keep for the project" in str(screen.query_one("#project-scope").render())
        assert "P" not in [k for k, _ in screen.key_pairs()]
        await h.pilot.press("P")
        await h.pilot.pause(0.1)
        assert h.app.screen is screen and not h.factory.drivers[0].answers
        await h.pilot.press("y")
        await h.until(lambda: bool(h.factory.drivers[0].answers))
        assert h.factory.drivers[0].answers[0].persist == ()


async def test_the_rules_page_lists_and_removes(run_app: RunApp) -> None:
    async with run_app(SCRIPT) as h:
        local = h.project / ".claude" / "settings.local.json"
        local.parent.mkdir()
        local.write_text(
            json.dumps({"permissions": {"allow": ["Bash(npm test *)", "Bash(ls *)"]}, "x": 1})
        )
        await opened(h)
        await h.pilot.press("R")
        await h.until(
            lambda: isinstance(h.app.screen, RulesScreen) and h.app.screen.view is not None
        )
        rules = h.app.screen
        assert isinstance(rules, RulesScreen)
        assert rules.query_one(DataTable).row_count == 2
        await h.pilot.press("d")
        await h.until(lambda: isinstance(h.app.screen, RemoveRuleScreen))
        await h.pilot.press("n")  # kept
        assert json.loads(local.read_text())["permissions"]["allow"] == [
            "Bash(npm test *)",
            "Bash(ls *)",
        ]
        await h.pilot.press("d")
        await h.until(lambda: isinstance(h.app.screen, RemoveRuleScreen))
        await h.pilot.press("y")
        await h.until(lambda: rules.view is not None and len(rules.view.rules) == 1)
        assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(ls *)"]}, "x": 1}
        assert local.with_name("settings.local.json.bak").exists()
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)


async def test_the_message_line_keeps_its_keys(run_app: RunApp) -> None:
    """Typing M or R into the message line types them; shift+tab still cycles the mode."""
    async with run_app(SCRIPT) as h:
        session_id = await opened(h)
        line = h.app.main.query_one("#message", Input)
        line.focus()
        await h.pilot.press("M", "R")
        assert line.value == "MR"
        await h.pilot.press("shift+tab")
        await h.until(lambda: h.manager.get(session_id).permission_mode == "acceptEdits")
