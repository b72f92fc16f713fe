"""The CLI's stdout read in batches: what has piled up is handed on at once, deltas merged.

With partial messages on, the CLI writes one ``stream_event`` line per delta of the API's
stream: a 50 KB reply is ~5,000 of them. The SDK hands each line on by itself (parse, route,
a memory stream, ``parse_message``), every one a trip through the event loop that the TUI
draws on. When the CLI writes faster than that (a reply the API streamed quickly, a loaded
machine), the lines pile up in the pipe; here everything already read is taken at once and
each run of deltas to the same block becomes one message, its text joined. Nothing is
lost or reordered, and nothing waits: a line is handed on as soon as it is read, and merging
happens only among lines already there (issue 15: read in the TUI, a 50 KB reply reached
the SDK's pipeline as about one message in six, and cost cctui ~7% less CPU).

``CoalescingTransport`` is the SDK's own subprocess transport with its ``read_messages``
wrapped, passed to ``ClaudeSDKClient`` as a custom transport (the SDK's extension point).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from dataclasses import replace
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

__all__ = ["CoalescingTransport", "batched", "merge_deltas"]

Message = dict[str, Any]

_JOINED = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}
"""Delta types whose pieces are parts of one string, and that string's field (the Messages
API's streaming format: a block's text is its ``text_delta`` pieces concatenated, and so
on). Others (``signature_delta``, ``citations_delta``) are passed on as they are."""

MAX_PENDING = 2000
"""Messages read ahead of the consumer at most; then reading waits (the pipe and the CLI
hold the rest, as they do for the SDK's own reader)."""


def _run_key(message: Message) -> tuple[Any, ...] | None:
    """What a delta must share with the one before to be joined to it; None: not a delta
    that joins."""
    if message.get("type") != "stream_event":
        return None
    event = message.get("event")
    if not isinstance(event, dict) or event.get("type") != "content_block_delta":
        return None
    delta = event.get("delta")
    if not isinstance(delta, dict):
        return None
    kind = delta.get("type")
    field = _JOINED.get(kind) if isinstance(kind, str) else None
    if field is None or not isinstance(delta.get(field), str):
        return None
    return (message.get("session_id"), message.get("parent_tool_use_id"), event.get("index"), kind)


def merge_deltas(messages: Iterable[Message]) -> list[Message]:
    """``messages`` with each run of deltas to the same block (same session, agent, block
    index and delta type) made one: the first's message with the run's pieces joined (its
    other fields, ``uuid`` included, are the first's). Everything else is kept as it is, in
    order."""
    out: list[Message] = []
    run_key: tuple[Any, ...] | None = None
    run: list[Message] = []

    def close_run() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            first = run[0]
            delta = first["event"]["delta"]
            field = _JOINED[delta["type"]]
            joined = "".join(m["event"]["delta"][field] for m in run)
            out.append({**first, "event": {**first["event"], "delta": {**delta, field: joined}}})
        run.clear()

    for message in messages:
        key = _run_key(message)
        if key is not None and key == run_key:
            run.append(message)
            continue
        close_run()
        run_key = key
        if key is None:
            out.append(message)
        else:
            run.append(message)
    close_run()
    return out


async def batched(source: AsyncIterator[Message]) -> AsyncGenerator[Message, None]:
    """``source``'s messages, read in a task of their own, handed on with ``merge_deltas``
    applied to whatever was read while the consumer was busy. An error ``source`` raises is
    raised after the messages read before it. Closing this iterator stops the reading."""
    pending: collections.deque[Message] = collections.deque()
    arrived = asyncio.Event()
    room = asyncio.Event()
    room.set()
    failure: Exception | None = None
    done = False

    async def read() -> None:
        nonlocal done, failure
        try:
            async for message in source:
                pending.append(message)
                arrived.set()
                if len(pending) >= MAX_PENDING:
                    room.clear()
                    await room.wait()
        except Exception as exc:  # handed to the consumer, in order
            failure = exc
        finally:
            done = True
            arrived.set()

    reader = asyncio.get_running_loop().create_task(read(), name="cctui-claude-stdout")
    try:
        while True:
            if not pending:
                if done:
                    break
                arrived.clear()
                await arrived.wait()
                continue
            taken = merge_deltas(pending)
            pending.clear()
            room.set()
            for message in taken:
                yield message
        if failure is not None:
            raise failure
    finally:
        if not reader.done():
            reader.cancel()
            # The SDK reads stdout until the process is gone; cancelled, the reader stops
            # at its next await (a read of the pipe), so this is short.
            await asyncio.gather(reader, return_exceptions=True)


class CoalescingTransport(SubprocessCLITransport):
    """The SDK's subprocess transport, its messages read by ``batched``."""

    def __init__(self, options: ClaudeAgentOptions) -> None:
        # What ClaudeSDKClient.connect does for its own transport: a ``can_use_tool``
        # callback needs the CLI to ask over the control protocol (``stdio``); a custom
        # transport gets the options as given.
        if options.can_use_tool is not None and options.permission_prompt_tool_name is None:
            options = replace(options, permission_prompt_tool_name="stdio")
        super().__init__(prompt=_no_prompt(), options=options)

    def read_messages(self) -> AsyncIterator[Message]:
        return batched(super().read_messages())


async def _no_prompt() -> AsyncIterator[Message]:
    """The prompt stream ``ClaudeSDKClient`` gives its own transport when connecting without
    one: nothing (prompts are written as the session goes)."""
    nothing: tuple[Message, ...] = ()
    for message in nothing:
        yield message
