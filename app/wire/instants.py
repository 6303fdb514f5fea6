"""Instants given by people: a date, or a timestamp with its offset (query parameters, command-line options)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time


def instant(text: str) -> datetime | None:
    """``2026-12-01`` (midnight UTC) or an RFC 3339 timestamp with its offset; None for anything else, a timestamp
    without offset included, or one outside years 1-9999 once in UTC (where it is stored and compared).

    >>> instant("2026-12-01"), instant("2026-12-01T21:00:00-05:00").isoformat()
    (datetime.datetime(2026, 12, 1, 0, 0, tzinfo=datetime.timezone.utc), '2026-12-01T21:00:00-05:00')
    >>> instant("2026-12-01T21:00:00"), instant("0001-01-01T00:00:00+01:00"), instant("yesterday")
    (None, None, None)
    """
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), time(), UTC)
        when = datetime.fromisoformat(text)
        if when.tzinfo is None:
            return None
        when.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return when
