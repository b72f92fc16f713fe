"""The one place the history room touches claude-agent-sdk's transcript readers.

The SDK's public ``list_sessions`` / ``get_session_info`` / ``get_session_messages`` resolve the
config directory from ``os.environ`` and swallow every error. cctui needs the directory from
``Settings`` (tests and ``--config`` point elsewhere), per-file caching keyed on (mtime, size),
and to *count* what it could not read. So we reuse the SDK's parsing helpers — the head/tail
metadata extraction and the conversation-chain builder, which are the hard parts — and do the file
I/O ourselves. These helpers are private: the dependency is pinned ``<0.3`` and the tests in
``tests/history`` exercise every helper used here, so an SDK change that breaks them fails CI
rather than a user's session list.

The SDK is imported on first use, not with this module: its package imports the whole mcp SDK
(about a second), and the TUI's list is drawn from the index file without parsing a
transcript. Telling a session id from another file name needs no SDK either.
"""

from __future__ import annotations

import functools
import re
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from claude_agent_sdk import SDKSessionInfo, SessionMessage

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
"""A session id, as the CLI names transcripts (the SDK's ``_UUID_RE``)."""


@functools.cache
def _sessions() -> ModuleType:
    from claude_agent_sdk._internal import sessions

    return sessions


def lite_read_size() -> int:
    """Bytes the SDK reads from each end of a transcript for list metadata."""
    return cast(int, _sessions().LITE_READ_BUF_SIZE)


def entry_types() -> frozenset[str]:
    """The transcript entry types that carry conversation (the rest are metadata)."""
    return cast(frozenset[str], _sessions()._TRANSCRIPT_ENTRY_TYPES)


def validate_uuid(value: str) -> str | None:
    """The value if it is a session UUID, else ``None``."""
    return value if _UUID.match(value) else None


def sanitize_path(cwd: str) -> str:
    """The CLI's directory name under ``projects/`` for a working directory."""
    return cast(str, _sessions()._sanitize_path(cwd))


def parse_lite(
    session_id: str, *, mtime_ms: int, size: int, head: str, tail: str
) -> SDKSessionInfo | None:
    """The SDK's metadata extraction from a transcript's head and tail.

    ``None`` for sidechain transcripts and metadata-only files (no prompt, title or summary).
    """
    sessions = _sessions()
    lite = sessions._LiteSessionFile(mtime=mtime_ms, size=size, head=head, tail=tail)
    return cast("SDKSessionInfo | None", sessions._parse_session_info_from_lite(session_id, lite))


def entries_to_messages(
    entries: list[dict[str, Any]], limit: int | None = None, offset: int = 0
) -> list[SessionMessage]:
    """The SDK's ``get_session_messages`` minus the file read: chain, filter, page."""
    return cast(
        "list[SessionMessage]", _sessions()._entries_to_session_messages(entries, limit, offset)
    )
