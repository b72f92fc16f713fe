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

In a one-shot command (``one_shot_command``) the helpers are loaded without the package's
``__init__``: they need only the SDK's ``types`` module, and a ``cctui sessions`` run after a
transcript changed paid ~1 s of CPU for the mcp SDK to read that file's title.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import logging
import re
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from claude_agent_sdk import SDKSessionInfo, SessionMessage

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
"""A session id, as the CLI names transcripts (the SDK's ``_UUID_RE``)."""


logger = logging.getLogger(__name__)

_alone = False
"""Load the helpers without the SDK package's ``__init__`` (``one_shot_command``)."""


@contextlib.contextmanager
def one_shot_command() -> Iterator[None]:
    """Within: the SDK's transcript helpers, if first needed here, load without the package's
    ``__init__`` (and so without the mcp SDK). Only for a command that imports nothing in
    another thread meanwhile: a stand-in for the package sits in ``sys.modules`` while the
    helpers load (``_helpers_alone``)."""
    global _alone
    _alone = True
    try:
        yield
    finally:
        _alone = False


@functools.cache
def _sessions() -> ModuleType:
    if _alone and "claude_agent_sdk" not in sys.modules:
        try:
            return _helpers_alone()
        except Exception:  # an SDK whose helpers need more of their package: import it all
            logger.debug("claude-agent-sdk's session helpers need the package", exc_info=True)
    from claude_agent_sdk._internal import sessions

    return sessions


def _helpers_alone() -> ModuleType:
    """A private copy of ``claude_agent_sdk._internal.sessions`` (and the ``types`` it
    imports), loaded with an unexecuted module standing for their package, then taken out of
    ``sys.modules`` with it: a later ``import claude_agent_sdk`` loads the package whole, as
    if this had not run (its own copies of these two modules cost ~0.03 s)."""
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError("claude_agent_sdk not found")
    before = {name for name in sys.modules if name.startswith("claude_agent_sdk")}
    sys.modules["claude_agent_sdk"] = importlib.util.module_from_spec(spec)
    try:
        return importlib.import_module("claude_agent_sdk._internal.sessions")
    finally:
        for name in [n for n in sys.modules if n.startswith("claude_agent_sdk")]:
            if name not in before:
                del sys.modules[name]


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
