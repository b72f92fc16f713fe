"""The control room at scale and the approvers' safety: what is visible, not which screen.

Folding of a long transcript, the inbox's arm delay and cursor, every field of a tool input
in the modal, what ``A`` allows, the core's filter in the list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static

from cctui.services import Services
from cctui.tui.app import CctuiApp
from cctui.tui.screens.decision import DecisionModal
from cctui.tui.screens.inbox import InboxScreen
from cctui.tui.screens.new_session import NewSessionScreen
from cctui.tui.screens.pending_input import PendingInputScreen
from cctui.tui.widgets.blocks import Earlier, ToolBody, ToolCall
from cctui.tui.widgets.transcript import Transcript
from tests.fakes.fake_driver import text, tool
from tests.tui.conftest import Harness, RunApp

pytestmark = pytest.mark.slow  # many sessions, long replies: seconds each


def visible(widget: Static) -> str:
    """The text a Static shows."""
    return str(widget.render())


async def test_three_hundred_tool_calls_fold_into_an_earlier_line(run_app: RunApp) -> None:
    calls = [tool("Read", {"file_path": f"/src/m{i}.py"}, ask=False) for i in range(300)]
    async with run_app({"*": [*calls, text("All read.")]}) as h:
        session_id = await h.create("read all")
        await h.manager.wait(session_id, 30)
        h.app.main.open_session(session_id)
        await h.app.settle()
        await h.pilot.pause()
        transcript = h.app.main.pane.query_one(Transcript)
        mounted = list(transcript.query_children(ToolCall))
        assert transcript.item_count > Transcript.MAX_WEIGHT + Transcript.TRIM_STEP
        assert len(mounted) <= Transcript.MAX_WEIGHT + Transcript.TRIM_STEP
        earlier = transcript.query_one(Earlier)
        assert f"▲ {transcript.folded} earlier item(s)" in str(earlier.label)
        # The newest call is on screen, one line, its body not built until expanded.
        last = mounted[-1]
        assert "/src/m299.py" in visible(last)
        assert not transcript.query_children(ToolBody)
        last.toggle()
        await h.pilot.pause()
        # The body is the line's next sibling, built now.
        body = transcript.children[transcript.children.index(last) + 1]
        assert isinstance(body, ToolBody) and body is last.body
        assert "/src/m299.py" in visible(body)
        folded = transcript.folded
        transcript.show_earlier()
        await h.pilot.pause()
        assert 0 <= transcript.folded < folded
        assert len(transcript.query_children(ToolCall)) > len(mounted)


async def test_inbox_keys_wait_for_the_arm_delay_and_the_cursor_keeps_its_request(
    run_app: RunApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with run_app() as h:
        for prompt in ("bash one", "bash two", "bash three"):
            await h.create(prompt)
        await h.until(lambda: len(h.manager.pending()) == 3)
        await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
        await h.pilot.press("escape")  # later: the other two stay in the inbox with it
        await h.until(lambda: h.app.screen is h.app.main)
        monkeypatch.setattr(DecisionModal, "ARM_DELAY_S", 3600.0)
        await h.pilot.press("a")
        inbox = h.app.screen
        assert isinstance(inbox, InboxScreen)
        table = inbox.query_one(DataTable)
        await h.pilot.press("down", "down")
        chosen = inbox._shown[table.cursor_row].id
        await h.pilot.press("y")  # not armed: nothing is answered
        await h.pilot.pause(0.1)
        assert len(h.manager.pending()) == 3
        # Another request is answered elsewhere: the cursor stays on the same request.
        first = h.manager.pending()[0]
        from cctui.core import Decision

        h.manager.decisions.router.note_created(first.session_id, "test", can_ask=False)
        h.manager.respond(first.id, Decision(behavior="deny"), "mcp:test")
        await h.until(lambda: len(inbox._shown) == 2)
        assert inbox._shown[table.cursor_row].id == chosen
        await h.pilot.press("y")
        await h.pilot.pause(0.1)
        assert chosen in {p.id for p in h.manager.pending()}
        monkeypatch.setattr(DecisionModal, "ARM_DELAY_S", 0.0)
        inbox._armed_for = None  # re-arm with the short delay
        await h.pilot.press("y")
        await h.until(lambda: chosen not in {p.id for p in h.manager.pending()})


async def _modal(h: Harness) -> PendingInputScreen:
    await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
    screen = h.app.screen
    assert isinstance(screen, PendingInputScreen)
    return screen


async def test_bash_modal_shows_every_field_and_what_capital_a_allows(run_app: RunApp) -> None:
    script = {
        "*": [
            tool(
                "Bash",
                {
                    "command": "npm test -- --watch=false",
                    "description": "Run the tests",
                    "timeout": 600000,
                    "run_in_background": True,
                },
                suggestions=(
                    {
                        "type": "addRules",
                        "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
                        "behavior": "allow",
                        "destination": "localSettings",
                    },
                ),
            )
        ]
    }
    async with run_app(script) as h:
        await h.create("go")
        screen = await _modal(h)
        body = visible(screen.query_one("#tool-input", Static))
        for shown in ("npm test -- --watch=false", "timeout", "600000", "run_in_background"):
            assert shown in body
        scope = visible(screen.query_one("#allow-scope", Static))
        assert screen.pending.allow_for_session  # the core says what A allows...
        assert scope == "A " + screen.pending.allow_for_session  # ...and it is on screen


async def test_a_long_write_is_shown_whole_in_the_modal(run_app: RunApp) -> None:
    content = "\n".join(f"line {i}" for i in range(1200))
    async with run_app({"*": [tool("Write", {"file_path": "big.txt", "content": content})]}) as h:
        await h.create("write")
        screen = await _modal(h)
        body = visible(screen.query_one("#tool-input", Static))
        assert "line 0" in body and "line 1199" in body
        assert "more lines" not in body
        scope = visible(screen.query_one("#allow-scope", Static))
        assert scope == "A " + (
            screen.pending.allow_for_session
            or "Allow every Write call for the rest of this session."
        )


async def test_filter_is_the_core_query_and_says_what_is_wrong(run_app: RunApp) -> None:
    async with run_app({"bash": [tool("Bash", {"command": "ls"})], "*": [text("ok")]}) as h:
        await h.create("alpha one")
        await h.create("please bash")
        await h.until(lambda: isinstance(h.app.screen, PendingInputScreen))
        await h.pilot.press("escape")
        await h.pilot.press("slash")
        box = h.app.main.query_one("#filter", Input)
        box.value = "status:waiting"
        await h.pilot.pause(0.05)
        titles = [h.app.main.sessions.row(s).title for s in h.app.main.sessions.shown]
        assert titles == ["please bash"]
        box.value = "status:nonsense"
        await h.pilot.pause(0.05)
        error = h.app.main.query_one("#filter-error", Static)
        assert error.display and "unknown status" in visible(error)
        assert len(h.app.main.sessions.shown) == 1  # the last good filter stays


async def test_a_50_kb_reply_ends_on_screen_and_only_its_end_is_mounted(run_app: RunApp) -> None:
    from tests.bench.bench_tui import END, reply_markdown

    body = reply_markdown(50)
    async with run_app({"*": [text(body, chunk=10)]}) as h:
        info = await h.manager.create("long", h.manager.default_config())
        h.app.main.open_session(info.session_id)
        await h.manager.wait(info.session_id, 60)
        await h.app.settle()
        await h.pilot.pause()
        transcript = h.app.main.pane.query_one(Transcript)
        blocks = transcript.blocks
        assert blocks and blocks[-1].text.endswith(END)
        # Chunks in order, the newest mounted, the start folded behind the "earlier" line.
        shown = "".join(b.text for b in blocks)
        assert body.endswith(shown) and len(shown) < len(body) / 3
        assert transcript.folded > 0
        assert "earlier item(s)" in str(transcript.query_one(Earlier).label)
        # Scrolling back mounts the earlier chunks again, in order.
        while transcript.folded:
            transcript.show_earlier()
        await h.pilot.pause()
        await h.app.settle()
        assert "".join(b.text for b in transcript.blocks) == body


async def test_the_tui_and_the_mcp_list_tool_share_one_history_index(tmp_path: Path) -> None:
    """cli._tui wires one index: the TUI's watcher keeps it live and claude_list_sessions
    reads it (no refresh of its own), so both show the same sessions with the same filter."""
    from datetime import UTC, datetime

    from cctui.config import load_settings
    from cctui.core import SessionManager
    from cctui.history import HistoryIndex
    from cctui.mcp_server.history_view import HistoryView
    from tests.snapshot_apps.history import write_transcript

    (tmp_path / "proj").mkdir()
    settings = load_settings(
        env={"HOME": str(tmp_path / "home")},
        config_path=tmp_path / "none.toml",
        overrides={"default_cwd": tmp_path / "proj"},
    )
    sid = "0a1b2c3d-0000-4000-8000-0000000000c1"
    write_transcript(
        settings.claude_config_dir,
        sid,
        str(tmp_path / "proj"),
        datetime.now(UTC),
        [("Fix the login page", [{"type": "text", "text": "Done."}])],
    )
    index = HistoryIndex.from_settings(settings)
    manager = SessionManager(settings)
    await manager.start()
    app = CctuiApp(settings, Services.build(settings, manager, history=index))
    view = HistoryView(settings, manager, index)
    try:
        async with app.run_test():
            await app.history_loaded.wait()
            assert app.source.index is index
            reads = index.read_stats.files_read  # the view must not sweep the disk again
            listed = await view.list(None, None, None, "login", 10)
            assert [s.session_id for s in listed.sessions] == [sid]
            assert index.read_stats.files_read == reads
            app.main.set_filter("login")
            await app.settle()
            assert app.main.sessions.shown == [sid]
    finally:
        await manager.shutdown()


async def test_a_form_over_a_streaming_pane_stays_responsive_and_the_pane_catches_up(
    run_app: RunApp,
) -> None:
    """While the new-session form covers a pane that streams, nothing is drawn under it
    (typing in the form is answered at once) and on closing the pane shows everything."""
    body = "word " * 4000
    async with run_app({"*": [text(body, chunk=5, delay=0.0005)]}) as h:
        info = await h.manager.create("long", h.manager.default_config())
        h.app.main.open_session(info.session_id)
        transcript = h.app.main.pane.query_one(Transcript)
        await h.until(lambda: bool(transcript.blocks))
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, NewSessionScreen))
        drawn_when_covered = transcript.text_of(transcript_ids(h, info.session_id)[-1])
        prompt = h.app.screen.query_one("#prompt", Input)
        for char in "still typing":
            await h.pilot.press(char if char != " " else "space")
        assert prompt.value == "still typing"
        assert h.app.main.pane.session_id == info.session_id
        # Covered: the pane did not draw what streamed meanwhile.
        assert transcript.text_of(transcript_ids(h, info.session_id)[-1]) == drawn_when_covered
        await h.manager.wait(info.session_id, 30)
        await h.pilot.press("escape")
        await h.until(lambda: not isinstance(h.app.screen, NewSessionScreen))
        await h.app.settle()
        assert transcript.text_of(transcript_ids(h, info.session_id)[-1]) == body


def transcript_ids(h: Any, session_id: str) -> list[str]:
    from cctui.core import AssistantTextEvent

    page = h.manager.events(session_id, since=0)
    return [e.message_id for e in page.events if isinstance(e, AssistantTextEvent)]
