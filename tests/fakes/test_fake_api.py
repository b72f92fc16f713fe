"""The fake Messages API on its own, driven by a plain HTTP client (no CLI)."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_api import FakeAnthropicAPI, Reply, error_reply, tool_use
from tests.fakes.api_request import parse_request
from tests.fakes.api_script import parse_directives

CWD = "/tmp/proj-x"
PLAN = "/tmp/home-x/.claude/plans/plan-witty-owl.md"
TOOLS = [{"name": "Bash", "input_schema": {}}, {"name": "Write", "input_schema": {}}]


def user(*texts: str) -> dict[str, Any]:
    blocks = [{"type": "text", "text": "<system-reminder>\nignore [[error]]\n</system-reminder>"}]
    return {"role": "user", "content": blocks + [{"type": "text", "text": t} for t in texts]}


def body(*messages: dict[str, Any], tools: bool = True) -> dict[str, Any]:
    env = {"role": "system", "content": f"# Environment\n - Primary working directory: {CWD}\n"}
    data: dict[str, Any] = {"model": "claude-fake", "messages": [*messages, env], "stream": True}
    if tools:
        data["tools"] = TOOLS
    return data


def tool_turn(prompt: str, name: str, result: str, is_error: bool = False) -> dict[str, Any]:
    """A request after the model called ``name`` for ``prompt`` and got ``result``."""
    tu = {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}
    tr = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result, "is_error": is_error}
    return body(
        user(prompt),
        {"role": "assistant", "content": [{"type": "text", "text": "x"}, tu]},
        {"role": "user", "content": [tr]},
    )


def post(
    api: FakeAnthropicAPI, data: dict[str, Any], path: str = "/v1/messages?beta=true"
) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    conn.request("POST", path, json.dumps(data), {"x-api-key": "sk-secret", "content-type": "x"})
    resp = conn.getresponse()
    raw = resp.read().decode()
    conn.close()
    return resp.status, raw


def events(raw: str) -> list[dict[str, Any]]:
    out = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        payload = json.loads(lines["data"])
        assert payload["type"] == lines["event"]
        out.append(payload)
    return out


def stream(api: FakeAnthropicAPI, data: dict[str, Any]) -> list[dict[str, Any]]:
    status, raw = post(api, data)
    assert status == 200, raw
    return events(raw)


def blocks(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Reassemble content blocks from the deltas, the way a client does."""
    out: list[dict[str, Any]] = []
    for e in evs:
        if e["type"] == "content_block_start":
            out.append({**e["content_block"], "_json": ""})
        elif e["type"] == "content_block_delta":
            d, b = e["delta"], out[e["index"]]
            if d["type"] == "text_delta":
                b["text"] += d["text"]
            elif d["type"] == "input_json_delta":
                b["_json"] += d["partial_json"]
    for b in out:
        if b["type"] == "tool_use":
            b["input"] = json.loads(b["_json"])
        del b["_json"]
    return out


def stop_reason(evs: list[dict[str, Any]]) -> str:
    return str(next(e for e in evs if e["type"] == "message_delta")["delta"]["stop_reason"])


@pytest.fixture
def api() -> Any:
    with FakeAnthropicAPI() as server:
        yield server


def test_text_reply_has_the_full_sse_shape(api: FakeAnthropicAPI) -> None:
    evs = stream(api, body(user("hello there, fake")))
    kinds = [e["type"] for e in evs]
    assert kinds[:3] == ["message_start", "ping", "content_block_start"]
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert evs[0]["message"]["usage"]["input_tokens"] > 0
    assert evs[0]["message"]["model"] == "claude-fake"
    assert blocks(evs) == [{"type": "text", "text": "OK: hello there, fake"}]
    assert stop_reason(evs) == "end_turn"
    assert next(e for e in evs if e["type"] == "message_delta")["usage"]["output_tokens"] >= 1


def test_requests_are_recorded_without_the_key(api: FakeAnthropicAPI, tmp_path: Path) -> None:
    api.log_path = tmp_path / "log.jsonl"
    stream(api, body(user("hi")))
    (rec,) = api.requests
    assert (rec.method, rec.path, rec.query) == ("POST", "/v1/messages", "beta=true")
    assert "x-api-key" not in rec.headers
    assert rec.prompt == "hi" and rec.summary["cwd"] == CWD and rec.reply == "text"
    assert "sk-secret" not in api.log_path.read_text()
    logged = json.loads(api.log_path.read_text())
    assert (logged["summary"]["prompt"], logged["reply"]) == ("hi", "text")


def test_write_directive_streams_a_tool_use_in_pieces(api: FakeAnthropicAPI) -> None:
    evs = stream(api, body(user("please [[write path=hello.txt content=hi there]] now")))
    pieces = [e for e in evs if e.get("delta", {}).get("type") == "input_json_delta"]
    assert len(pieces) >= 2
    text, tu = blocks(evs)
    assert text["type"] == "text" and tu["name"] == "Write"
    assert tu["input"] == {"file_path": f"{CWD}/hello.txt", "content": "hi there"}
    assert tu["id"].startswith("toolu_fake_")
    assert stop_reason(evs) == "tool_use"


def test_tool_result_turn_quotes_the_result(api: FakeAnthropicAPI) -> None:
    data = tool_turn("[[bash cmd=echo hi > out.txt]]", "Bash", "Denied by test", is_error=True)
    assert blocks(stream(api, data)) == [
        {"type": "text", "text": "Tool result (error): Denied by test"}
    ]
    assert stop_reason(stream(api, data)) == "end_turn"
    ok = tool_turn("[[bash cmd=echo hi]]", "Bash", "hi")
    assert blocks(stream(api, ok))[0]["text"] == "Tool result: hi"


def test_merged_user_turn_reads_only_the_new_prompt(api: FakeAnthropicAPI) -> None:
    data = tool_turn("[[bash cmd=echo hi]]", "Bash", "stopped")
    data["messages"][2]["content"] += [
        {"type": "text", "text": "[Request interrupted by user for tool use]"},
        {"type": "text", "text": "<system-reminder>x</system-reminder>"},
        {"type": "text", "text": "next prompt"},
    ]
    req = parse_request(data)
    assert (req.prompt, req.is_tool_result, req.tool_uses_since_prompt) == (
        "next prompt",
        False,
        [],
    )
    assert blocks(stream(api, data))[0]["text"] == "OK: next prompt"


def test_directive_parsing() -> None:
    (d,) = parse_directives("x [[bash cmd=echo a > b.txt description=Make b]] y")
    assert (d.name, d.args) == ("bash", {"cmd": "echo a > b.txt", "description": "Make b"})
    (d,) = parse_directives("[[write path=\"my file.txt\" content='a b']]")
    assert d.args == {"path": "my file.txt", "content": "a b"}
    d1, d2 = parse_directives("[[ask multi]][[error status=529 times=1]]")
    assert (d1.flags, d2.num("status", 0), d2.num("times", 0)) == ({"multi"}, 529, 1)
    (d,) = parse_directives('[[tool name=Read input={"file_path": "/x"}]]')
    assert json.loads(d.args["input"]) == {"file_path": "/x"}


def test_ask_and_sleep_bash_directives(api: FakeAnthropicAPI) -> None:
    tu = blocks(stream(api, body(user("[[ask]]"))))[1]
    q = tu["input"]["questions"][0]
    assert tu["name"] == "AskUserQuestion" and q["question"] == "Which color do you prefer?"
    assert [o["label"] for o in q["options"]] == ["Red", "Blue"] and not q["multiSelect"]
    multi = blocks(stream(api, body(user("[[ask multi]]"))))[1]["input"]["questions"][0]
    assert multi["multiSelect"] is True
    bash = blocks(stream(api, body(user("[[sleep-bash seconds=30]]"))))[1]
    assert bash["input"]["command"] == "python3 -c 'import time; time.sleep(30)'"


def test_plan_writes_the_reminder_path_then_exits_plan_mode(api: FakeAnthropicAPI) -> None:
    reminder = f"<system-reminder>Plan mode is active. Write your plan to {PLAN}.</system-reminder>"
    first = body(
        {
            "role": "user",
            "content": [{"type": "text", "text": reminder}, {"type": "text", "text": "[[plan]]"}],
        }
    )
    write = blocks(stream(api, first))[1]
    assert write["name"] == "Write" and write["input"]["file_path"] == PLAN
    second = dict(first)
    second["messages"] = [
        first["messages"][0],
        {
            "role": "assistant",
            "content": [{"type": "tool_use", **{k: write[k] for k in ("id", "name", "input")}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": write["id"], "content": "File created"}
            ],
        },
    ]
    exit_plan = blocks(stream(api, second))[1]
    assert exit_plan["name"] == "ExitPlanMode" and exit_plan["input"]["plan"].startswith("# Plan")
    denied = tool_turn("[[plan]]", "ExitPlanMode", "Keep planning: add tests", is_error=True)
    assert (
        blocks(stream(api, denied))[0]["text"]
        == "Plan not approved. Feedback: Keep planning: add tests"
    )
    approved = tool_turn("[[plan]]", "ExitPlanMode", "User has approved your plan.")
    assert blocks(stream(api, approved))[0]["text"] == "Plan approved, proceeding."


def test_error_directive(api: FakeAnthropicAPI) -> None:
    status, raw = post(api, body(user("[[error status=400 message=bad thing]]")))
    assert status == 400
    assert json.loads(raw) == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "bad thing"},
    }
    data = body(user("[[error status=529 times=1]] then fine"))
    status, raw = post(api, data)
    assert status == 529 and json.loads(raw)["error"]["type"] == "overloaded_error"
    assert blocks(stream(api, data))[0]["text"].startswith("OK: [[error")


def test_slow_and_stall(api: FakeAnthropicAPI) -> None:
    t0 = time.monotonic()
    evs = stream(api, body(user("[[slow seconds=0.5 chunks=5]]")))
    assert time.monotonic() - t0 >= 0.45
    assert len([e for e in evs if e["type"] == "content_block_delta"]) == 5
    t0 = time.monotonic()
    stream(api, body(user("[[stall seconds=0.3]] [[say text=late]]")))
    assert time.monotonic() - t0 >= 0.3


def test_a_held_stream_waits_after_its_first_chunk_until_released(
    api: FakeAnthropicAPI,
) -> None:
    data = json.dumps(body(user("[[slow seconds=0 chunks=3 hold=rest]]"))).encode()
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(data)}\r\n\r\n".encode()
            + data
        )
        got = b""
        while b"[slow 001/003]" not in got:
            got += sock.recv(65536)
        sock.settimeout(0.5)  # held: nothing more comes until the gate opens
        with pytest.raises(TimeoutError):
            got += sock.recv(65536)
        assert b"[slow 002/003]" not in got
        sock.settimeout(10)
        api.release("rest")
        while not got.endswith(b"0\r\n\r\n"):
            got += sock.recv(65536)
    assert b"[slow 002/003]" in got and b"[slow 003/003]" in got and b"message_stop" in got


def test_rules_override_directives(api: FakeAnthropicAPI) -> None:
    api.add_rule(contains="hi", reply="Hello!", once=True)
    api.add_rule(tool_name="Bash", tool_result_contains="boom", reply=error_reply(500))
    api.add_rule(kind="side", reply=lambda req: f"side: {req.prompt}")
    assert blocks(stream(api, body(user("hi"))))[0]["text"] == "Hello!"
    assert blocks(stream(api, body(user("hi"))))[0]["text"] == "OK: hi"
    assert post(api, tool_turn("x", "Bash", "boom"))[0] == 500
    assert blocks(stream(api, tool_turn("x", "Bash", "fine")))[0]["text"] == "OK: x"
    assert blocks(stream(api, body(user("t"), tools=False)))[0]["text"] == "side: t"


def test_script_queues_replies_in_order(api: FakeAnthropicAPI) -> None:
    api.script(Reply(content=[tool_use("Bash", {"command": "ls"})]), "second")
    assert blocks(stream(api, body(user("a"))))[0]["name"] == "Bash"
    assert blocks(stream(api, body(user("a"))))[0]["text"] == "second"
    assert blocks(stream(api, body(user("a"))))[0]["text"] == "OK: a"
    api.script("again")
    api.reset()
    assert api.requests == []
    assert blocks(stream(api, body(user("a"))))[0]["text"] == "OK: a"


def test_other_endpoints_and_connect_tripwire(api: FakeAnthropicAPI) -> None:
    status, raw = post(api, {"messages": []}, "/v1/messages/count_tokens?beta=true")
    assert status == 200 and json.loads(raw)["input_tokens"] >= 1
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=5)
    conn.request("GET", "/v1/models")
    assert "claude-opus-5-5" in [m["id"] for m in json.loads(conn.getresponse().read())["data"]]
    conn.request("GET", "/api/whatever")
    assert conn.getresponse().read() == b"{}"
    assert post(api, {}, "/v1/nope")[0] == 404
    with socket.create_connection(("127.0.0.1", api.port), timeout=5) as s:
        s.sendall(b"CONNECT downloads.claude.ai:443 HTTP/1.1\r\nHost: downloads.claude.ai\r\n\r\n")
        assert s.recv(100).startswith(b"HTTP/1.1 403")
    assert [r.path for r in api.connect_attempts] == ["downloads.claude.ai:443"]


def test_client_hanging_up_mid_stream_is_harmless(api: FakeAnthropicAPI) -> None:
    data = json.dumps(body(user("[[slow seconds=1 chunks=20]]"))).encode()
    with socket.create_connection(("127.0.0.1", api.port), timeout=5) as s:
        s.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(data)
        )
        s.sendall(data)
        seen = b""
        while b"message_start" not in seen:
            chunk = s.recv(4096)
            assert chunk, seen
            seen += chunk
    time.sleep(0.3)
    assert blocks(stream(api, body(user("still there?"))))[0]["text"] == "OK: still there?"


def test_module_runs_as_a_program(tmp_path: Path) -> None:
    log = tmp_path / "req.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.anthropic_api", "--port", "0", "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("LISTENING ")
        conn = http.client.HTTPConnection("127.0.0.1", int(line.split()[1]), timeout=5)
        conn.request("POST", "/v1/messages?beta=true", json.dumps(body(user("cli"))))
        assert b"OK: cli" in conn.getresponse().read()
        assert json.loads(log.read_text())["summary"]["prompt"] == "cli"
    finally:
        proc.terminate()
        assert proc.wait(timeout=5) == 0
