"""The bridge batches high-rate activity and never loses output (widgets pull by seq)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.message import Message

from cctui.tui.messages import SessionsActivity
from cctui.tui.widgets.transcript import AssistantBlock
from tests.fakes.fake_driver import text
from tests.tui.conftest import RunApp

LONG = "word " * 2000


async def test_streaming_text_arrives_in_few_batches_and_whole(
    run_app: RunApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 10 KB reply in 2,000 deltas: few batches, streamed as appended fragments (never a
    whole-document update), and all of it on screen once ``settle`` has drained the stream."""
    updates: list[str] = []
    appends: list[str] = []
    original_update = AssistantBlock.update
    original_append = AssistantBlock.append

    def spy_update(self: AssistantBlock, markdown: str) -> Any:
        updates.append(markdown)
        return original_update(self, markdown)

    def spy_append(self: AssistantBlock, markdown: str) -> Any:
        appends.append(markdown)
        return original_append(self, markdown)

    monkeypatch.setattr(AssistantBlock, "update", spy_update)
    monkeypatch.setattr(AssistantBlock, "append", spy_append)
    async with run_app({"*": [text(LONG, chunk=5)]}) as h:
        seen: list[Message] = []
        original: Callable[[Message], bool] = h.app.post_message

        def spy(message: Message) -> bool:
            seen.append(message)
            return original(message)

        h.app.post_message = spy
        info = await h.manager.create("stream", h.manager.default_config())
        h.app.main.open_session(info.session_id)
        await h.manager.wait(info.session_id, 20)
        await h.app.settle()
        last_seq = h.manager.get(info.session_id).last_seq
        batches = [m for m in seen if isinstance(m, SessionsActivity)]
        assert last_seq > 300
        assert 0 < len(batches) < last_seq / 10
        blocks = h.app.main.pane.query(AssistantBlock)
        assert len(blocks) == 1 and blocks.first().source == LONG
        # Drawn as it came: the first text through the widget's initial update, the rest as
        # appended fragments (as many as the drawing pace allowed) that add up to the reply.
        assert len(updates) <= 1 and len(appends) >= 1
        assert (updates[0] if updates else "") + "".join(appends) in (LONG, LONG.rstrip())
