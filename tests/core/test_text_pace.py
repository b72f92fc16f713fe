"""Streamed text is published at the core's pace, never out of order and never lost: the
deltas between two publications come out at once before whatever the session says next."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from pathlib import Path

from cctui.claude.frames import TextDelta, ToolCall
from cctui.core import AssistantTextEvent, SessionEvent, ToolUseEvent
from cctui.core.session.translate import TEXT_PACE_S
from tests.core.conftest import MakeManager
from tests.fakes.fake_driver import Step, crash, emit, fake_driver_factory, sleep, text


async def test_a_long_stream_is_published_at_the_pace_and_ends_whole(
    make_manager: MakeManager, project: Path
) -> None:
    body = "word " * 600  # 3,000 characters in 1,000 deltas over about half a second
    manager = make_manager(fake_driver_factory({"*": [text(body, chunk=3, delay=0.0005)]}))
    await manager.start()
    seen: list[SessionEvent] = []
    manager.subscribe(seen.append)
    info = await manager.create("go", manager.default_config(project))
    assert (await manager.wait(info.session_id, 60)).reason == "turn_ended"
    texts = [e for e in seen if isinstance(e, AssistantTextEvent)]
    partial = [e for e in texts if not e.complete]
    # It streamed, in fewer events than deltas. How many depends on how fast the deltas
    # came (a loaded machine spaces them out), so the pace is checked as a rate: no two
    # publications closer than the pace (less the clock's granularity).
    assert 2 <= len(partial) < 1000
    assert all(b.text.startswith(a.text) for a, b in pairwise(partial))
    assert texts[-1].complete and texts[-1].text == body
    gaps = [(b.at - a.at).total_seconds() for a, b in pairwise(partial)]
    assert min(gaps) >= TEXT_PACE_S * 0.9, gaps  # never faster than the pace


async def test_text_not_yet_published_comes_out_before_the_next_thing_said(
    make_manager: MakeManager, project: Path
) -> None:
    script: dict[str, list[Step]] = {
        "*": [
            emit(TextDelta("m1", "Let me ")),
            emit(TextDelta("m1", "look.")),
            emit(ToolCall("m1", "tu1", "Read", {"file_path": "a.txt"})),
            sleep(0.2),
            emit(TextDelta("m2", "cut sh")),
            crash(),
        ]
    }
    manager = make_manager(fake_driver_factory(script))
    await manager.start()
    seen: list[SessionEvent] = []
    manager.subscribe(seen.append)
    info = await manager.create("go", manager.default_config(project))
    await manager.wait(info.session_id, 5)
    await asyncio.sleep(TEXT_PACE_S * 3)
    kinds = [
        (type(e).__name__, getattr(e, "text", None))
        for e in seen
        if isinstance(e, AssistantTextEvent | ToolUseEvent)
    ]
    assert kinds[:2] == [("AssistantTextEvent", "Let me look."), ("ToolUseEvent", None)]
    # The process died mid-message: what it had said is published before the session ends.
    last_text = max(i for i, e in enumerate(seen) if isinstance(e, AssistantTextEvent))
    ended = next(i for i, e in enumerate(seen) if getattr(e, "status", None) == "error")
    assert seen[last_text].text == "cut sh" and last_text < ended  # type: ignore[union-attr]
