"""The bridge batches high-rate activity and never loses output (widgets pull by seq)."""

from __future__ import annotations

from textual.message import Message

from cctui.tui.messages import SessionsActivity
from cctui.tui.widgets.transcript import AssistantBlock
from tests.fakes.fake_driver import text
from tests.tui.conftest import RunApp

LONG = "word " * 2000


async def test_streaming_text_arrives_in_few_batches_and_whole(run_app: RunApp) -> None:
    async with run_app({"*": [text(LONG, chunk=5)]}) as h:
        seen: list[Message] = []
        original = h.app.post_message

        def spy(message: Message) -> bool:
            seen.append(message)
            return original(message)

        h.app.post_message = spy  # type: ignore[method-assign]
        session_id = await h.create("stream")
        h.app.main.open_session(session_id)
        await h.pilot.pause(0.3)
        last_seq = h.manager.get(session_id).last_seq
        batches = [m for m in seen if isinstance(m, SessionsActivity)]
        assert last_seq > 300
        assert 0 < len(batches) < last_seq / 10
        blocks = h.app.main.pane.query(AssistantBlock)
        assert blocks and blocks.last().source == LONG
