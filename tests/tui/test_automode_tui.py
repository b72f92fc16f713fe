"""Auto mode's refusal in the TUI: a question with one key per way back, answered there."""

from __future__ import annotations

from cctui.claude.frames import PermissionDenied, ToolCall
from cctui.core import automode
from cctui.tui.screens.confirm import ConfirmScreen
from tests.fakes.fake_driver import emit, text
from tests.tui.conftest import RunApp

DENIAL = PermissionDenied(
    tool_name="Bash",
    tool_use_id="toolu_refused",
    reason_type="classifier",
    reason_code="auto_mode_no_check_in_session",
    reason="Classifier unavailable",
    message="Auto mode is unavailable: its safety check does not run for this session.",
)
SCRIPT = {
    "deploy": [
        emit(ToolCall("m1", "toolu_refused", "Bash", {"command": "make deploy"})),
        emit(DENIAL),
        text("Auto mode refused it."),
    ]
}


async def test_an_auto_mode_refusal_pops_a_question_and_r_allows_it_once(
    run_app: RunApp,
) -> None:
    async with run_app(SCRIPT) as h:
        sid = await h.create("please deploy", permission_mode="auto")
        await h.until(lambda: isinstance(h.app.screen, ConfirmScreen))
        screen = h.app.screen
        assert isinstance(screen, ConfirmScreen)
        assert screen.pending.tool_name == "denied by auto mode: Classifier unavailable"
        shown = " ".join(str(s.render()) for s in screen.query("Static"))
        assert f"session {sid[:8]}" in shown and "Bash(make deploy)" in shown
        assert "retry, allowing it once" in shown and "add the allow rule" in shown
        # No classifier: the session left auto mode at once, so it asks cctui from now on.
        await h.until(lambda: h.manager.get(sid).permission_mode == "default")
        notes = [str(n.render()) for n in h.app.main.pane.query(".input")]
        assert any("Bash denied by auto mode: Classifier unavailable" in n for n in notes)
        await h.pilot.pause(0.6)  # the modal's arm delay
        await h.pilot.press("r")
        asked = screen.pending.id
        await h.until(lambda: all(p.id != asked for p in h.manager.pending()))
        # Claude is told to retry (here the fake plays the script again: another refusal).
        await h.until(
            lambda: any("now allowed by the user" in t for t in h.factory.drivers[-1].sent)
        )
        assert screen.pending.choices == automode.CHOICES
        audit = [r for r in h.manager.audit.read() if r.get("input_kind") == "confirmation"]
        assert audit and audit[0]["decision"] == automode.RETRY and audit[0]["decided_by"] == "tui"
