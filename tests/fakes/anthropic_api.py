"""A fake Anthropic Messages API for running the real ``claude`` CLI offline.

Serves ``POST /v1/messages`` (SSE streaming; one JSON body when the request does not ask to
stream; a model whose name does not start with ``claude-`` gets the real API's 404),
``POST /v1/messages/count_tokens``, ``GET /v1/models``; answers anything else harmlessly;
logs and refuses ``CONNECT`` (point ``HTTPS_PROXY`` at it as a tripwire). Binds 127.0.0.1
only. Every request is recorded (``server.requests``) and optionally appended to a JSONL log.

Directive language (put it in the prompt; a human can type it into cctui too)::

    [[write path=hello.txt content=hi there]]   Write (relative paths are made absolute
                                                against the cwd the CLI reports), then
                                                "Tool result: <tool_result text>"
    [[bash cmd=echo hi > out.txt]]              Bash, then "Tool result: ..." (a denial
                                                reads "Tool result (error): <message>")
    [[sleep-bash seconds=30]]                   Bash python3 -c 'import time; time.sleep(30)'
    [[ask]] / [[ask multi]]                     AskUserQuestion (Red/Blue single-select, or
                                                Cheese/Mushrooms/Olives multi-select), then
                                                "Tool result: Your questions have been answered..."
    [[plan]] / [[plan text=# My plan\\n1. x]]   in plan mode: Write the plan file named by the
                                                CLI's plan-mode reminder, then ExitPlanMode
                                                {"plan": ...}; then "Plan approved, proceeding."
                                                or "Plan not approved. Feedback: <message>"
    [[tool name=Read input={"file_path": "/x"}]]  any tool_use with a JSON input
    [[say text=Hello]]                          reply with exactly this text
    [[slow seconds=5 chunks=50]]                a long text streamed over that time;
                                                ``hold=NAME``: the first chunk, then nothing
                                                until the test calls ``release("NAME")``
    [[stall seconds=5]]                         wait before the first byte (modifier)
    [[usage-limit in=120]]                      the plan's usage limit (429, unified headers
                                                rejected, reset in 120 s or ``at=EPOCH``);
                                                ``times=N`` (default 1); needs an OAuth sign-in
    [[error status=400]]                        HTTP error JSON; ``times=1`` -> fail once
                                                then go on with the rest; ``message=``, ``type=``

No directive: "OK: <first 60 chars of the prompt>". Values run to the next ``key=`` (quotes
optional); ``\\n`` in content/text is a newline. Several action directives run in order, one
tool_use per model call; the final text quotes the last tool result.

Programmatic control for tests (checked before directives, in insertion order)::

    server.add_rule(contains="hi", reply="Hello!")                  # text reply
    server.add_rule(tool_result_contains="denied", reply=Reply(...), once=True)
    server.script(Reply(content=[tool_use("Bash", {...})]), "done")  # next main requests

Run by hand: ``python -m tests.fakes.anthropic_api --port 8765 --log /tmp/fake.jsonl``
prints ``LISTENING <port>`` and serves until killed.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.api_request import ParsedRequest, parse_body, parse_request
from tests.fakes.api_script import (
    DirectiveEngine,
    Reply,
    ReplySpec,
    Rule,
    as_reply,
    error_reply,
    text,
    text_reply,
    thinking,
    tool_use,
)
from tests.fakes.api_sse import SSEWriter, whole_message

__all__ = [
    "FakeAnthropicAPI",
    "Reply",
    "RequestRecord",
    "Rule",
    "error_reply",
    "text",
    "text_reply",
    "thinking",
    "tool_use",
]

SECRET_HEADERS = {"x-api-key", "authorization", "proxy-authorization", "cookie"}
MODELS = ["claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-4-5"]


@dataclass
class RequestRecord:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    time: float
    summary: dict[str, Any] = field(default_factory=dict)
    reply: str = ""
    body: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def prompt(self) -> str:
        return str(self.summary.get("prompt", ""))

    @property
    def is_messages(self) -> bool:
        return self.method == "POST" and self.path == "/v1/messages"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("body")
        return data


class _Stopped(Exception):
    pass


class FakeAnthropicAPI:
    """The fake server. ``start()`` binds 127.0.0.1:<port> (0 = free) and serves in a thread."""

    def __init__(self, port: int = 0, log_path: str | Path | None = None) -> None:
        self._port = port
        self.log_path = Path(log_path) if log_path else None
        self._lock = threading.Lock()
        self._records: list[RequestRecord] = []
        self._rules: list[Rule] = []
        self.directives = DirectiveEngine()
        self._stop = threading.Event()
        self._gates: dict[str, threading.Event] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> FakeAnthropicAPI:
        handler = type("Handler", (_Handler,), {"api": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropicAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ scripting
    def add_rule(self, rule: Rule | None = None, /, **kw: Any) -> Rule:
        """Add a Rule, or build one from keywords (``reply=`` plus Rule's conditions)."""
        rule = rule if rule is not None else Rule(**kw)
        with self._lock:
            self._rules.append(rule)
        return rule

    def script(self, *replies: ReplySpec) -> None:
        """Queue replies for the next main (tool-offering) requests, one each, in order."""
        for spec in replies:
            self.add_rule(Rule(reply=spec, kind="main", once=True))

    def reset(self) -> None:
        with self._lock:
            self._rules.clear()
            self._records.clear()
        self.directives.reset()

    def decide(self, req: ParsedRequest) -> Reply:
        with self._lock:
            rule = next((r for r in self._rules if r.matches(req)), None)
            if rule is not None:
                rule.used += 1
        if rule is not None:
            return as_reply(rule.reply, req)
        return self.directives.reply(req)

    # ------------------------------------------------------------------ records
    @property
    def requests(self) -> list[RequestRecord]:
        with self._lock:
            return list(self._records)

    @property
    def message_requests(self) -> list[RequestRecord]:
        return [r for r in self.requests if r.is_messages]

    @property
    def connect_attempts(self) -> list[RequestRecord]:
        return [r for r in self.requests if r.method == "CONNECT"]

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> RequestRecord:
        """Wait until a recorded request satisfies ``predicate(record)``; return it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for rec in self.requests:
                if predicate(rec):
                    return rec
            time.sleep(0.02)
        raise TimeoutError("no matching request recorded")

    def record(self, rec: RequestRecord) -> None:
        with self._lock:
            self._records.append(rec)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(rec.to_json(), ensure_ascii=False) + "\n")

    def sleep(self, seconds: float) -> None:
        if seconds > 0 and self._stop.wait(seconds):
            raise _Stopped

    def _gate(self, name: str) -> threading.Event:
        with self._lock:
            return self._gates.setdefault(name, threading.Event())

    def release(self, name: str) -> None:
        """Open the gate ``name``: a ``[[slow ... hold=NAME]]`` stream held after its first
        chunk goes on (now, or at once when it gets there). A test holds a reply this way
        for as long as it needs it unfinished, instead of streaming it for a fixed time
        long enough for the slowest machine and waiting that out."""
        self._gate(name).set()

    def wait_gate(self, name: str) -> None:
        """Until ``release(name)``, or until the server stops (the stream is then cut)."""
        gate = self._gate(name)
        while not gate.wait(0.1):
            if self._stop.is_set():
                raise _Stopped


class _Handler(BaseHTTPRequestHandler):
    api: FakeAnthropicAPI
    protocol_version = "HTTP/1.1"
    server_version = "FakeAnthropic/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _record(
        self, summary: dict[str, Any] | None = None, body: Any = None, reply: str = ""
    ) -> RequestRecord:
        parts = urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        rec = RequestRecord(
            method=self.command,
            path=parts.path if self.command != "CONNECT" else self.path,
            query=parts.query,
            headers=headers,
            time=time.time(),
            summary=summary or {},
            body=body if isinstance(body, dict) else {},
            reply=reply,
        )
        self.api.record(rec)
        return rec

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _json(self, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:12]}")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    # ------------------------------------------------------------------ verbs
    def do_CONNECT(self) -> None:
        self._record(summary={"tripwire": True})
        sys.stderr.write(f"fake_anthropic: refused CONNECT {self.path}\n")
        self.send_response(403, "Forbidden by fake Anthropic API")
        self.send_header("content-length", "0")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def do_HEAD(self) -> None:
        self._record()
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record()
        path = urlsplit(self.path).path
        if path.rstrip("/") == "/v1/models":
            data = [
                {"type": "model", "id": m, "display_name": m, "created_at": "2026-01-01T00:00:00Z"}
                for m in MODELS
            ]
            self._json(
                200, {"data": data, "has_more": False, "first_id": MODELS[0], "last_id": MODELS[-1]}
            )
        else:
            self._json(200, {})

    def do_POST(self) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        raw = self._read_body()
        body = parse_body(raw)
        if path == "/v1/messages/count_tokens":
            self._record(summary={"model": body.get("model")}, body=body)
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
        elif path == "/v1/messages":
            self._messages(body, len(raw))
        else:
            self._record(body=body)
            self._json(
                404,
                {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": f"fake: no {path}"},
                },
            )

    def _messages(self, body: dict[str, Any], size: int) -> None:
        req = parse_request(body)
        try:
            if not str(req.model).startswith("claude-"):
                # The real API's answer to a model it does not serve (the CLI checks a model
                # name given to set_model with one such request).
                reply = error_reply(404, f"model: {req.model}")
            else:
                reply = self.api.decide(req)
        except Exception as exc:  # a broken rule must not hang the CLI
            reply = error_reply(500, f"fake rule failed: {exc!r}")
        self._record(summary=req.summary(), body=body, reply=reply.describe())
        try:
            self.api.sleep(reply.delay)
            if reply.is_error:
                extra = {"x-should-retry": "true"} if reply.status in (429, 529) else {}
                extra |= reply.headers
                self._json(reply.status, reply.error_body(), extra)
                return
            if body.get("stream") is not True:
                # A non-streaming request (e.g. the CLI's one-token model check) wants the
                # whole message as JSON.
                self._json(200, whole_message(reply, req.model, max(1, size // 4)))
                return
            SSEWriter(
                self, reply, req.model, max(1, size // 4), self.api.sleep, self.api.wait_gate
            ).run()
        except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError, _Stopped):
            self.close_connection = True


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fake Anthropic Messages API (127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", help="append one JSON line per request to this file")
    args = parser.parse_args(argv)
    server = FakeAnthropicAPI(port=args.port, log_path=args.log).start()
    signal.signal(signal.SIGTERM, _raise_interrupt)
    print(f"LISTENING {server.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
