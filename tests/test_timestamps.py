"""Reading and writing the ISO 8601 stamps of Claude Code's files and cctui's answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from cctui.timestamps import iso_z, parse_iso


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-11-20T08:15:30.250Z", datetime(2026, 11, 20, 8, 15, 30, 250000, tzinfo=UTC)),
        ("2026-11-20T08:15:30", datetime(2026, 11, 20, 8, 15, 30, tzinfo=UTC)),  # no zone: UTC
        (
            "2026-11-20T09:15:30+01:00",
            datetime(2026, 11, 20, 9, 15, 30, tzinfo=timezone(timedelta(hours=1))),
        ),
    ],
)
def test_a_stamp_reads_as_an_aware_time(stamp: str, expected: datetime) -> None:
    when = parse_iso(stamp)
    assert when == expected and when is not None and when.tzinfo is not None


@pytest.mark.parametrize("value", [None, "", "yesterday", 1732600000, "2026-13-01T00:00:00Z"])
def test_anything_else_reads_as_none(value: object) -> None:
    assert parse_iso(value) is None


def test_what_cctui_writes_reads_back() -> None:
    when = datetime(2026, 2, 5, 12, 0, 0, 123000, tzinfo=UTC)
    assert parse_iso(iso_z(when)) == when
