"""The line under an answered request says who answered, in the reader's words."""

from __future__ import annotations

import pytest

from cctui.core import InputResolvedEvent
from cctui.tui.widgets.blocks import Note
from cctui.tui.widgets.event_lines import event_widget


@pytest.mark.parametrize(
    ("decided_by", "shown"),
    [
        ("tui", "Write allowed by you"),  # this window
        ("tui:window", "Write allowed by you"),  # a window attached to this cctui
        ("tui:laptop", "Write allowed by you, at laptop"),  # a window on another machine
        ("mcp:ci-bot", "Write allowed by mcp:ci-bot"),
    ],
)
def test_who_answered(decided_by: str, shown: str) -> None:
    made = event_widget(
        InputResolvedEvent(
            session_id="s", input_id="in_1", decision="allow", decided_by=decided_by,
            tool_name="Write",
        )
    )  # fmt: skip
    assert made is not None
    note = made()
    assert isinstance(note, Note)
    assert str(note.render()).strip() == shown
