"""A small fake ``~/.claude`` (history.jsonl + transcripts) for the demo apps."""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any


def _encode(cwd: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in cwd)


def _line(
    session_id: str, cwd: str, at: datetime, parent: str | None, role: str, content: Any
) -> tuple[str, dict[str, Any]]:
    uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session_id}/{at.isoformat()}/{role}"))
    return uid, {
        "parentUuid": parent,
        "isSidechain": False,
        "type": role,
        "message": {
            "role": role,
            "content": content,
            **(
                {"id": "msg_" + uid[:8], "model": "claude-sonnet-5", "type": "message"}
                if role == "assistant"
                else {}
            ),
        },
        "uuid": uid,
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "cwd": cwd,
        "sessionId": session_id,
        "version": "2.1.330",
        "userType": "external",
        "entrypoint": "cli",
    }


def write_transcript(
    claude_dir: Path, session_id: str, cwd: str, start: datetime, turns: list[tuple[str, list[Any]]]
) -> Path:
    """Write a transcript: each turn is (prompt, assistant content blocks)."""
    path = claude_dir / "projects" / _encode(cwd) / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    parent: str | None = None
    at = start
    for prompt, blocks in turns:
        parent, entry = _line(session_id, cwd, at, parent, "user", prompt)
        lines.append(json.dumps(entry))
        for block in blocks:
            at += timedelta(seconds=3)
            role = "user" if block.get("type") == "tool_result" else "assistant"
            parent, entry = _line(session_id, cwd, at, parent, role, [block])
            lines.append(json.dumps(entry))
        at += timedelta(minutes=1)
    path.write_text("\n".join(lines) + "\n")
    stamp = at.timestamp()
    os.utime(path, (stamp, stamp))
    return path


def write_history(
    claude_dir: Path, prompts: list[tuple[str, datetime, str, str | None]], *, corrupt: int = 0
) -> None:
    """history.jsonl lines (display, when, project, session id); ``corrupt`` bad lines too."""
    lines = [
        json.dumps(
            {
                "display": d,
                "pastedContents": {},
                "timestamp": int(t.timestamp() * 1000),
                "project": p,
                **({"sessionId": s} if s else {}),
            }
        )
        for d, t, p, s in prompts
    ]
    lines += ['{"display": "truncated'] * corrupt
    (claude_dir / "history.jsonl").write_text("\n".join(lines) + "\n")
