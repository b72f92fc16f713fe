"""Transcript lines in Claude Code 2.1.330's shapes, for the index tests."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

_counter = itertools.count(1)


def _uuid() -> str:
    return f"00000000-0000-4000-8000-{next(_counter):012d}"


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


def user(text: str, sid: str, ts: str = "2026-11-20T10:00:00.000Z", cwd: str = "/w/app") -> str:
    return _line({"parentUuid": None, "isSidechain": False, "type": "user",
                  "message": {"role": "user", "content": text}, "uuid": _uuid(),
                  "timestamp": ts, "cwd": cwd, "sessionId": sid, "version": "2.1.330"})  # fmt: skip


def tool_result(text: str, sid: str, ts: str = "2026-11-20T10:00:02.000Z") -> str:
    return _line({"parentUuid": None, "isSidechain": False, "type": "user",
                  "message": {"role": "user", "content": [
                      {"tool_use_id": "toolu_1", "type": "tool_result", "content": text}]},
                  "uuid": _uuid(), "timestamp": ts, "sessionId": sid})  # fmt: skip


def usage(inp: int = 100, out: int = 10, cw: int = 0, cr: int = 0, cw1h: int = 0) -> dict[str, Any]:
    return {"input_tokens": inp, "cache_creation_input_tokens": cw + cw1h,
            "cache_read_input_tokens": cr, "output_tokens": out,
            "cache_creation": {"ephemeral_5m_input_tokens": cw,
                               "ephemeral_1h_input_tokens": cw1h},
            "service_tier": "standard", "inference_geo": ""}  # fmt: skip


def assistant(
    blocks: list[dict[str, Any]],
    sid: str,
    *,
    msg_id: str = "msg_1",
    request_id: str | None = "req_1",
    model: str = "claude-sonnet-4-5-20250929",
    ts: str = "2026-11-20T10:00:01.000Z",
    use: dict[str, Any] | None = None,
    sidechain: bool = False,
) -> str:
    """One line per content block, each with the same id, request id and usage (as the CLI)."""
    out = []
    for block in blocks:
        entry: dict[str, Any] = {
            "parentUuid": None, "isSidechain": sidechain, "type": "assistant",
            "message": {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                        "content": [block], "usage": use or usage()},
            "uuid": _uuid(), "timestamp": ts, "sessionId": sid,
        }  # fmt: skip
        if request_id is not None:
            entry["requestId"] = request_id
        out.append(_line(entry))
    return "".join(out)


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def tool_use(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_1", "name": name, "input": args}


def write(home: Path, sid: str, body: str, project: str = "-w-app") -> Path:
    path = home / "projects" / project / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


def append(path: Path, body: str | bytes) -> None:
    with path.open("ab") as fh:
        fh.write(body.encode() if isinstance(body, str) else body)


PLANTED = "zanzibarquux"
"""A word found nowhere else: planted in the middle of a 200 KB tool result."""
PLANTED_SID = "dddddddd-0000-4000-8000-00000000beef"


def plant(home: Path, word: str = PLANTED, sid: str = PLANTED_SID, kb: int = 200) -> Path:
    """A transcript whose only tool result is ``kb`` KB of test log with ``word`` at its middle."""
    half = "ok tests passed " * (kb * 1024 // 32)
    body = user(
        "run the whole test suite", sid, ts="2026-11-21T09:00:00.000Z", cwd="/w/big"
    ) + tool_result(f"{half}FAILED {word} timed out {half}", sid, ts="2026-11-21T09:00:05Z")
    return write(home, sid, body, project="-w-big")
