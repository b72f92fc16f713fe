"""Read a Messages API request body the way the fake model needs to (see anthropic_api.py).

The CLI's request shape (cli-protocol.md §10): ``messages`` may end with a ``role: system``
message; consecutive user turns are merged into one API user message (tool_result blocks,
``[Request interrupted…]`` markers and the next prompt); user text carries
``<system-reminder>`` blocks. So "what did the user just say" is the non-reminder text after
the last tool_result of the last ``role: user`` message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
INTERRUPT_PREFIX = "[Request interrupted"
CWD_RE = re.compile(r"Primary working directory:\s*(\S+)")
PLAN_PATH_RE = re.compile(r"(/[^\s\"'`()<>]*?/plans/[A-Za-z0-9_.-]+\.md)")


@dataclass
class ToolResult:
    tool_use_id: str
    content: str
    is_error: bool


@dataclass
class ToolUse:
    id: str
    name: str
    input: dict[str, Any]


@dataclass
class ParsedRequest:
    """What the fake model looks at to decide its reply."""

    body: dict[str, Any]
    prompt: str = ""
    """The user's text that started the current turn (reminders and interrupt markers removed)."""
    is_tool_result: bool = False
    """True when the last user message ends with tool results and no new prompt."""
    tool_results: list[ToolResult] = field(default_factory=list)
    """tool_result blocks of the last user message."""
    tool_uses_since_prompt: list[ToolUse] = field(default_factory=list)
    """Every tool_use the assistant sent since ``prompt``, oldest first."""
    cwd: str | None = None
    plan_path: str | None = None
    has_tools: bool = False

    @property
    def last_tool_result(self) -> ToolResult | None:
        return self.tool_results[-1] if self.tool_results else None

    @property
    def last_tool_use(self) -> ToolUse | None:
        return self.tool_uses_since_prompt[-1] if self.tool_uses_since_prompt else None

    @property
    def model(self) -> str:
        return str(self.body.get("model") or "claude-fake")

    def summary(self) -> dict[str, Any]:
        msgs = self.body.get("messages") or []
        tools = self.body.get("tools") or []
        return {
            "model": self.model,
            "n_messages": len(msgs),
            "tools": [t.get("name") for t in tools if isinstance(t, dict)],
            "prompt": self.prompt,
            "is_tool_result": self.is_tool_result,
            "tool_results": [
                {"tool_use_id": r.tool_use_id, "content": r.content[:2000], "is_error": r.is_error}
                for r in self.tool_results
            ],
            "cwd": self.cwd,
            "plan_path": self.plan_path,
        }


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def clean_text(text: str) -> str:
    """Drop <system-reminder> blocks and interrupt markers from user text."""
    text = REMINDER_RE.sub("", text)
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith(INTERRUPT_PREFIX)]
    return "\n".join(lines).strip()


def tail_text(message: dict[str, Any]) -> str:
    """Non-reminder text of a user message's blocks after its last tool_result."""
    blocks = blocks_of(message)
    last_tr = max((i for i, b in enumerate(blocks) if b.get("type") == "tool_result"), default=-1)
    parts = [
        clean_text(str(b.get("text", ""))) for b in blocks[last_tr + 1 :] if b.get("type") == "text"
    ]
    return "\n".join(p for p in parts if p).strip()


def all_text(body: dict[str, Any]) -> str:
    """Every string in the request (system prompt, messages), for path searches."""
    chunks: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            chunks.append(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key not in ("tools", "input_schema", "metadata"):
                    walk(value)

    walk(body.get("system"))
    walk(body.get("messages"))
    return "\n".join(chunks)


def parse_request(body: dict[str, Any]) -> ParsedRequest:
    parsed = ParsedRequest(body=body, has_tools=bool(body.get("tools")))
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    text = all_text(body)
    if m := CWD_RE.search(text):
        parsed.cwd = m.group(1)
    plan_paths = PLAN_PATH_RE.findall(text)
    if plan_paths:
        parsed.plan_path = plan_paths[-1]

    user_idx = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not user_idx:
        return parsed
    last = messages[user_idx[-1]]
    parsed.tool_results = [
        ToolResult(
            tool_use_id=str(b.get("tool_use_id", "")),
            content=result_text(b),
            is_error=bool(b.get("is_error", False)),
        )
        for b in blocks_of(last)
        if b.get("type") == "tool_result"
    ]
    prompt_idx = None
    for i in reversed(user_idx):
        if tail := tail_text(messages[i]):
            parsed.prompt = tail
            prompt_idx = i
            break
    parsed.is_tool_result = bool(parsed.tool_results) and prompt_idx != user_idx[-1]
    start = -1 if prompt_idx is None else prompt_idx
    for msg in messages[start + 1 :]:
        if msg.get("role") != "assistant":
            continue
        for b in blocks_of(msg):
            if b.get("type") == "tool_use":
                raw_input = b.get("input")
                parsed.tool_uses_since_prompt.append(
                    ToolUse(
                        id=str(b.get("id", "")),
                        name=str(b.get("name", "")),
                        input=raw_input if isinstance(raw_input, dict) else {},
                    )
                )
    return parsed


def parse_body(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
