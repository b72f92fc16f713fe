"""The footer is built again only when its keys change: a dialog opening and closing over
the main screen leaves the same key widgets in place, a key that appears or is disabled
is drawn."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, Label
from textual.widgets._footer import FooterKey

from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.widgets.footer import KeyFooter
from cctui.tui.widgets.session_pane import MessageInput
from tests.tui.conftest import RunApp


async def test_a_dialog_over_the_main_screen_leaves_its_footer_alone(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.pause()
        footer = h.app.screen.query_one(KeyFooter)
        keys = list(footer.query(FooterKey))
        assert len(keys) >= 10  # cctui's keys are drawn
        rebuilds = footer.rebuilds
        for _ in range(3):
            await h.pilot.press("n")
            assert isinstance(h.app.screen, NewSessionScreen)
            await h.pilot.press("escape")
            await h.pilot.pause()
            assert isinstance(h.app.screen, MainScreen)
        assert footer.rebuilds == rebuilds
        assert list(footer.query(FooterKey)) == keys


class _Keys(App[None]):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "alpha", "Alpha"),
        Binding("b", "beta", "Beta"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.beta: bool | None = False
        """``check_action`` for beta: shown and enabled (True), disabled (None), hidden."""

    def compose(self) -> ComposeResult:
        yield Label("keys")
        yield Button("press")
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.beta if action == "beta" else True

    def action_alpha(self) -> None:
        pass

    def action_beta(self) -> None:
        pass


def _drawn(app: App[None]) -> dict[str, bool]:
    """Each key the footer draws, and whether it is disabled."""
    return {key.key: key.has_class("-disabled") for key in app.query(FooterKey)}


async def test_the_footer_follows_keys_that_appear_and_are_disabled() -> None:
    app = _Keys()
    async with app.run_test() as pilot:
        app.set_focus(None)
        await pilot.pause()
        assert _drawn(app) == {"a": False}
        footer = app.query_one(KeyFooter)

        app.beta = True
        app.refresh_bindings()
        await pilot.pause()
        assert _drawn(app) == {"a": False, "b": False}

        app.beta = None
        app.refresh_bindings()
        await pilot.pause()
        assert _drawn(app) == {"a": False, "b": True}

        rebuilds = footer.rebuilds
        app.refresh_bindings()  # nothing changed
        await pilot.pause()
        app.query_one(Button).focus()  # brings a key of its own, not shown
        await pilot.pause()
        assert footer.rebuilds == rebuilds
        assert _drawn(app) == {"a": False, "b": True}


async def test_at_80_columns_the_footer_keeps_help_and_quit(run_app: RunApp) -> None:
    """Issue 39, item 8: at 80x24 the footer's last keys, ``?`` and ``q``, were cut off."""
    async with run_app() as h:
        await h.pilot.resize_terminal(80, 24)
        await h.pilot.pause(0.3)
        bottom = h.app.screen._compositor.render_strips()[-1].text
        assert "? Help" in bottom and "q Quit" in bottom, bottom


async def test_on_the_message_line_the_footer_shows_no_key_that_would_be_typed(
    run_app: RunApp,
) -> None:
    """Found walking the README: with the keyboard on the message line the footer still
    offered "/ Filter", and "/" (like "i", which the README asks to try) went into the
    message. A key a text field takes as a character is not offered there; back on the
    list it is."""
    async with run_app() as h:
        session_id = await h.create("hello")
        main = h.app.main
        await h.until(lambda: main.pane.session_id == session_id)
        main.query_one(MessageInput).focus()
        await h.pilot.pause(0.1)
        drawn = _drawn(h.app)
        assert "slash" not in drawn and not [k for k in drawn if len(k) == 1], drawn
        await h.pilot.press("escape")
        await h.pilot.pause(0.1)
        assert "slash" in _drawn(h.app), _drawn(h.app)
