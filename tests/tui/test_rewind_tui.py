"""``r`` on a prompt: the dry run's files in a confirmation, then the rewind (fake driver)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.rewind import RewindScreen
from cctui.tui.widgets.blocks import Note
from cctui.tui.widgets.event_lines import PromptBlock
from tests.tui.conftest import Harness, RunApp


@pytest.fixture(autouse=True)
def armed_rewind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RewindScreen, "ARM_DELAY_S", 0.0)


async def open_second_prompt(h: Harness, **config: object) -> str:
    session_id = await h.create("first", **config)
    await h.manager.send(session_id, "second")
    await h.settle(session_id)
    h.app.main.open_session(session_id)
    await h.until(lambda: len(h.app.main.pane.query(PromptBlock)) == 2)
    return session_id


async def test_tab_to_a_prompt_r_confirm_y_rewinds(run_app: RunApp) -> None:
    async with run_app() as h:
        session_id = await open_second_prompt(h, file_checkpointing=True)
        second = h.manager.prompts(session_id)[1]
        h.app.main.query_one("#transcript").focus()
        for _ in range(10):  # tab from the output to the second prompt
            if isinstance(h.app.focused, PromptBlock) and h.app.focused.index == 1:
                break
            await h.pilot.press("tab")
        assert isinstance(h.app.focused, PromptBlock) and h.app.focused.prompt_id == second.id
        await h.pilot.press("r")
        await h.until(lambda: isinstance(h.app.screen, RewindScreen))
        screen = h.app.screen
        assert [str(w.render()) for w in screen.query(".file").results(Static)] == ["hello.txt"]
        assert "prompt 1" in str(screen.query_one("#title", Static).render())
        driver = h.factory.drivers[-1]
        assert driver.rewinds == [(second.id, True)]
        await h.pilot.press("y")
        await h.until(lambda: (second.id, False) in driver.rewinds)
        assert isinstance(h.app.screen, MainScreen)
        await h.until(lambda: bool(h.app.main.pane.query(Note).filter(".rewound")))
        line = str(h.app.main.pane.query(Note).filter(".rewound").first().render())
        assert "as before prompt 1 by tui: hello.txt" in line


async def test_esc_leaves_the_files(run_app: RunApp) -> None:
    async with run_app() as h:
        await open_second_prompt(h, file_checkpointing=True)
        h.app.main.pane.query(PromptBlock).first().focus()
        await h.pilot.press("r")
        await h.until(lambda: isinstance(h.app.screen, RewindScreen))
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)
        await h.pilot.pause(0.1)
        assert [dry for _id, dry in h.factory.drivers[-1].rewinds] == [True]


async def test_a_session_without_checkpoints_says_why(run_app: RunApp) -> None:
    async with run_app() as h:
        await open_second_prompt(h)  # SessionConfig's default: no checkpoints
        h.app.main.pane.query(PromptBlock).first().focus()
        notes: list[str] = []
        h.app.notify = lambda message, **_kw: notes.append(message)
        await h.pilot.press("r")
        await h.until(lambda: bool(notes))
        assert "started without file checkpointing" in notes[0]
        assert not isinstance(h.app.screen, RewindScreen)
