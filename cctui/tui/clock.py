"""The TUI's idea of "now", so snapshot apps can freeze it (relative times stay stable)."""

from __future__ import annotations

from datetime import UTC, datetime

_frozen: datetime | None = None


def now() -> datetime:
    """The current time (UTC), or the frozen one."""
    return _frozen if _frozen is not None else datetime.now(UTC)


def freeze(at: datetime | None) -> None:
    """Pin ``now()`` to ``at`` (``None`` thaws it). Only snapshot apps and tests call this."""
    global _frozen
    _frozen = at
