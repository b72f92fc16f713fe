"""Paged, simplified messages of one past session, for the session pane and MCP.

Built on the SDK's ``get_session_messages`` logic (the parentUuid chain, parallel tool-call
recovery, visibility rules), with the file read done here so that: the directory comes from
``Settings``, corrupt lines are counted, metadata lines (full API requests, often most of a
large file) are skipped before ``json.loads``, and paging through one transcript parses it once
(a small cache keyed on path, mtime and size).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from cctui.errors import CctuiError, SessionNotFound
from cctui.history import _sdk
from cctui.history.models import ToolCall, ToolResult, TranscriptMessage, TranscriptPage
from cctui.timestamps import parse_iso

logger = logging.getLogger(__name__)

_CACHE_SIZE = 4
_TEXT_PREVIEW = 500
_INPUT_PREVIEW = 200
# Keys the chain builder and the simplifier read; anything else (attachments, rendered
# reminders, tool results' structured copies) is dropped to keep big transcripts small in memory.
_KEEP = (
    "type",
    "uuid",
    "parentUuid",
    "isSidechain",
    "isMeta",
    "teamName",
    "agentId",
    "sessionId",
    "timestamp",
    "sourceToolAssistantUUID",
)


class TranscriptUnreadable(CctuiError):
    """The session's transcript exists but could not be read."""

    code = "transcript_unreadable"


_Key = tuple[Path, int, int]
_cache: OrderedDict[_Key, tuple[list[TranscriptMessage], int]] = OrderedDict()
_cache_lock = threading.Lock()


def find_transcript(config_dir: Path, session_id: str, cwd: str | None = None) -> Path | None:
    """The transcript file of a session: under its project's directory, else any project's."""
    if not _sdk.validate_uuid(session_id):
        return None
    projects = config_dir / "projects"
    name = f"{session_id}.jsonl"
    if cwd:
        candidate = projects / _sdk.sanitize_path(cwd) / name
        if candidate.exists():
            return candidate
    try:
        dirs = sorted(projects.iterdir())
    except OSError:
        return None
    return next((d / name for d in dirs if (d / name).exists()), None)


def read_transcript(
    config_dir: Path,
    session_id: str,
    *,
    offset: int = 0,
    limit: int = 50,
    cwd: str | None = None,
    path: Path | None = None,
) -> TranscriptPage:
    """One page of a session's conversation (blocking: a big transcript takes a while).

    Raises:
        SessionNotFound: no transcript for this id.
        TranscriptUnreadable: the file exists but cannot be read.
    """
    path = path or find_transcript(config_dir, session_id, cwd)
    if path is None:
        raise SessionNotFound(
            f"no transcript for session {session_id!r} under {config_dir / 'projects'}",
            suggestion="check the id with claude_list_sessions",
        )
    messages, skipped = _load(path)
    offset, limit = max(0, offset), max(1, limit)
    page = messages[offset : offset + limit]
    return TranscriptPage(
        session_id=session_id,
        offset=offset,
        limit=limit,
        total=len(messages),
        messages=tuple(page),
        has_more=offset + len(page) < len(messages),
        skipped_lines=skipped,
        transcript_path=path,
    )


async def aread_transcript(
    config_dir: Path,
    session_id: str,
    *,
    offset: int = 0,
    limit: int = 50,
    cwd: str | None = None,
    path: Path | None = None,
) -> TranscriptPage:
    """``read_transcript`` in a worker thread, for callers on the event loop."""
    import anyio.to_thread  # (not at import: one-shot commands never need it)

    return await anyio.to_thread.run_sync(
        lambda: read_transcript(
            config_dir, session_id, offset=offset, limit=limit, cwd=cwd, path=path
        )
    )


def _load(path: Path) -> tuple[list[TranscriptMessage], int]:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise SessionNotFound(f"transcript {path} no longer exists") from None
    except OSError as exc:
        raise TranscriptUnreadable(f"cannot read {path}: {exc.strerror}") from None
    key = (path, st.st_mtime_ns, st.st_size)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    entries, skipped = _parse(path)
    messages = _simplify_all(entries)
    with _cache_lock:
        for old in [k for k in _cache if k[0] == path]:
            del _cache[old]
        _cache[key] = (messages, skipped)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return messages, skipped


def _parse(path: Path) -> tuple[list[dict[str, Any]], int]:
    entries: list[dict[str, Any]] = []
    skipped = 0
    kinds = _sdk.entry_types()
    try:
        with path.open("rb") as fh:
            for raw in fh:
                line = raw.strip()
                if not line:
                    continue
                if line.startswith(b'{"type":"'):
                    # Metadata entries lead with their type; skip non-message ones unparsed.
                    end = line.find(b'"', 9)
                    if line[9:end].decode("ascii", "replace") not in kinds:
                        continue
                try:
                    # Bytes that are not UTF-8 become U+FFFD; the rest of the line survives.
                    entry = json.loads(line.decode("utf-8", errors="replace"))
                except ValueError:
                    skipped += 1
                    continue
                if not isinstance(entry, dict) or not isinstance(entry.get("uuid"), str):
                    continue
                if entry.get("type") not in kinds:
                    continue
                slim = {k: entry[k] for k in _KEEP if k in entry}
                if entry.get("type") in ("user", "assistant"):
                    slim["message"] = entry.get("message")
                entries.append(slim)
    except IsADirectoryError:
        raise TranscriptUnreadable(f"cannot read {path}: it is a directory") from None
    except OSError as exc:
        raise TranscriptUnreadable(f"cannot read {path}: {exc.strerror}") from None
    if skipped:
        logger.warning("skipped %d corrupt line(s) in %s", skipped, path)
    return entries, skipped


def _simplify_all(entries: list[dict[str, Any]]) -> list[TranscriptMessage]:
    stamps = {e["uuid"]: e.get("timestamp") for e in entries}
    out: list[TranscriptMessage] = []
    last_assistant_id: str | None = None
    for msg in _sdk.entries_to_messages(entries):
        body = msg.message if isinstance(msg.message, dict) else {}
        simple = _simplify(len(out), msg.uuid, msg.type, body, stamps.get(msg.uuid))
        # The CLI writes one assistant entry per content block; show one message per API reply.
        msg_id = body.get("id") if msg.type == "assistant" else None
        if msg_id is not None and msg_id == last_assistant_id and out:
            out[-1] = _merge(out[-1], simple)
        else:
            out.append(simple)
        last_assistant_id = msg_id if isinstance(msg_id, str) else None
    return out


def _merge(a: TranscriptMessage, b: TranscriptMessage) -> TranscriptMessage:
    return a.model_copy(
        update={
            "text": "\n\n".join(t for t in (a.text, b.text) if t),
            "tool_calls": a.tool_calls + b.tool_calls,
            "tool_results": a.tool_results + b.tool_results,
            "thinking": a.thinking or b.thinking,
        }
    )


def _simplify(
    index: int, uuid: str, role: str, body: dict[str, Any], stamp: Any
) -> TranscriptMessage:
    texts: list[str] = []
    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    thinking = False
    content = body.get("content")
    blocks: list[Any] = (
        [{"type": "text", "text": content}]
        if isinstance(content, str)
        else (content if isinstance(content, list) else [])
    )
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            calls.append(
                ToolCall(
                    tool_use_id=str(block.get("id", "")),
                    name=str(block.get("name", "?")),
                    input_preview=_input_preview(block.get("input")),
                )
            )
        elif kind == "tool_result":
            results.append(
                ToolResult(
                    tool_use_id=str(block.get("tool_use_id", "")),
                    is_error=bool(block.get("is_error", False)),
                    preview=_cut(_result_text(block.get("content")), _TEXT_PREVIEW),
                )
            )
        elif kind in ("thinking", "redacted_thinking"):
            thinking = True
        elif kind == "image":
            texts.append("[image]")
    model = body.get("model")
    return TranscriptMessage(
        index=index,
        uuid=uuid,
        role="assistant" if role == "assistant" else "user",
        text="\n\n".join(texts),
        tool_calls=tuple(calls),
        tool_results=tuple(results),
        thinking=thinking,
        timestamp=parse_iso(stamp),
        model=model if isinstance(model, str) else None,
    )


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _input_preview(data: Any) -> str:
    if isinstance(data, dict):
        for key in ("command", "file_path", "path", "pattern", "url", "query", "description"):
            value = data.get(key)
            if isinstance(value, str) and value:
                return _cut(" ".join(value.split()), _INPUT_PREVIEW)
    try:
        return _cut(json.dumps(data, ensure_ascii=False, separators=(",", ":")), _INPUT_PREVIEW)
    except (TypeError, ValueError):
        return _cut(repr(data), _INPUT_PREVIEW)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b["text"] if isinstance(b, dict) and isinstance(b.get("text"), str) else "[...]"
            for b in content
        ]
        return "\n".join(parts)
    return "" if content is None else str(content)
