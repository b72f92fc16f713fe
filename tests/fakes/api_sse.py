"""Server-sent events for one streamed Messages API response (the sequence the CLI expects),
and the same reply as one JSON body for a request that does not stream.

message_start (with usage), ping, then per block content_block_start / deltas
(text_delta, input_json_delta in pieces, thinking_delta + signature_delta) /
content_block_stop, then message_delta (stop_reason, usage) and message_stop. The body uses
HTTP/1.1 chunked transfer encoding so the connection can be kept alive.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.api_script import Reply


def whole_message(reply: Reply, model: str, input_tokens: int) -> dict[str, Any]:
    """The reply as one non-streamed Messages API response (``stream`` not set)."""
    return {
        "id": f"msg_fake_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(reply.content),
        "stop_reason": reply.final_stop_reason(),
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": max(1, len(json.dumps(reply.content)) // 4),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


class SSEWriter:
    """Writes one streamed message with HTTP/1.1 chunked transfer encoding."""

    def __init__(
        self,
        h: BaseHTTPRequestHandler,
        reply: Reply,
        model: str,
        input_tokens: int,
        sleep: Callable[[float], None] = time.sleep,
        gate: Callable[[str], None] | None = None,
    ) -> None:
        self.h, self.reply, self.model, self.input_tokens = h, reply, model, input_tokens
        self.sleep = sleep
        self.gate = gate
        """Waits until the named gate is open (``Reply.hold``)."""
        self.deltas = 0

    def chunk(self, data: bytes) -> None:
        self.h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.h.wfile.flush()

    def event(self, name: str, payload: dict[str, Any]) -> None:
        self.chunk(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode())

    def delta(self, index: int, delta: dict[str, Any]) -> None:
        if self.deltas == 1 and self.reply.hold and self.gate is not None:
            self.gate(self.reply.hold)
        self.deltas += 1
        self.sleep(self.reply.chunk_delay)
        self.event(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )

    def run(self) -> None:
        h, reply = self.h, self.reply
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("cache-control", "no-cache")
        h.send_header("transfer-encoding", "chunked")
        h.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:12]}")
        h.end_headers()
        msg_id = f"msg_fake_{uuid.uuid4().hex[:20]}"
        usage = {
            "input_tokens": self.input_tokens,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        self.event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
        self.event("ping", {"type": "ping"})
        out_tokens = 0
        for index, block in enumerate(reply.content):
            out_tokens += self.block(index, block)
        self.event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.final_stop_reason(), "stop_sequence": None},
                "usage": {"output_tokens": max(1, out_tokens)},
            },
        )
        self.event("message_stop", {"type": "message_stop"})
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()

    def block(self, index: int, block: dict[str, Any]) -> int:
        kind = block.get("type")
        size = max(1, self.reply.chunk_size)
        if kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
        else:
            start = {"type": "text", "text": ""}
        self.event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        if kind == "tool_use":
            payload = json.dumps(block.get("input", {}))
            step = max(1, len(payload) // 3 + 1)
            for i in range(0, len(payload), step):
                self.delta(
                    index, {"type": "input_json_delta", "partial_json": payload[i : i + step]}
                )
        elif kind == "thinking":
            value = str(block.get("thinking", ""))
            for i in range(0, len(value), size):
                self.delta(index, {"type": "thinking_delta", "thinking": value[i : i + size]})
            self.delta(
                index, {"type": "signature_delta", "signature": str(block.get("signature", "sig"))}
            )
        else:
            value = str(block.get("text", ""))
            for i in range(0, len(value), size):
                self.delta(index, {"type": "text_delta", "text": value[i : i + size]})
        self.event("content_block_stop", {"type": "content_block_stop", "index": index})
        return len(json.dumps(block)) // 4
