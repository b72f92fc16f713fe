"""The bridge batches high-rate activity and never loses output (widgets pull by seq)."""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import pairwise

import pytest
from textual.message import Message

from cctui.tui.bridge import STREAM_TICK_S
from cctui.tui.messages import SessionsActivity
from cctui.tui.widgets.transcript import AssistantBlock
from tests.fakes.fake_driver import text
from tests.tui.conftest import RunApp

LONG = "word " * 2000
DELTAS = len(LONG) // 5


async def test_streaming_text_arrives_in_few_batches_and_whole(
    run_app: RunApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 10 KB reply in 2,000 deltas: few events, fewer batches, drawn a few times as it grows
    (not once per delta), and all of it on screen once ``settle`` has drawn the last batch."""
    shown: list[str] = []
    original_show = AssistantBlock.show

    def spy_show(self: AssistantBlock, text: str) -> None:
        shown.append(text)
        original_show(self, text)

    monkeypatch.setattr(AssistantBlock, "show", spy_show)
    async with run_app({"*": [text(LONG, chunk=5, delay=0.0005)]}) as h:
        seen: list[Message] = []
        posted: list[float] = []
        original: Callable[[Message], bool] = h.app.post_message

        def spy(message: Message) -> bool:
            seen.append(message)
            posted.append(time.monotonic())
            return original(message)

        h.app.post_message = spy
        info = await h.manager.create("stream", h.manager.default_config())
        h.app.main.open_session(info.session_id)
        # The turn's end, however long 2,000 deltas take on a loaded machine (a bound of 20 s
        # went by mid-stream at load 19, leaving half the text to compare).
        assert (await h.manager.wait(info.session_id, 100)).reason == "turn_ended"
        await h.app.settle()
        last_seq = h.manager.get(info.session_id).last_seq
        sent = [
            (t, m) for t, m in zip(posted, seen, strict=True) if isinstance(m, SessionsActivity)
        ]
        batches = [m for _, m in sent]
        # 2,000 deltas: the core publishes the text at its pace (TEXT_PACE_S), the bridge
        # batches what the core publishes, the pane draws each batch once. How many of each
        # depends on how fast the deltas came (a loaded machine spaces them out), so the
        # batching is checked as a rate: output alone goes out no sooner than a tick after
        # the batch before (only a status change goes at once).
        assert 10 < last_seq < DELTAS
        assert 0 < len(batches) < DELTAS / 5
        stream_gaps = [b[0] - a[0] for a, b in pairwise(sent[:-1]) if not b[1].list_changed]
        assert all(gap >= STREAM_TICK_S * 0.9 for gap in stream_gaps), stream_gaps
        blocks = h.app.main.pane.query(AssistantBlock)
        assert len(blocks) == 1 and blocks.first().text == LONG
        # Drawn as it came: a growing text, each a continuation of the last, ending whole.
        assert 1 <= len(shown) <= len(batches)
        assert all(b.startswith(a) for a, b in pairwise(shown))
        assert shown[-1] == LONG
