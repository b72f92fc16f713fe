"""A session's first prompt shows once when its transcript is drawn before its events come.

A window attached to the owner (and a host's session) gets a new session's events by push, a
moment after the pane first looks; by then the CLI may have written the prompt to the
transcript, which the pane draws when it has no events. When the events come, the transcript
is drawn again with only what came before them: the prompt is not drawn twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.app import App, ComposeResult

from cctui.core import SessionManager, UserMessageEvent
from cctui.core.session.buffer import Page
from cctui.core.session.events import SessionEvent
from cctui.history.models import TranscriptMessage, TranscriptPage
from cctui.tui.rows import SessionRow
from cctui.tui.widgets.blocks import UserBlock
from cctui.tui.widgets.session_pane import SessionPane
from tests.fakes.fake_driver import fake_driver_factory
from tests.fakes.settings import make_settings
from tests.tui.conftest import until

SID = "5e55105e-0000-4000-8000-000000000001"


async def test_the_first_prompt_shows_once_when_events_come_after_the_transcript(
    tmp_path: Path,
) -> None:
    settings = make_settings(tmp_path, default_cwd=tmp_path)
    manager = SessionManager(settings, driver_factory=fake_driver_factory())
    sent = datetime.now(UTC)
    events: list[SessionEvent] = []

    def remote_events(_sid: str, since: int, _limit: int) -> Page[SessionEvent]:
        shown = [e for e in events if e.seq > since]
        next_seq = shown[-1].seq if shown else since
        return Page(events=shown, next_seq=next_seq, missed=False, oldest_seq=1)

    async def remote_transcript(sid: str, offset: int, limit: int) -> TranscriptPage:
        prompt = TranscriptMessage(
            index=0,
            uuid="u1",
            role="user",
            text="first prompt",
            timestamp=sent + timedelta(milliseconds=300),  # the CLI wrote it after
        )
        return TranscriptPage(
            session_id=sid, offset=offset, limit=limit, total=1, messages=(prompt,)[offset:]
        )

    class PaneApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SessionPane(
                manager,
                settings,
                remote_events=remote_events,
                remote_transcript=remote_transcript,
            )

    row = SessionRow(
        session_id=SID,
        status="running",
        project="p",
        title="first prompt",
        last_activity=sent,
        cost_usd=None,
        cwd=tmp_path,
        live=True,
        host="devbox",
        created_at=sent,
    )
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(SessionPane)

        def prompts() -> list[str]:
            return [str(b.render()) for b in pane.query(UserBlock)]

        pane.show(row)
        await until(pilot, lambda: len(prompts()) == 1, 5)  # from the transcript
        events.append(UserMessageEvent(session_id=SID, text="first prompt", seq=1, at=sent))
        pane.pull()
        await pilot.pause(0.3)
        await until(pilot, lambda: not pane.workers, 5)
        await pilot.pause()
        assert len(prompts()) == 1, prompts()
        assert "first prompt" in prompts()[0]
