"""Use cases of reports: the summary of stored rounds, their findings and the money at stake, grouped by rule,
table, dealer, shoe or day, as JSON or CSV. Aggregated by the database (:mod:`app.store.reports`); the caller owns
the session."""

from __future__ import annotations

import base64
import binascii
import csv
import io
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from typing import Any

import orjson
from sqlalchemy.orm import Session

from app.store import reports as repo
from app.store.reports import Summary
from app.store.rollups import Page
from app.usecases.errors import InvalidQuery
from app.usecases.offline import iso_utc

FIGURES = repo.FIGURES
"""The counts and sums of each group and of the totals (in this order, in the JSON and the CSV)."""
RATES = ("void_rate", "error_rate")
"""Of the rounds of a group (or of the report): ``voided_rounds / rounds`` and ``rounds_with_findings / rounds``,
rounded to 6 decimal places; null by rule (a rule's rounds are those with its findings) and where no round counts."""
COLUMNS = (*FIGURES, *RATES)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True, slots=True)
class Report:
    query: Summary
    groups: list[dict[str, Any]]
    """``key`` and :data:`COLUMNS`, ordered by key (code point order; the null key last)."""
    totals: dict[str, Any]
    """:data:`COLUMNS`."""
    alerts: dict[str, Any] = field(default_factory=lambda: alert_figures(0, []))
    """:func:`alert_figures`: the alerts of the report's rounds, how many were acknowledged, how long they waited."""
    next_cursor: str | None = None
    """Of a page of the groups (``page``): the cursor of the next page; None on the last."""


MAX_GROUPS = 10_000
"""The most groups a page may hold (?limit=)."""


def encode_cursor(group_by: str, key: str | None) -> str:
    """The cursor of the page after the group ``key``: the grouping and the key, opaque to the client.

    >>> decode_cursor(encode_cursor("shoe", "S-1"), "shoe"), decode_cursor(encode_cursor("dealer", None), "dealer")
    ((False, 'S-1'), (True, ''))
    """
    return base64.urlsafe_b64encode(orjson.dumps([group_by, key])).decode().rstrip("=")


def decode_cursor(cursor: str, group_by: str) -> tuple[bool, str]:
    """The ``after`` of a :class:`~app.store.rollups.Page` from a cursor of :func:`encode_cursor`; a cursor not
    issued for a report by ``group_by`` is refused, naming the parameter."""
    try:
        raw = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not (isinstance(raw, list) and len(raw) == 2 and raw[0] == group_by):
            raise ValueError("not a cursor of this grouping")
        key = raw[1]
        if key is not None and not isinstance(key, str):
            raise ValueError("not a key")
        return (key is None, key or "")
    except (ValueError, binascii.Error, orjson.JSONDecodeError) as exc:
        raise InvalidQuery(
            "The cursor is not one this service issued for a report by " + group_by + ".",
            errors=[{"parameter": "cursor", "detail": "bad cursor"}],
        ) from exc


def rate(part: int, whole: int) -> float | None:
    """``part / whole`` to 6 decimal places; None when there is no whole.

    >>> rate(1, 3), rate(0, 5), rate(0, 0)
    (0.333333, 0.0, None)
    """
    return round(part / whole, 6) if whole else None


def with_rates(counts: dict[str, int], has_rounds: bool) -> dict[str, Any]:
    """The figures and the rates of a group or of the totals (``has_rounds``: its ``rounds`` are a round count)."""
    rounds = counts["rounds"] if has_rounds else 0
    return {
        **counts,
        "void_rate": rate(counts["voided_rounds"], rounds),
        "error_rate": rate(counts["rounds_with_findings"], rounds),
    }


def summary(session: Session, q: Summary, *, raw: bool = False, page: Page | None = None) -> Report:
    """The summary report of ``q``: its groups and totals, added up from the rollups and the raw rows in one snapshot
    (:func:`app.store.reports.summary`; ``raw``: from the raw rows only); ``page``: only the groups of that page,
    with the cursor of the next (the totals and alerts are the whole report's, on every page)."""
    repo.snapshot(session)
    summed = repo.summary(session, q, raw=raw, page=page)
    groups: dict[str | None, dict[str, int]] = {}
    totals = dict.fromkeys(FIGURES, 0)
    for total, key, figures in summed.rows:
        if not total and page is not None and not page.follows(key):
            continue
        into = totals if total else groups.setdefault(key, dict.fromkeys(FIGURES, 0))
        for c, v in zip(FIGURES, figures, strict=True):
            into[c] += v
    ordered = sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
    next_cursor = None
    if page is not None:
        # Each part read its first page.reads groups: the first page.reads of them all are whole, the rest may not be.
        if len(ordered) > page.limit:
            next_cursor = encode_cursor(q.group_by, ordered[page.limit - 1][0])
        ordered = ordered[: page.limit]
    # A group whose re-audits took back all it had adds up to nothing in the rollups: it has no round or finding.
    ordered = [(k, v) for k, v in ordered if any(v.values())]
    by_rule = q.group_by == "rule"
    if by_rule:  # a rule's rounds are those of its findings
        for _, counts in ordered:
            counts["rounds"] = counts["rounds_with_findings"]
    return Report(
        q,
        [{"key": key, **with_rates(counts, not by_rule)} for key, counts in ordered],
        with_rates(totals, True),
        alert_figures(summed.alerts, repo.acknowledged(session, q)),
        next_cursor,
    )


def nearest_rank(ordered: Sequence[float], p: float) -> float:
    """The ``p``-th percentile of sorted values by the nearest-rank method (a value that occurred).

    >>> nearest_rank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), nearest_rank([5], 90), nearest_rank([1, 2, 3], 50)
    (9, 5, 2)
    """
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def alert_figures(alerts: int, acknowledged: Sequence[tuple[datetime, datetime]]) -> dict[str, Any]:
    """The alerts counted, acknowledged or not, and the wait from each round's receipt to its alert's acknowledgement,
    in seconds (3 decimal places): the median, the 90th percentile (nearest rank) and the longest; null with none.

    >>> from datetime import timedelta
    >>> t = datetime(2026, 12, 4, 21, 0, tzinfo=UTC)
    >>> waits = [(t, t + timedelta(seconds=s)) for s in (30, 10, 20, 600)]
    >>> alert_figures(6, waits)["wait_seconds"]
    {'median': 25.0, 'p90': 600.0, 'max': 600.0}
    >>> alert_figures(2, [])
    {'alerts': 2, 'acknowledged': 0, 'not_acknowledged': 2, 'wait_seconds': {'median': None, 'p90': None, 'max': None}}
    """
    waits = sorted((done - received).total_seconds() for received, done in acknowledged)
    return {
        "alerts": alerts,
        "acknowledged": len(waits),
        "not_acknowledged": alerts - len(waits),
        "wait_seconds": {
            "median": round(statistics.median(waits), 3) if waits else None,
            "p90": round(nearest_rank(waits, 90), 3) if waits else None,
            "max": round(waits[-1], 3) if waits else None,
        },
    }


def _when(ts: datetime | None) -> str | None:
    return None if ts is None else iso_utc(ts)


def as_json(report: Report) -> bytes:
    q = report.query
    return orjson.dumps(
        {
            "group_by": q.group_by,
            "from": _when(q.played_from),
            "to": _when(q.played_to),
            "source": q.source,
            "jurisdiction": q.jurisdiction,
            "groups": report.groups,
            "totals": report.totals,
            "alerts": report.alerts,
            "next_cursor": report.next_cursor,
        }
    )


def cell(value: str | None) -> str:
    """A text cell as a spreadsheet will not run it: a value that would start a formula is prefixed with ``'``
    (OWASP's advice against CSV injection; a table or dealer id is whatever the table system sent).

    >>> cell("BJ12"), cell("=HYPERLINK(\\"http://x\\")"), cell("-3"), cell(None)
    ('BJ12', '\\'=HYPERLINK("http://x")', "'-3", '')
    """
    if value is None:
        return ""
    return "'" + value if value.startswith(FORMULA_START) else value


def number(value: int | float | None) -> str:
    """A figure or a rate in a CSV cell: integers as they are, rates as decimals, an absent rate empty.

    >>> number(12), number(-500), number(0.0125), number(0.0), number(None)
    ('12', '-500', '0.0125', '0.0', '')
    """
    return "" if value is None else str(value)


def as_csv(report: Report) -> bytes:
    """The report as CSV (RFC 4180, CRLF, UTF-8): a header row, one row per group, then the totals row; ``row`` is
    ``group`` or ``total``; money in minor units, as integers; rates as decimals (empty where there is none)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["row", report.query.group_by, *COLUMNS])
    for g in report.groups:
        writer.writerow(["group", cell(g["key"]), *(number(g[c]) for c in COLUMNS)])
    writer.writerow(["total", "", *(number(report.totals[c]) for c in COLUMNS)])
    return out.getvalue().encode()


def _stamp(ts: datetime) -> str:
    """A time in a file name: its UTC date at midnight UTC, else the UTC time to the second.

    >>> _stamp(datetime(2026, 12, 1, tzinfo=UTC)), _stamp(datetime(2026, 12, 1, 21, 30, tzinfo=UTC))
    ('2026-12-01', '20261201T213000Z')
    """
    ts = ts.astimezone(UTC)
    return ts.date().isoformat() if ts.timetz() == time(tzinfo=UTC) else ts.strftime("%Y%m%dT%H%M%SZ")


def csv_filename(q: Summary) -> str:
    """The CSV's file name: what it reports on, in characters any file system takes.

    >>> csv_filename(Summary("table", datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC)))
    'bjaudit-summary-by-table-from-2026-11-01-to-2026-12-01.csv'
    >>> csv_filename(Summary("day"))
    'bjaudit-summary-by-day.csv'
    """
    name = f"bjaudit-summary-by-{q.group_by}"
    if q.played_from is not None:
        name += f"-from-{_stamp(q.played_from)}"
    if q.played_to is not None:
        name += f"-to-{_stamp(q.played_to)}"
    return name + ".csv"
