"""The search screen (``s``), the usage page (``u``), costs in the list and index progress."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable, Input, Static

from cctui.history.models import IndexProgress
from cctui.tui.screens.main import MainScreen
from cctui.tui.screens.search import SearchScreen
from cctui.tui.screens.usage import UsageScreen, tokens
from cctui.tui.widgets.blocks import UserBlock
from cctui.tui.widgets.status_bar import StatusBar
from cctui.tui.widgets.transcript import Transcript
from tests.history import make_lines as mk
from tests.history.conftest import (
    INTERACTIVE_ID,
    MULTI_ID,
    SAMPLES,
    TRANSCRIPTS,
    WRITE_ID,
    add_transcript,
)
from tests.tui.conftest import RunApp


def _seed(tmp_path: Path) -> Path:
    claude = tmp_path / "home" / ".claude"
    for sid in TRANSCRIPTS:
        add_transcript(claude, sid)
    shutil.copyfile(SAMPLES / "history.jsonl", claude / "history.jsonl")
    return claude


def _cells(table: DataTable) -> list[list[str]]:  # type: ignore[type-arg]
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_search_as_you_type_then_enter_opens_the_session_there(
    run_app: RunApp, tmp_path: Path
) -> None:
    _seed(tmp_path)
    async with run_app() as h:
        await h.app.history_loaded.wait()
        await h.pilot.press("s")
        screen = h.app.screen
        assert isinstance(screen, SearchScreen)
        await h.pilot.press(*"follow")
        await h.until(lambda: screen.last is not None and screen.last.query == "follow")
        assert [hit.session_id for hit in screen.last.hits] == [MULTI_ID]  # type: ignore[union-attr]
        await h.pilot.press(*" up after")
        await h.until(lambda: screen.last is not None and screen.last.query == "follow up after")
        rows = _cells(screen.query_one(DataTable))
        assert len(rows) == 1 and "follow up after exit" in rows[0][3]
        assert "1 session(s)" in str(screen.query_one("#summary", Static).render())

        await h.pilot.press("down", "enter")
        await h.until(lambda: isinstance(h.app.screen, MainScreen))
        main = h.app.main
        assert main.pane.session_id == MULTI_ID
        transcript = main.pane.query_one(Transcript)
        # Opened at the hit (the third prompt), one message before it first.
        await h.until(lambda: transcript.item_count > 0)

        def users() -> list[str]:
            return [str(c.render()) for c in transcript.children if isinstance(c, UserBlock)]

        await h.until(lambda: bool(users()))
        assert users()[0].endswith("follow up after exit")  # the hit's message comes first


async def test_a_word_in_the_middle_of_a_200_kb_tool_result_is_found(
    run_app: RunApp, tmp_path: Path
) -> None:
    mk.plant(_seed(tmp_path))
    async with run_app() as h:
        await h.app.history_loaded.wait()
        await h.pilot.press("s")
        screen = h.app.screen
        assert isinstance(screen, SearchScreen)
        await h.pilot.press(*mk.PLANTED)
        await h.until(lambda: screen.last is not None and screen.last.query == mk.PLANTED)
        assert [hit.session_id for hit in screen.last.hits] == [mk.PLANTED_SID]  # type: ignore[union-attr]
        rows = _cells(screen.query_one(DataTable))
        assert len(rows) == 1 and mk.PLANTED in rows[0][3]


async def test_a_bad_query_says_why_in_place(run_app: RunApp, tmp_path: Path) -> None:
    _seed(tmp_path)
    async with run_app() as h:
        await h.app.history_loaded.wait()
        await h.pilot.press("s")
        screen = h.app.screen
        assert isinstance(screen, SearchScreen)
        screen.query_one(Input).value = "role:robot hello"
        await h.until(lambda: "role:robot" in str(screen.query_one("#summary", Static).render()))
        screen.query_one(Input).value = '"'  # a lone quote: no word, said so (no traceback)
        await h.until(lambda: "no word" in str(screen.query_one("#summary", Static).render()))
        screen.query_one(Input).value = 'NEAR( "hello'
        await h.until(lambda: screen.last is not None and screen.last.query == 'NEAR( "hello')
        await h.pilot.press("escape")
        assert isinstance(h.app.screen, MainScreen)


async def test_usage_page_and_costs_of_past_sessions_in_the_list(
    run_app: RunApp, tmp_path: Path
) -> None:
    _seed(tmp_path)
    async with run_app() as h:
        await h.app.history_loaded.wait()
        # The list's cost column for sessions cctui never ran (CLI figures = computed ones).
        # history_loaded is the index's first step (~0.5 s, newest files first): a slow moment
        # cuts it before this transcript, whose row comes from history.jsonl until its step.
        await h.until(lambda: getattr(h.app.main.sessions.row(WRITE_ID), "cost_usd", None))
        row = h.app.main.sessions.row(WRITE_ID)
        assert row is not None and row.cost_usd is not None and abs(row.cost_usd - 0.057272) < 1e-6
        await h.pilot.press("u")
        screen = h.app.screen
        assert isinstance(screen, UsageScreen)
        await h.until(lambda: screen.reports is not None)
        models = _cells(screen.query_one("#models", DataTable))
        assert models[0][0] == "claude-opus-5-5" and models[0][-1] == "$0.12"
        sessions = _cells(screen.query_one("#sessions", DataTable))
        # Costliest first: 0.057, 0.0425 (the resumed one), 0.024.
        assert [s[0] for s in sessions] == [
            "PLEASE_WRITE a file", "hello turn one", "hello interactive",
        ]  # fmt: skip
        assert "$0.12" in str(screen.query_one("#totals", Static).render())
        await h.pilot.press("u")
        assert isinstance(h.app.screen, MainScreen)


async def test_index_progress_shows_in_the_status_bar(run_app: RunApp, tmp_path: Path) -> None:
    _seed(tmp_path)
    async with run_app() as h:
        await h.app.history_loaded.wait()
        # The watcher's next sweep (in a thread) or the 1 Hz status tick would otherwise
        # replace the progress set here before it is read.
        h.app._stop_watching.set()
        await h.until(lambda: not any(w.group == "history" and w.is_running for w in h.app.workers))
        index = h.app.source.index
        index.progress = IndexProgress(
            active=True, files_total=2000, files_done=1234, bytes_total=850_000_000,
            bytes_done=420_000_000,
        )  # fmt: skip
        h.app.main.refresh_status()
        bar = str(h.app.main.query_one(StatusBar).render())
        assert "indexing 1,234 of 2,000 · 420 MB" in bar
        index.progress = IndexProgress()
        h.app.main.refresh_status()
        assert "indexing" not in str(h.app.main.query_one(StatusBar).render())
        assert h.app.main.sessions.row(INTERACTIVE_ID) is not None


async def test_at_80x24_a_hit_shows_what_matched(run_app: RunApp, tmp_path: Path) -> None:
    """Found walking the README at 80x24: the when, project and session columns took the
    table's width and the match column showed only "user:", never the text that matched."""
    _seed(tmp_path)
    async with run_app() as h:
        await h.pilot.resize_terminal(80, 24)
        await h.app.history_loaded.wait()
        await h.pilot.press("s")
        screen = h.app.screen
        assert isinstance(screen, SearchScreen)
        await h.pilot.press(*"follow")
        await h.until(lambda: screen.last is not None and bool(screen.last.hits))
        await h.pilot.pause(0.2)
        table = screen.query_one(DataTable)
        drawn = [strip.text for strip in screen._compositor.render_strips()]
        hit_lines = [s for s in drawn if "user:" in s]
        assert hit_lines and "follow up" in hit_lines[0], hit_lines
        assert table.virtual_size.width <= table.size.width, (table.virtual_size, table.size)


def test_token_counts_are_short_up_to_billions() -> None:
    """A heavy month's cache reads read "5036.7M" beside columns of "9.2M"."""
    assert [tokens(n).plain for n in (950, 12_345, 4_500_000, 5_036_700_000)] == [
        "950", "12.3k", "4.5M", "5.0B",
    ]  # fmt: skip
