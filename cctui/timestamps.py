"""Timestamps as cctui hands them out: ISO 8601 in UTC, ending in ``Z``.

One spelling for every tool, file and report: the seeds' clients validate with Zod's
``z.string().datetime()``, which accepts ``2026-02-05T12:00:00.123Z`` but rejects the
``+00:00`` offset Python's ``isoformat()`` writes.
"""

from __future__ import annotations

from datetime import UTC, datetime


def parse_iso(value: object) -> datetime | None:
    """An ISO 8601 stamp as Claude Code writes them (``...Z``) as an aware time; a stamp
    without a zone is UTC. None when ``value`` is not such a string."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    # Naive datetimes would not compare with the aware ones everywhere else.
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def iso_z(when: datetime, timespec: str = "milliseconds") -> str:
    """``when`` in UTC as ``2026-02-05T12:00:00.123Z`` (a naive datetime is taken as UTC)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec=timespec).removesuffix("+00:00") + "Z"


def iso_z_or_none(when: datetime | None) -> str | None:
    """``iso_z(when)``, or None."""
    return None if when is None else iso_z(when)


def now_iso(timespec: str = "seconds") -> str:
    """UTC now as ``2025-01-20T14:30:00Z`` (whole seconds unless ``timespec`` says)."""
    return iso_z(datetime.now(UTC), timespec)
