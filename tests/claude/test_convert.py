"""SDK messages -> cctui frames, on message shapes the CLI 2.1.330 really sends."""

from __future__ import annotations

from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from cctui.claude.convert import FrameConverter
from cctui.claude.frames import (
    ApiRetry,
    AssistantText,
    Init,
    ModeChanged,
    PromptAccepted,
    TextDelta,
    ToolCall,
    ToolOutcome,
    TurnResult,
)


def stream(event: dict[str, object], parent: str | None = None) -> StreamEvent:
    return StreamEvent(uuid="u", session_id="s", event=event, parent_tool_use_id=parent)


def test_text_deltas_carry_the_message_id_from_message_start() -> None:
    conv = FrameConverter()
    assert conv.convert(stream({"type": "message_start", "message": {"id": "msg_1"}})) == []
    delta = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "Hel"},
    }
    assert conv.convert(stream(delta)) == [TextDelta("msg_1", "Hel")]
    assert conv.convert(stream(delta, parent="toolu_sub")) == []
    thinking: dict[str, object] = {
        "type": "content_block_delta",
        "delta": {"type": "thinking_delta"},
    }
    assert conv.convert(stream(thinking)) == []


def test_assistant_blocks_and_tool_results() -> None:
    conv = FrameConverter()
    text = AssistantMessage(content=[TextBlock("Hi")], model="m", message_id="msg_2")
    call = AssistantMessage(
        content=[ToolUseBlock("toolu_1", "Bash", {"command": "ls"})], model="m", message_id="msg_2"
    )
    assert conv.convert(text) == [AssistantText("msg_2", "Hi")]
    assert conv.convert(call) == [ToolCall("msg_2", "toolu_1", "Bash", {"command": "ls"})]
    result = UserMessage(
        content=[ToolResultBlock("toolu_1", [{"type": "text", "text": "a"}], is_error=True)]
    )
    assert conv.convert(result) == [ToolOutcome("toolu_1", "a", True)]
    assert conv.convert(UserMessage(content="[Request interrupted by user]")) == []


def test_a_replayed_prompt_names_its_id() -> None:
    conv = FrameConverter()
    assert conv.convert(UserMessage(content="hi", uuid="u-1")) == [PromptAccepted("u-1")]
    blocks = UserMessage(content=[TextBlock("hi")], uuid="u-2")
    assert conv.convert(blocks) == [PromptAccepted("u-2")]
    sub = UserMessage(content="hi", uuid="u-3", parent_tool_use_id="toolu_1")
    assert conv.convert(sub) == []
    tool_result = UserMessage(content=[ToolResultBlock("toolu_1", "ok")], uuid="u-4")
    assert conv.convert(tool_result) == [ToolOutcome("toolu_1", "ok", False)]


def test_system_and_result() -> None:
    conv = FrameConverter()
    init = SystemMessage(
        "init",
        {
            "session_id": "s1",
            "model": "m",
            "cwd": "/p",
            "permissionMode": "plan",
            "tools": ["Bash"],
        },
    )
    assert conv.convert(init) == [Init("s1", "m", "/p", "plan", ("Bash",))]
    status = SystemMessage("status", {"status": None, "permissionMode": "default"})
    assert conv.convert(status) == [ModeChanged("default")]
    retry = SystemMessage(
        "api_retry",
        {
            "attempt": 2,
            "max_retries": 10,
            "retry_delay_ms": 1170,
            "error_status": 529,
            "error": "overloaded",
        },
    )
    assert conv.convert(retry) == [ApiRetry(2, 10, 1170, 529, "overloaded")]
    assert conv.convert(SystemMessage("compact_boundary", {})) == []
    res = ResultMessage(
        subtype="success",
        duration_ms=5,
        duration_api_ms=3,
        is_error=True,
        num_turns=1,
        session_id="s1",
        total_cost_usd=0.5,
        result="API Error: 400",
        errors=None,
        terminal_reason="completed",
    )
    [frame] = conv.convert(res)
    assert isinstance(frame, TurnResult)
    assert frame.is_error and frame.result == "API Error: 400" and frame.total_cost_usd == 0.5
