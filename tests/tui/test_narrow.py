"""At 80x24 the side that has the keyboard gets the width: a reply beside the whole list
was drawn 22 columns wide (found walking the README at 80x24); an open dropdown stays
inside its form; a page's table never scrolls sideways."""

from __future__ import annotations

import json
from typing import Any

from textual.screen import Screen
from textual.widgets import Input, Select

from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.screens.rules import RulesScreen
from cctui.tui.widgets.fit_table import FitTable
from tests.tui.conftest import Harness, RunApp


async def test_the_pane_gets_the_width_while_the_keyboard_is_in_it(run_app: RunApp) -> None:
    async with run_app() as h:
        session = await h.create("hello")
        await h.pilot.resize_terminal(80, 24)
        await h.pilot.pause(0.1)
        main = h.app.main
        left, pane = main.query_one("#left"), main.query_one("#pane")
        assert left.outer_size.width >= 56 and pane.outer_size.width < 30  # the list leads
        width = main.sessions.size.width

        main.open_session(session)
        main.query_one("#message", Input).focus()
        await h.until(lambda: pane.outer_size.width >= 50)
        assert left.outer_size.width <= 24
        # Clipped, not narrowed: a new width would cut every title again.
        assert main.sessions.size.width == width

        await h.pilot.press("escape")  # back to the list: it takes its width back
        await h.until(lambda: left.outer_size.width >= 56)
        assert main.sessions.has_focus

        await h.pilot.resize_terminal(160, 48)  # wide: both are read side by side
        main.query_one("#message", Input).focus()
        await h.pilot.pause(0.1)
        assert left.outer_size.width >= 56 and pane.outer_size.width >= 56


async def _open_at_80x24(h: Harness, key: str, page: type[Screen[Any]]) -> Screen[Any]:
    await h.pilot.resize_terminal(80, 24)
    await h.pilot.press(key)
    await h.until(lambda: isinstance(h.app.screen, page))
    await h.pilot.pause(0.1)
    return h.app.screen


async def test_the_permission_mode_list_stays_inside_the_new_session_form(
    run_app: RunApp,
) -> None:
    # Its notes wrapped to three lines each and the open list ran over the footer.
    async with run_app() as h:
        form = await _open_at_80x24(h, "n", NewSessionScreen)
        mode = form.query_one("#mode", Select)
        mode.focus()
        await h.pilot.press("enter")
        overlay = mode.query_one("SelectOverlay")  # (not exported by Textual)
        await h.until(lambda: overlay.region.height > 0)
        await h.pilot.pause(0.1)
        dialog = form.query_one("#dialog").region
        assert dialog.contains_region(overlay.region), (overlay.region, dialog)
        assert mode.region.height == 3  # the chosen mode on one line, cut, not wrapped


async def test_the_help_page_fits_80_columns_and_says_more_keys_are_below(
    run_app: RunApp,
) -> None:
    # Its dialog ran past the right edge (no right border, no scrollbar) and nothing said
    # that more keys were further down.
    async with run_app() as h:
        screen = await _open_at_80x24(h, "question_mark", HelpScreen)
        dialog = screen.query_one("#dialog")
        assert screen.region.contains_region(dialog.region), dialog.region
        assert dialog.max_scroll_y > 0  # it does scroll...
        assert "more keys below" in str(screen.query_one("#more").render())  # ...and says so
        more = screen.query_one("#more")
        for _ in range(2):  # (one line up and back showed it again at the end)
            await h.pilot.press("end")
            await h.until(lambda: dialog.scroll_y == dialog.max_scroll_y)
            await h.until(lambda: not more.visible)  # at the end: nothing more below
            await h.pilot.press("up")
            await h.until(lambda: more.visible)


async def test_the_rules_page_never_scrolls_sideways_at_80_columns(run_app: RunApp) -> None:
    # The file column ran past the dialog: a horizontal scrollbar's thumb under the rows read
    # as a stray mark, and the path was cut at the edge. The column gives way instead.
    async with run_app() as h:
        (h.project / ".claude").mkdir(exist_ok=True)
        (h.project / ".claude" / "settings.local.json").write_text(
            json.dumps({"permissions": {"allow": ["Bash(npm test *)", "Read"]}})
        )
        session = await h.create("hello")
        h.app.main.open_session(session)
        screen = await _open_at_80x24(h, "R", RulesScreen)
        table = screen.query_one(FitTable)
        await h.until(lambda: table.row_count == 2)
        # Fitted once the table has been laid out at its new width (a refresh away; a fixed
        # pause was too short under load): waited on, then held.
        await h.until(lambda: table.virtual_size.width <= table.scrollable_content_region.width)
        assert table.max_scroll_x == 0 and not table.show_horizontal_scrollbar
        at_80 = table.render_line(1).text.rstrip()
        assert str(h.project) not in at_80  # too long for 80 columns...
        assert at_80.endswith("…")  # ...so it says it is cut

        # Wide: the file column takes the room (the whole path where it fits: a worker's
        # temporary path is longer than a 160-column dialog has room for), still no scrollbar.
        await h.pilot.resize_terminal(160, 48)
        await h.until(lambda: len(table.render_line(1).text.rstrip()) > len(at_80))
        at_160 = table.render_line(1).text.rstrip()
        whole = str(h.project / ".claude" / "settings.local.json")
        assert whole in at_160 or at_160.endswith("…"), at_160
        assert table.max_scroll_x == 0
