"""``q`` while sessions work asks once: keep them in the background, end them, or stay."""

from __future__ import annotations

import asyncio

from cctui.core import BUSY
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.quit import QuitScreen
from tests.fakes.fake_driver import Script, hold, text
from tests.tui.conftest import RunApp


def slow() -> Script:
    """A "slow" prompt works until the test ends (an event of this test's loop)."""
    return {"slow": [hold(asyncio.Event()), text("done")]}


async def test_q_with_a_working_session_asks_and_esc_stays(run_app: RunApp) -> None:
    async with run_app(slow()) as h:
        await h.create("hello")  # idle after its turn: nothing is lost by ending it
        sid = await h.create("slow")
        assert h.manager.get(sid).status in BUSY
        await h.pilot.press("q")
        await h.until(lambda: isinstance(h.app.screen, QuitScreen))
        screen = h.app.screen
        assert isinstance(screen, QuitScreen)
        assert len(screen.working) == 1 and "slow" in screen.working[0]
        await h.pilot.press("q")  # a second q does not stack a second modal
        assert sum(isinstance(s, QuitScreen) for s in h.app.screen_stack) == 1
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        assert h.app.is_running and h.manager.get(sid).status in BUSY


async def test_e_ends_every_session_then_quits(run_app: RunApp) -> None:
    async with run_app(slow()) as h:
        await h.create("slow")
        await h.pilot.press("q")
        await h.until(lambda: isinstance(h.app.screen, QuitScreen))
        await h.pilot.press("e")
        await h.until(lambda: all(d.closed for d in h.factory.drivers))
        await h.until(lambda: not h.app.is_running)
        assert h.app.quitting.leaving == "end"


async def test_b_closes_the_window_and_leaves_every_session_running(run_app: RunApp) -> None:
    async with run_app(slow()) as h:
        sid = await h.create("slow")
        await h.pilot.press("q")
        await h.until(lambda: isinstance(h.app.screen, QuitScreen))
        await h.pilot.press("b")
        await h.until(lambda: not h.app.is_running)
        assert h.app.quitting.leaving == "background"
        assert not any(d.closed for d in h.factory.drivers)
        assert h.manager.get(sid).status in BUSY
        # The window's human is gone: nobody at this TUI answers a permission now.
        assert not h.manager.decisions.human_attached


async def test_the_config_can_choose_without_asking(run_app: RunApp) -> None:
    async with run_app(slow(), on_quit="background") as h:
        await h.create("slow")
        await h.pilot.press("q")
        await h.until(lambda: not h.app.is_running)
        assert h.app.quitting.leaving == "background"
        assert not any(d.closed for d in h.factory.drivers)


async def test_a_hang_up_keeps_live_sessions_and_ends_when_there_are_none(
    run_app: RunApp,
) -> None:
    async with run_app(slow()) as h:
        await h.create("hello")  # idle: live, so a hang-up keeps it (nobody chose to end it)
        h.app.quitting.hang_up()
        h.app.quitting.after_hang_up()
        await h.until(lambda: not h.app.is_running)
        assert (h.app.quitting.hung_up, h.app.quitting.leaving) == (True, "background")
    async with run_app(slow()) as h:
        h.app.quitting.hang_up()
        h.app.quitting.after_hang_up()
        await h.until(lambda: not h.app.is_running)
        assert h.app.quitting.leaving == "end"


async def test_q_asks_when_only_a_schedule_waits_and_a_hang_up_keeps_it(run_app: RunApp) -> None:
    """A schedule fires only while a cctui owns the sessions: closing the window on one is
    a choice, and a hang-up keeps it firing in the background."""
    async with run_app(slow()) as h:
        h.manager.dispatch.add_schedule("nightly", "0 3 * * *", "p", h.manager.default_config())
        await h.pilot.press("q")
        await h.until(lambda: isinstance(h.app.screen, QuitScreen))
        screen = h.app.screen
        assert isinstance(screen, QuitScreen)
        assert screen.working == [] and screen.waiting[0].startswith("schedule nightly · next")
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        h.app.quitting.hang_up()
        h.app.quitting.after_hang_up()
        await h.until(lambda: not h.app.is_running)
        assert h.app.quitting.leaving == "background"


async def test_an_attached_window_s_banner_says_when_the_owner_stopped(run_app: RunApp) -> None:
    # The banner is read again each tick: "q leaves them running" is untrue once the owner
    # (and its sessions with it) stopped, and the border says so.
    banner = ["⇄ attached to pid 4242 · q leaves them running"]
    async with run_app(attached=lambda: banner[0]) as h:
        left = h.app.main.query_one("#left")
        await h.until(lambda: left.border_subtitle == banner[0])
        banner[0] = "⇄ owner pid 4242 stopped · its sessions ended · q closes"
        await h.until(lambda: left.border_subtitle == banner[0], wait_s=3)
