"""Snapshots of the search screen and the usage page (``pytest --snapshot-update`` refreshes).

The demo app (``tests/snapshot_apps/demo.py``) plus past sessions written at fixed dates with
usage, so the hits, the chart and the tables are the same on every run. The demo's directory
is moved beside the process's own (``demo_root``, then ``-index``), shown in the snapshots as
``/tmp/cctui-demo-index``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from cctui.tui.screens.search import SearchScreen
from cctui.tui.screens.usage import UsageScreen
from tests.history import make_lines as mk
from tests.snapshot_apps import demo
from tests.snapshot_apps.demo import SIZE, DemoApp, settle


@pytest.fixture(autouse=True)
def _own_root(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "ROOT", demo_root.with_name(f"{demo_root.name}-index"))


SONNET = "claude-sonnet-4-5-20250929"
OPUS = "claude-opus-4-5-20251101"
_PAST = [
    # (session id, project, day, prompt, reply, model, input, output, cache read)
    ("5e55a000-0000-4000-8000-000000000001", "api", 18, "Why does Session._pump stall after "
     "error-401?", "The retry loop in Session._pump never backs off after a 401.", OPUS,
     4000, 2500, 180_000),
    ("5e55a000-0000-4000-8000-000000000002", "api", 20, "Add a timeout to the stream handler",
     "Added a 30 s timeout around the stream handler's read.", SONNET, 3000, 1800, 90_000),
    ("5e55a000-0000-4000-8000-000000000003", "infra", 21, "Why is the deploy stuck?",
     "The deploy waits on a stuck migration lock in the release job.", SONNET, 2000, 900, 40_000),
    ("5e55a000-0000-4000-8000-000000000004", "docs", 23, "Summarise the session pump design",
     "Session pump: one reader task, frames published in order.", "claude-experimental-zz",
     1500, 700, 0),
    ("5e55a000-0000-4000-8000-000000000005", "cctui", 24, "Profile the session list redraw",
     "The session list redraw was dominated by Path objects; now strings.", OPUS,
     6000, 4200, 300_000),
]  # fmt: skip


class IndexDemo(DemoApp):
    """The demo app with past sessions that have usage, at fixed dates."""

    async def on_mount(self) -> None:
        # Runs before DemoApp's and CctuiApp's on_mount: the files exist when the index loads.
        claude = self.settings.claude_config_dir
        for n, (sid, project, day, prompt, reply, model, inp, out, cr) in enumerate(_PAST):
            cwd = str(demo.ROOT / project)
            ts = f"2026-11-{day:02d}T{9 + n:02d}:00:00.000Z"
            body = mk.user(prompt, sid, ts=ts, cwd=cwd)
            body += mk.assistant(
                [mk.text(reply), mk.tool_use("Bash", command="pytest -q tests/")],
                sid,
                msg_id=f"msg_{n}",
                request_id=f"req_{n}",
                model=model,
                ts=ts.replace(":00:00.000Z", ":00:05.000Z"),
                use=mk.usage(inp=inp, out=out, cr=cr, cw=2000),
            )
            mk.write(claude, sid, body, project="-" + cwd.strip("/").replace("/", "-"))


def _app() -> IndexDemo:
    return IndexDemo("new")


def _ready(scenario: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, IndexDemo)
        await settle(pilot)
        for _ in range(1000):  # the index build runs in steps: wait until every file is in
            if not app.source.index.progress.active and len(app.source.rows()) >= 8:
                break
            await pilot.pause(0.02)
        await app.settle()
        if scenario == "search":
            await pilot.press("s")
            screen = app.screen
            assert isinstance(screen, SearchScreen)
            screen.query_one(Input).value = "session pump"
            screen.query_one(Input).cursor_blink = False
            for _ in range(1000):  # 20 s at most, on a loaded machine
                await pilot.pause(0.02)
                if screen.last is not None and screen.last.query == "session pump":
                    break
        else:
            usage = UsageScreen(app.source.index, today=date(2026, 11, 25))
            await app.push_screen(usage)
            for _ in range(1000):  # 20 s at most, on a loaded machine
                await pilot.pause(0.02)
                if usage.reports is not None:
                    break
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    return run_before


def test_search_snapshot(snap_compare: Any) -> None:
    """Hits grouped by session, the matched words highlighted, the best first."""
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_ready("search"))


def test_usage_snapshot(snap_compare: Any) -> None:
    """Cost per day, then days, models (one without a price), sessions and blocks."""
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_ready("usage"))


@pytest.mark.parametrize("scenario", ["search", "usage"])
def test_search_and_usage_at_80x24(snap_compare: Any, scenario: str) -> None:
    """Both pages at the smallest terminal cctui promises (issue 39): nothing cut or clipped."""
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=_ready(scenario))


def test_the_snapshot_apps_write_where_the_demo_resets() -> None:
    assert demo.ROOT.is_absolute()
    assert demo.ROOT.name.endswith("-index")
