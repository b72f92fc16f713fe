"""Tool calls in the transcript: one leaf widget per call, so a batch of calls is laid out
once, and a body that is built below the line only while the call is expanded."""

from __future__ import annotations

from cctui.core import ToolUseEvent
from cctui.history.models import ToolCall as TranscriptCall
from cctui.history.models import ToolResult, TranscriptMessage
from cctui.tui.widgets.blocks import ToolBody, ToolCall
from cctui.tui.widgets.transcript import Transcript
from tests.fakes.fake_driver import text
from tests.tui.conftest import Calls, Harness, RunApp


def _calls(session_id: str, first: int, count: int) -> list[ToolUseEvent]:
    return [
        ToolUseEvent(
            session_id=session_id,
            tool_use_id=f"toolu_{i}",
            name="Read",
            input={"file_path": f"/src/m{i}.py"},
        )
        for i in range(first, first + count)
    ]


async def _transcript(h: Harness) -> tuple[str, Transcript]:
    session_id = await h.create("read")
    h.app.main.open_session(session_id)
    await h.app.settle()
    return session_id, h.app.main.pane.query_one(Transcript)


async def test_a_batch_of_tool_calls_is_laid_out_once(run_app: RunApp) -> None:
    async with run_app({"*": [text("ok")]}) as h:
        session_id, transcript = await _transcript(h)
        layouts = Calls(h.app.screen, "_refresh_layout")
        for batch in range(3):
            layouts.count = 0
            transcript.apply(_calls(session_id, batch * 5, 5))
            await h.app.settle()
            await h.pilot.pause(0.1)
            assert len(transcript.query_children(ToolCall)) == (batch + 1) * 5
            # A call that composed its line as a child was laid out again a turn later.
            assert layouts.count == 1, f"batch {batch}: {layouts.count} layouts"
        assert all(not call.children for call in transcript.query_children(ToolCall))


async def test_enter_on_a_call_shows_its_input_and_result_below_it_and_hides_them(
    run_app: RunApp,
) -> None:
    async with run_app({"*": [text("ok")]}) as h:
        session_id, transcript = await _transcript(h)
        transcript.apply(_calls(session_id, 0, 3))
        transcript.apply(
            [
                ToolUseEvent(
                    session_id=session_id,
                    tool_use_id="toolu_1",
                    name="Read",
                    input={"file_path": "/src/m1.py"},
                    state="completed",
                    result="def main(): ...",
                )
            ]
        )
        await h.app.settle()
        call = transcript.query_children(ToolCall)[1]
        assert str(call.render()).startswith("▸ ✓ Read")
        call.focus()
        await h.pilot.press("enter")
        await h.pilot.pause()
        body = call.body
        assert body is not None and str(call.render()).startswith("▾ ✓ Read")
        assert transcript.children[transcript.children.index(call) + 1] is body
        assert "/src/m1.py" in str(body.render()) and "def main(): ..." in str(body.render())
        await h.pilot.press("enter")
        await h.pilot.pause()
        assert call.body is None and not transcript.query_children(ToolBody)
        assert str(call.render()).startswith("▸ ✓ Read")


async def test_a_call_folded_away_takes_its_open_body_with_it(run_app: RunApp) -> None:
    async with run_app({"*": [text("ok")]}) as h:
        session_id, transcript = await _transcript(h)
        transcript.apply(_calls(session_id, 0, 3))
        await h.app.settle()
        first = transcript.query_children(ToolCall)[0]
        first.toggle()
        await h.pilot.pause()
        assert len(transcript.query_children(ToolBody)) == 1
        # Enough calls after it to fold it into the "earlier" line.
        more = Transcript.MAX_WEIGHT + Transcript.TRIM_STEP
        transcript.apply(_calls(session_id, 3, more))
        await h.app.settle()
        await h.pilot.pause()
        assert transcript.folded > 0 and not first.is_attached
        assert not transcript.query_children(ToolBody)


async def test_another_session_shown_clears_an_open_call_and_its_body(run_app: RunApp) -> None:
    async with run_app({"*": [text("ok")]}) as h:
        session_id, transcript = await _transcript(h)
        transcript.apply(_calls(session_id, 0, 2))
        await h.app.settle()
        transcript.query_children(ToolCall)[1].toggle()
        await h.pilot.pause()
        transcript.reset()  # both go at once: the body's own removal must not fail
        await h.pilot.pause()
        assert not transcript.children
        transcript.apply(_calls(session_id, 5, 1))
        await h.app.settle()
        assert len(transcript.query_children(ToolCall)) == 1


def _message(
    index: int, *, calls: tuple[str, ...] = (), results: tuple[str, ...] = ()
) -> TranscriptMessage:
    return TranscriptMessage(
        index=index,
        uuid=f"m{index}",
        role="assistant" if calls else "user",
        tool_calls=tuple(
            TranscriptCall(tool_use_id=c, name="Bash", input_preview=c) for c in calls
        ),
        tool_results=tuple(ToolResult(tool_use_id=r, preview=f"out of {r}") for r in results),
    )


async def test_a_past_call_is_ticked_only_once_its_result_is_known(run_app: RunApp) -> None:
    """A transcript's call with no result runs (or waits for a permission, or was cut off):
    drawn as running, not ticked. A result on the newer page, drawn first, finds its call when
    the earlier page is drawn."""
    async with run_app({"*": [text("hi")]}) as h:
        _, transcript = await _transcript(h)
        transcript.history([_message(2, results=("early",)), _message(3, calls=("pending",))])
        transcript.history([_message(0, calls=("early",)), _message(1, calls=("done",))])
        transcript.history([])  # nothing more: "done"'s result never came
        await h.app.settle()
        lines = [str(c.render()) for c in transcript.query_children(ToolCall)]
        assert lines == ["▸ ✓ Bash  early", "▸ ◌ Bash  done", "▸ ◌ Bash  pending"]
        assert transcript.query_children(ToolCall)[0].result == "out of early"
