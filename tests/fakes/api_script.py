"""Replies of the fake model: programmatic rules and the ``[[directive]]`` language.

See the module docstring of ``tests/fakes/anthropic_api.py`` and ``tests/fakes/README.md``
for the directive language. Everything here is deterministic given the request history.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.fakes.api_request import ParsedRequest

Block = dict[str, Any]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class Reply:
    """One model response: content blocks streamed as SSE, or an HTTP error."""

    content: list[Block] = field(default_factory=list)
    delay: float = 0.0
    """Seconds to wait before the first byte (the status line)."""
    chunk_delay: float = 0.0
    """Seconds to wait between SSE deltas."""
    chunk_size: int = 24
    """Characters per text_delta / thinking_delta."""
    status: int = 200
    error_message: str = ""
    error_type: str | None = None
    stop_reason: str | None = None
    """Default: ``tool_use`` if any block is a tool_use, else ``end_turn``."""
    label: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers an error answer carries (e.g. the usage limit's)."""
    hold: str = ""
    """A gate's name: after the first delta the stream waits until the test opens it
    (``FakeAnthropicAPI.release``), then goes on; empty, it never waits."""

    @property
    def is_error(self) -> bool:
        return self.status >= 400

    def final_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        has_tool = any(b.get("type") == "tool_use" for b in self.content)
        return "tool_use" if has_tool else "end_turn"

    def error_body(self) -> dict[str, Any]:
        etype = self.error_type or ERROR_TYPES.get(self.status, "api_error")
        message = self.error_message or f"fake {self.status}"
        return {"type": "error", "error": {"type": etype, "message": message}}

    def describe(self) -> str:
        if self.label:
            return self.label
        if self.is_error:
            return f"error {self.status}"
        kinds = [
            f"tool_use {b.get('name')}" if b.get("type") == "tool_use" else str(b.get("type"))
            for b in self.content
        ]
        return ", ".join(kinds) or "empty"


def text(value: str) -> Block:
    return {"type": "text", "text": value}


def thinking(value: str, signature: str = "fake-signature") -> Block:
    return {"type": "thinking", "thinking": value, "signature": signature}


_ids = iter(range(1, 1 << 62))
_ids_lock = threading.Lock()


def new_tool_id() -> str:
    with _ids_lock:
        n = next(_ids)
    return f"toolu_fake_{n:04d}_{os.urandom(4).hex()}"


def tool_use(name: str, input: dict[str, Any], id: str | None = None) -> Block:
    return {"type": "tool_use", "id": id or new_tool_id(), "name": name, "input": input}


def text_reply(value: str, **kw: Any) -> Reply:
    return Reply(content=[text(value)], **kw)


def error_reply(status: int, message: str = "", **kw: Any) -> Reply:
    return Reply(status=status, error_message=message, **kw)


def usage_limit_reply(reset_epoch: int) -> Reply:
    """Anthropic's answer at a subscription's usage limit: a 429 whose unified rate-limit
    headers say ``rejected`` and when the window resets (what the CLI reads)."""
    return Reply(
        status=429,
        error_message=(
            "This request would exceed your account's rate limit. Please try again later."
        ),
        error_type="rate_limit_error",
        headers={
            "anthropic-ratelimit-unified-status": "rejected",
            "anthropic-ratelimit-unified-reset": str(reset_epoch),
            "anthropic-ratelimit-unified-representative-claim": "five_hour",
            "anthropic-ratelimit-unified-5h-status": "rejected",
            "anthropic-ratelimit-unified-5h-reset": str(reset_epoch),
            "anthropic-ratelimit-unified-5h-utilization": "1.0",
        },
    )


ReplySpec = Reply | str | list[Block] | Callable[[ParsedRequest], "Reply | str | list[Block]"]


def as_reply(spec: ReplySpec, req: ParsedRequest) -> Reply:
    value = spec(req) if callable(spec) else spec
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return text_reply(value)
    return Reply(content=list(value))


@dataclass
class Rule:
    """A programmatic override. All given conditions must hold; first matching rule wins."""

    reply: ReplySpec
    contains: str | None = None
    """The current prompt (reminders removed) contains this."""
    tool_result: bool | None = None
    """True: only tool-result turns; False: only new prompts."""
    tool_result_contains: str | None = None
    tool_name: str | None = None
    """Name of the last tool_use since the prompt (what the tool_result answers)."""
    kind: Literal["main", "side", "any"] = "any"
    """main = the request offers tools (a session turn), side = it offers none."""
    when: Callable[[ParsedRequest], bool] | None = None
    times: int | None = None
    """Use this rule at most N times (``once=True`` means 1)."""
    once: bool = False
    used: int = 0

    def matches(self, req: ParsedRequest) -> bool:
        limit = 1 if self.once else self.times
        if limit is not None and self.used >= limit:
            return False
        if self.kind == "main" and not req.has_tools:
            return False
        if self.kind == "side" and req.has_tools:
            return False
        if self.contains is not None and self.contains not in req.prompt:
            return False
        if self.tool_result is not None and self.tool_result != req.is_tool_result:
            return False
        if self.tool_result_contains is not None:
            last = req.last_tool_result
            if not req.is_tool_result or last is None:
                return False
            if self.tool_result_contains not in last.content:
                return False
        if self.tool_name is not None:
            tu = req.last_tool_use
            if not req.is_tool_result or tu is None or tu.name != self.tool_name:
                return False
        return self.when is None or self.when(req)


# --------------------------------------------------------------------------- directives

DIRECTIVE_RE = re.compile(r"\[\[\s*([a-z][a-z0-9-]*)(.*?)\]\]", re.DOTALL)
KEYS = (
    "path",
    "content",
    "cmd",
    "description",
    "seconds",
    "status",
    "times",
    "message",
    "type",
    "text",
    "name",
    "input",
    "chunks",
    "in",
    "at",
    "hold",
)
KEY_RE = re.compile(r"(?:^|\s)(" + "|".join(KEYS) + r")=")
ACTIONS = {"write", "bash", "sleep-bash", "ask", "plan", "tool"}
DEFAULT_PLAN = "# Plan\n\n1. Create hello.txt\n2. Say done\n"


@dataclass
class Directive:
    name: str
    args: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    end: int = 0
    """Where the directive ends in the prompt (``times`` counts per prompt up to here, so a
    prompt the CLI merges with the next one, after a refused turn, counts as the same)."""

    def num(self, key: str, default: float) -> float:
        try:
            return float(self.args[key])
        except (KeyError, ValueError):
            return default


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value


def parse_directives(prompt: str) -> list[Directive]:
    """``[[name flag key=value key="quoted value"]]``: a value runs to the next ``key=``."""
    out: list[Directive] = []
    for m in DIRECTIVE_RE.finditer(prompt):
        d = Directive(name=m.group(1), end=m.end())
        rest = m.group(2)
        keys = list(KEY_RE.finditer(rest))
        head = rest[: keys[0].start()] if keys else rest
        d.flags = set(head.split())
        for i, km in enumerate(keys):
            end = keys[i + 1].start() if i + 1 < len(keys) else len(rest)
            d.args[km.group(1)] = _unquote(rest[km.end() : end])
        out.append(d)
    return out


def _abs(path: str, cwd: str | None) -> str:
    if os.path.isabs(path) or not cwd:
        return path
    return os.path.join(cwd, path)


def ask_input(multi: bool) -> dict[str, Any]:
    if multi:
        question = {
            "question": "Which toppings do you want?",
            "header": "Toppings",
            "options": [
                {"label": "Cheese", "description": "Melted"},
                {"label": "Mushrooms", "description": "Earthy"},
                {"label": "Olives", "description": "Salty"},
            ],
            "multiSelect": True,
        }
    else:
        question = {
            "question": "Which color do you prefer?",
            "header": "Color",
            "options": [
                {"label": "Red", "description": "Warm"},
                {"label": "Blue", "description": "Cool"},
            ],
            "multiSelect": False,
        }
    return {"questions": [question]}


Step = tuple[str, str, dict[str, Any]]  # (text before the tool_use, tool name, input)


def steps_for(d: Directive, req: ParsedRequest) -> list[Step]:
    a = d.args
    if d.name == "write":
        path = _abs(a.get("path", "hello.txt"), req.cwd)
        content = a.get("content", "hello from fake model").replace("\\n", "\n")
        return [(f"Writing {path}.", "Write", {"file_path": path, "content": content})]
    if d.name == "bash":
        cmd = a.get("cmd", "echo hello")
        desc = a.get("description", "Run a shell command")
        return [("Running a command.", "Bash", {"command": cmd, "description": desc})]
    if d.name == "sleep-bash":
        secs = d.num("seconds", 30)
        cmd = f"python3 -c 'import time; time.sleep({secs:g})'"
        return [("Sleeping.", "Bash", {"command": cmd, "description": f"Sleep {secs:g}s"})]
    if d.name == "ask":
        return [("I have a question.", "AskUserQuestion", ask_input("multi" in d.flags))]
    if d.name == "plan":
        plan = a.get("text", DEFAULT_PLAN).replace("\\n", "\n")
        steps: list[Step] = []
        if req.plan_path:
            steps.append(
                ("Writing the plan.", "Write", {"file_path": req.plan_path, "content": plan})
            )
        steps.append(("Here is my plan.", "ExitPlanMode", {"plan": plan}))
        return steps
    if d.name == "tool":
        try:
            data = json.loads(a.get("input", "{}"))
        except ValueError:
            data = {}
        name = a.get("name", "Read")
        return [(f"Calling {name}.", name, data if isinstance(data, dict) else {})]
    return []


def follow_up(req: ParsedRequest) -> str:
    """The final text after the last tool step: quotes the tool result."""
    last, tu = req.last_tool_result, req.last_tool_use
    if last is None:
        return "Done."
    if tu is not None and tu.name == "ExitPlanMode":
        if last.is_error:
            return f"Plan not approved. Feedback: {last.content}"
        return "Plan approved, proceeding."
    label = "Tool result (error)" if last.is_error else "Tool result"
    return f"{label}: {last.content}"


def slow_reply(d: Directive) -> Reply:
    seconds = d.num("seconds", 5.0)
    n = max(1, int(d.num("chunks", 50)))
    parts = [f"[slow {i + 1:03d}/{n:03d}] " for i in range(n)]
    hold = d.args.get("hold", "")
    return Reply(
        content=[text("".join(parts).strip())],
        chunk_delay=seconds / n,
        chunk_size=len(parts[0]),
        label=f"slow {seconds:g}s" + (f" held at {hold}" if hold else ""),
        hold=hold,
    )


class DirectiveEngine:
    """Turns the prompt's directives into a reply. Keeps counters for ``[[error times=N]]``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._errors: dict[tuple[str, str, int], int] = {}

    def reset(self) -> None:
        with self._lock:
            self._errors.clear()

    def reply(self, req: ParsedRequest) -> Reply:
        directives = parse_directives(req.prompt)
        by_name = {d.name: d for d in directives}
        step = len(req.tool_uses_since_prompt) if req.is_tool_result else 0
        if (err := by_name.get("error")) and self._fires(err, req, step):
            status = int(err.num("status", 500))
            return error_reply(status, err.args.get("message", ""), error_type=err.args.get("type"))
        hit = by_name.get("usage-limit")
        if hit and self._fires(hit, req, step, default_times=1):
            at = hit.num("at", 0) or time.time() + hit.num("in", 60)
            return usage_limit_reply(int(at))
        reply = self._content(req, directives, by_name, step)
        if stall := by_name.get("stall"):
            reply.delay = stall.num("seconds", 5.0)
        return reply

    def _fires(
        self, d: Directive, req: ParsedRequest, step: int, default_times: float = -1
    ) -> bool:
        """Whether a failing directive fails this request (``times=N``: the first N)."""
        limit = d.num("times", default_times)
        key = (d.name, req.prompt[: d.end], step)
        with self._lock:
            count = self._errors.get(key, 0)
            self._errors[key] = count + 1
        return limit < 0 or count < limit

    def _content(
        self,
        req: ParsedRequest,
        directives: list[Directive],
        by_name: dict[str, Directive],
        step: int,
    ) -> Reply:
        steps = [s for d in directives if d.name in ACTIONS for s in steps_for(d, req)]
        if step < len(steps):
            pre, name, tool_input = steps[step]
            return Reply(content=[text(pre), tool_use(name, tool_input)])
        if slow := by_name.get("slow"):
            return slow_reply(slow)
        if say := by_name.get("say"):
            return text_reply(say.args.get("text", "").replace("\\n", "\n") or "OK.")
        if steps:
            return text_reply(follow_up(req))
        prompt = " ".join(req.prompt.split())
        return text_reply(f"OK: {prompt[:60]}" if prompt else "OK.")
