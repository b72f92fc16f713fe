"""The CLI's stdout read in batches: runs of deltas read together become one message, and
nothing is lost, reordered or held back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cctui.claude import frames, sdk_driver, stdout
from cctui.claude.stdout import batched, merge_deltas
from tests.fakes.anthropic_api import FakeAnthropicAPI, Reply, text

Message = dict[str, Any]


def delta(
    piece: str, *, index: int = 0, kind: str = "text_delta", parent: str | None = None
) -> Message:
    field = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}
    return {
        "type": "stream_event",
        "uuid": f"u-{piece}",
        "session_id": "s-1",
        "parent_tool_use_id": parent,
        "event": {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": kind, field.get(kind, "signature"): piece},
        },
    }


def stop(index: int = 0) -> Message:
    return {
        "type": "stream_event",
        "session_id": "s-1",
        "event": {"type": "content_block_stop", "index": index},
    }


def pieces(message: Message) -> str:
    d = message["event"]["delta"]
    return str(d.get("text") or d.get("thinking") or d.get("partial_json") or d.get("signature"))


def test_a_run_of_deltas_to_one_block_becomes_one_message_with_the_first_ones_fields() -> None:
    merged = merge_deltas([delta("Hel"), delta("lo, "), delta("world")])
    assert len(merged) == 1
    assert merged[0]["event"]["delta"] == {"type": "text_delta", "text": "Hello, world"}
    assert merged[0]["uuid"] == "u-Hel" and merged[0]["session_id"] == "s-1"


def test_runs_end_at_anything_else_and_at_another_block_agent_or_kind() -> None:
    assistant = {"type": "assistant", "message": {"content": []}}
    messages = [
        delta("a"),
        delta("b"),
        stop(0),
        delta("c", index=1),
        delta("d", index=2),
        delta("e", index=2, parent="tool-1"),
        delta('{"pa', index=3, kind="input_json_delta"),
        delta('th": 1}', index=3, kind="input_json_delta"),
        delta("think", index=4, kind="thinking_delta"),
        delta("ing", index=4, kind="thinking_delta"),
        delta("sig1", index=4, kind="signature_delta"),
        delta("sig2", index=4, kind="signature_delta"),
        assistant,
        delta("f"),
    ]
    merged = merge_deltas(messages)
    assert [m.get("event", {}).get("type", m["type"]) for m in merged] == [
        "content_block_delta",
        "content_block_stop",
        *["content_block_delta"] * 7,
        "assistant",
        "content_block_delta",
    ]
    deltas = [m for m in merged if m["type"] == "stream_event" and "delta" in m["event"]]
    assert [pieces(m) for m in deltas] == [
        "ab",
        "c",
        "d",
        "e",
        '{"path": 1}',
        "thinking",
        "sig1",
        "sig2",
        "f",
    ]
    assert merged[-2] is assistant


def test_merging_leaves_the_messages_it_was_given_as_they_were() -> None:
    first, second = delta("x"), delta("y")
    merge_deltas([first, second])
    assert first["event"]["delta"]["text"] == "x" and second["event"]["delta"]["text"] == "y"


def test_odd_shapes_pass_through_untouched() -> None:
    odd: list[Message] = [
        {"type": "stream_event"},
        {"type": "stream_event", "event": "not a dict"},
        {"type": "stream_event", "event": {"type": "content_block_delta", "delta": None}},
        {
            "type": "stream_event",
            "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": 3}},
        },
    ]
    assert merge_deltas(odd + odd) == odd + odd


async def _bursts(
    bursts: list[list[Message]], gate: asyncio.Event, *, fail: Exception | None = None
) -> AsyncIterator[Message]:
    """Each burst yielded without a pause (as the SDK yields the lines of one read), then a
    wait for ``gate`` (the next read of the pipe)."""
    for burst in bursts:
        for message in burst:
            yield message
        await gate.wait()
        gate.clear()
    if fail is not None:
        raise fail


async def test_what_was_read_while_the_consumer_was_away_comes_merged_and_whole() -> None:
    gate = asyncio.Event()
    words = [f"w{i} " for i in range(300)]
    source = _bursts([[delta(w) for w in words[:200]], [delta(w) for w in words[200:]]], gate)
    got: list[Message] = []
    async for message in batched(source):
        got.append(message)
        gate.set()  # the next read arrives after the consumer took this batch
    assert [pieces(m) for m in got] == ["".join(words[:200]), "".join(words[200:])]


async def test_a_message_read_alone_goes_on_at_once() -> None:
    gate = asyncio.Event()
    it = batched(_bursts([[delta("first")], [delta("second")]], gate))
    first = await asyncio.wait_for(anext(it), 1)  # the reader is waiting on the pipe now
    assert pieces(first) == "first"
    gate.set()
    assert pieces(await asyncio.wait_for(anext(it), 1)) == "second"
    gate.set()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(it), 1)


async def test_an_error_comes_after_the_messages_read_before_it() -> None:
    gate = asyncio.Event()
    gate.set()
    got: list[str] = []
    with pytest.raises(RuntimeError, match="exit code 1"):
        async for message in batched(
            _bursts([[delta("a"), stop(), delta("b")]], gate, fail=RuntimeError("exit code 1"))
        ):
            got.append(message["event"]["type"])
    assert got == ["content_block_delta", "content_block_stop", "content_block_delta"]


async def test_reading_waits_when_the_consumer_is_far_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stdout, "MAX_PENDING", 10)
    read = 0

    async def source() -> AsyncIterator[Message]:
        nonlocal read
        for i in range(25):  # one read of the pipe: nothing to wait on in between
            read += 1
            yield delta(f"{i},")

    it = batched(source())
    first = await anext(it)
    assert pieces(first) == "".join(f"{i}," for i in range(10))  # it stopped at 10 for room
    rest = [pieces(m) async for m in it]
    assert "".join(rest) == "".join(f"{i}," for i in range(10, 25)) and read == 25


async def test_closing_the_batches_stops_the_reading() -> None:
    closed = asyncio.Event()

    async def source() -> AsyncIterator[Message]:
        try:
            yield delta("one")
            await asyncio.Event().wait()  # a pipe that never says more
            yield delta("never")
        finally:
            closed.set()

    it = batched(source())
    assert pieces(await anext(it)) == "one"
    await it.aclose()
    assert closed.is_set()


async def test_a_long_fast_reply_from_the_real_cli_arrives_whole_in_fewer_pieces(
    claude_env: dict[str, str], claude_bin: Path, project_dir: Path, fake_api: FakeAnthropicAPI
) -> None:
    """The real CLI's ~2,000 deltas, streamed by the API at once: the text frames add up to
    the reply, in order, and batching took at least some of them together."""
    body = "".join(f"line {i}: the quick brown fox jumps over the lazy dog.\n" for i in range(400))
    fake_api.add_rule(contains="long", reply=Reply(content=[text(body)], chunk_size=10))
    spec = frames.LaunchSpec(cwd=project_dir, cli_path=claude_bin)

    async def never(_ask: frames.PermissionAsk) -> frames.PermissionAnswer:
        raise AssertionError("no permission should be asked")

    driver = sdk_driver.SdkDriver(spec, never)
    await driver.connect()
    streamed: list[str] = []
    final: list[str] = []
    try:
        await driver.send("long reply please")
        async for frame in driver.frames():
            if isinstance(frame, frames.TextDelta):
                # A busy consumer: the CLI's lines pile up meanwhile, as under a TUI's paint.
                streamed.append(frame.text)
                await asyncio.sleep(0.002)
            elif isinstance(frame, frames.AssistantText):
                final.append(frame.text)
            elif isinstance(frame, frames.TurnResult):
                break
    finally:
        await driver.close()
    assert "".join(streamed) == body == "".join(final)
    assert len(streamed) < len(body) / 10  # the API sent one delta per 10 characters
