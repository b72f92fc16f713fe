"""What one transcript line gives the index: searchable text pieces, one usage record, a cost.

Every piece is indexed whole, at any length (the index keeps no copy of the text: a hit points
at its line, and the snippet is read from the transcript when shown, see ``snippets``):

- user prompts: the typed text, ``<system-reminder>`` blocks removed;
- assistant text blocks; thinking blocks only when asked (``thinking=True``);
- tool inputs: ``[Tool] `` + the main argument (command, file path, pattern, url, query)
  followed by the rest of the input as compact JSON;
- tool results: their ``content`` (a string or text blocks), and the strings of the line's
  ``toolUseResult`` that the content does not already hold (one more piece).

Deliberately left out (``NOT_INDEXED`` says it for ``cctui index --stats``): images and other
base64 data, ``toolUseResult.originalFile`` (the whole file before an edit, which a Read or the
edit itself already shows), lines longer than the indexer's ``MAX_LINE``, and every metadata line
(``api-request*``, ``attachment``, ``file-history-*``, ``queue-operation``, ...): those lines are
recognised from their first bytes and never parsed, since 2.1.330 stores whole API requests in
the transcript.

A piece is named by its line and ``part``: the content block's index, or ``RESULT_EXTRA`` for
the ``toolUseResult`` strings; ``piece_text`` finds it again in the line it came from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from cctui.timestamps import parse_iso

try:  # several times faster than json on the long lines of tool results (Apache-2.0/MIT)
    import orjson

    _loads: Any = orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency; json still works
    _loads = json.loads

NOT_INDEXED = (
    "images and base64 data; toolUseResult.originalFile; thinking (unless index_thinking); "
    "metadata lines (api requests, attachments, file history, queue operations)"
)
"""What the index deliberately leaves out, as ``cctui index --stats`` says it."""
RESULT_EXTRA = 1000
"""The ``part`` of the piece made of a line's ``toolUseResult`` strings."""
ROLE_CODES = {"user": 1, "assistant": 2, "tool": 3}
"""Roles as stored in ``msg.role``."""
ROLE_NAMES = {v: k for k, v in ROLE_CODES.items()}

_WANTED = frozenset({"user", "assistant", "cost-state"})
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_MAIN_ARGS = ("command", "file_path", "path", "pattern", "url", "query", "description")
_SKIP_KEYS = frozenset({"originalFile", "base64", "data", "image", "source", "signature"})
"""``toolUseResult`` keys whose strings are not text to search (see the module docstring)."""


@dataclass(slots=True)
class Usage:
    """One API reply's tokens (the CLI repeats them on each content block's line)."""

    msg_id: str
    request_id: str
    model: str
    ts: float
    input: int
    output: int
    cw5m: int
    cw1h: int
    cr: int
    web_search: int
    sidechain: bool
    geo: str | None
    legacy_cost: float | None

    @property
    def total(self) -> int:
        return self.input + self.output + self.cw5m + self.cw1h + self.cr


@dataclass(slots=True)
class Piece:
    """One searchable piece of text."""

    role: str
    """``user``, ``assistant`` or ``tool`` (a tool input or a tool result)."""
    body: str
    part: int = 0
    """Which piece of its line: the content block's index, or ``RESULT_EXTRA``."""


@dataclass(slots=True)
class Extracted:
    """What one line gives; empty for lines the index does not keep."""

    uuid: str | None = None
    ts: float | None = None
    sidechain: bool = False
    pieces: list[Piece] = field(default_factory=list)
    usage: Usage | None = None
    cost_state: float | None = None


SKIP = Extracted()


def wanted(line: bytes) -> bool:
    """False for lines that are certainly not user/assistant/cost-state entries (no parse)."""
    if line.startswith(b'{"type":"'):
        end = line.find(b'"', 9, 64)
        return line[9:end].decode("ascii", "replace") in _WANTED
    # Message entries lead with parentUuid; attachments name themselves within a few keys.
    return b'"attachment":{' not in line[:200]


def parse(line: bytes) -> tuple[dict[str, Any] | None, bool]:
    """The JSON object of a line, and whether its bytes were not valid UTF-8.

    Bytes that are not UTF-8 become U+FFFD; the rest of the line survives.
    """
    try:
        data = _loads(line)
        return (data if isinstance(data, dict) else None), False
    except ValueError:
        pass  # invalid UTF-8, a lone surrogate orjson refuses, or not JSON: the slow path
    bad = False
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
        bad = True
    try:
        data = json.loads(text)
    except ValueError:
        return None, bad
    return (data if isinstance(data, dict) else None), bad


def extract(entry: dict[str, Any], *, thinking: bool = False) -> Extracted:
    """Searchable pieces, usage and cost of one parsed transcript entry."""
    kind = entry.get("type")
    if kind == "cost-state":
        cost = entry.get("totalCostUSD")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            return Extracted(cost_state=float(cost))
        return SKIP
    if kind not in ("user", "assistant") or entry.get("isMeta"):
        return SKIP
    message = entry.get("message")
    if not isinstance(message, dict):
        return SKIP
    out = Extracted(
        uuid=_str(entry.get("uuid")),
        ts=timestamp(entry.get("timestamp")),
        sidechain=bool(entry.get("isSidechain")),
    )
    out.pieces = pieces(entry, thinking=thinking)
    if kind == "assistant":
        out.usage = _usage(entry, message, out.ts, out.sidechain)
    return out


def pieces(entry: dict[str, Any], *, thinking: bool = False) -> list[Piece]:
    """The searchable pieces of a user or assistant entry, in line order."""
    kind = str(entry.get("type"))
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    blocks: list[Any] = (
        [{"type": "text", "text": content}]
        if isinstance(content, str)
        else (content if isinstance(content, list) else [])
    )
    out: list[Piece] = []
    results: list[str] = []
    for i, block in enumerate(blocks):
        if isinstance(block, dict):
            piece = _piece(kind, block, thinking)
            if piece is not None:
                piece.part = i
                out.append(piece)
                if block.get("type") == "tool_result":
                    results.append(piece.body)
    extra = entry.get("toolUseResult")
    if results and extra is not None:
        seen = "\n".join(results)
        more = [s for s in _strings(extra, 0) if s not in seen]
        if more:
            out.append(Piece("tool", "\n".join(more), RESULT_EXTRA))
    return out


def piece_text(entry: dict[str, Any], part: int) -> Piece | None:
    """The piece ``part`` of an entry (thinking included: it was indexed if it is asked for)."""
    for piece in pieces(entry, thinking=True):
        if piece.part == part:
            return piece
    return None


def _piece(kind: str, block: dict[str, Any], thinking: bool) -> Piece | None:
    btype = block.get("type")
    if btype == "text" or (btype == "thinking" and thinking and kind == "assistant"):
        text = block.get("text" if btype == "text" else "thinking")
        if not isinstance(text, str):
            return None
        if kind == "user":
            text = _REMINDER.sub("", text)
        text = text.strip()
        return Piece(kind, text) if text else None
    if btype == "tool_use":
        name = str(block.get("name") or "?")
        return Piece("tool", f"[{name}] " + _input_text(block.get("input")))
    if btype == "tool_result":
        text = _result_text(block.get("content")).strip()
        return Piece("tool", text) if text else None
    return None


def _input_text(data: Any) -> str:
    if not isinstance(data, dict):
        return _dumps(data)
    main = [data[k] for k in _MAIN_ARGS if isinstance(data.get(k), str) and data[k]]
    rest = {k: v for k, v in data.items() if k not in _MAIN_ARGS}
    head = "\n".join(main[:2])
    return head + ("\n" + _dumps(rest) if rest else "")


def _dumps(data: Any) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(data)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def _strings(value: Any, depth: int) -> list[str]:
    """The text strings of a ``toolUseResult`` (keys in ``_SKIP_KEYS`` and numbers left out)."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if depth > 4:
        return []
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in _SKIP_KEYS:
                out += _strings(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            out += _strings(v, depth + 1)
    return out


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage(
    entry: dict[str, Any], message: dict[str, Any], ts: float | None, sidechain: bool
) -> Usage | None:
    usage = message.get("usage")
    msg_id = message.get("id")
    if not isinstance(usage, dict) or not isinstance(msg_id, str) or ts is None:
        return None
    request_id = entry.get("requestId") or entry.get("request_id")
    cache = usage.get("cache_creation")
    cw_total = _int(usage.get("cache_creation_input_tokens"))
    if isinstance(cache, dict) and (
        "ephemeral_5m_input_tokens" in cache or "ephemeral_1h_input_tokens" in cache
    ):
        cw1h = _int(cache.get("ephemeral_1h_input_tokens"))
        cw5m = max(cw_total - cw1h, _int(cache.get("ephemeral_5m_input_tokens")))
    else:
        cw5m, cw1h = cw_total, 0
    server = usage.get("server_tool_use")
    legacy = entry.get("costUSD")
    geo = usage.get("inference_geo")
    return Usage(
        msg_id=msg_id,
        request_id=request_id if isinstance(request_id, str) else "",
        model=_str(message.get("model")) or "unknown",
        ts=ts,
        input=_int(usage.get("input_tokens")),
        output=_int(usage.get("output_tokens")),
        cw5m=cw5m,
        cw1h=cw1h,
        cr=_int(usage.get("cache_read_input_tokens")),
        web_search=_int(server.get("web_search_requests")) if isinstance(server, dict) else 0,
        sidechain=sidechain,
        geo=geo if isinstance(geo, str) and geo else None,
        legacy_cost=float(legacy)
        if isinstance(legacy, int | float) and not isinstance(legacy, bool)
        else None,
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def timestamp(value: Any) -> float | None:
    """Epoch seconds of an ISO-8601 stamp (UTC when it has no zone); ``None`` if unreadable."""
    when = parse_iso(value)
    return None if when is None else when.timestamp()
