"""Reports over the stored rounds and findings, on PostgreSQL and SQLite alike: the whole UTC days of a report's range
added up from the rollups (:mod:`app.store.rollups`) and the entries not yet rolled, the part-days at its ends from
the raw rows (:func:`raw_summary`, one statement that aggregates in the database), all in one snapshot
(:func:`snapshot`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    String,
    Table,
    and_,
    case,
    func,
    literal_column,
    select,
    text,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from app.store import rollups
from app.store.db import snapshot as snapshot  # the reports use case takes it from here
from app.store.models import acknowledgements_table as ACK
from app.store.models import findings_table as F
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R
from app.store.rounds import finding_is_latest, keyed_rounds, latest_void_reason, with_latest_audit

GroupBy = Literal["rule", "table", "dealer", "shoe", "day"]
GROUP_BY: tuple[GroupBy, ...] = ("rule", "table", "dealer", "shoe", "day")


class utc_day(FunctionElement[str]):  # noqa: N801 - an SQL function, named as one
    """The UTC calendar date (``YYYY-MM-DD``) of a :class:`~app.store.models.UTCDateTime` column. Compiled with
    literals only, so that the same expression in SELECT and GROUP BY is the same text to PostgreSQL."""

    type = String()
    inherit_cache = True


@compiles(utc_day, "postgresql")
def _utc_day_pg(element: utc_day, compiler: SQLCompiler, **kw: Any) -> str:
    return f"to_char(timezone('UTC', {compiler.process(element.clauses, **kw)}), 'YYYY-MM-DD')"


@compiles(utc_day)
def _utc_day(element: utc_day, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite keeps a UTCDateTime as UTC text, 'YYYY-MM-DD HH:MM:SS.ffffff'.
    return f"substr({compiler.process(element.clauses, **kw)}, 1, 10)"


@dataclass(frozen=True, slots=True)
class Summary:
    """What a summary report covers: rounds played in [played_from, played_to) (either open), of one source and
    one jurisdiction or all, grouped by ``group_by``."""

    group_by: GroupBy
    played_from: datetime | None = None
    played_to: datetime | None = None
    source: str | None = None
    jurisdiction: str | None = None


def _owed(sign: int) -> ColumnElement[Any]:
    """The sum of the positive (``sign`` 1) or of the negative (``sign`` -1, as a positive amount) amount_delta."""
    owed = (
        case((F.c.amount_delta > 0, F.c.amount_delta))
        if sign > 0
        else case((F.c.amount_delta < 0, -F.c.amount_delta))
    )
    return func.coalesce(func.sum(owed), 0)


def _corrected_owed() -> ColumnElement[Any]:
    """The sum of the amount_delta of the findings the table corrected (signed: what their corrections left owed)."""
    return func.coalesce(func.sum(case((F.c.corrected_by.is_not(None), F.c.amount_delta))), 0)


def _where(table: Table, q: Summary) -> ColumnElement[bool]:
    """``q``'s range, source and jurisdiction, on ``rounds`` or on ``findings`` (which carries copies of its
    round's)."""
    c = table.c
    conds: list[ColumnElement[bool]] = []
    if q.source is not None:
        conds.append(c.source == q.source)
    if q.jurisdiction is not None:
        conds.append(c.jurisdiction == q.jurisdiction)
    if q.played_from is not None:
        conds.append(c.played_at >= q.played_from)
    if q.played_to is not None:
        conds.append(c.played_at < q.played_to)
    return and_(True, *conds)


def _keys(group_by: GroupBy) -> tuple[ColumnElement[Any] | None, ColumnElement[Any]]:
    """The group's value for a round (None: by rule, a round is in no one group) and for a finding."""
    return {
        "rule": (None, F.c.rule),
        "table": (R.c.table_id, F.c.table_id),
        "dealer": (R.c.dealer_id, R.c.dealer_id),
        "shoe": (R.c.shoe_id, R.c.shoe_id),
        "day": (utc_day(R.c.played_at), utc_day(F.c.played_at)),
    }[group_by]


def raw_summary(session: Session, q: Summary, page: rollups.Page | None = None) -> Sequence[Row[Any]]:
    """The rows a summary is added up from, in no particular order, each with ``total`` (0: of the group ``key``;
    1: of the whole report) and the figures of :data:`FIGURES`: the rounds (and the voided ones) counted from
    ``rounds`` (the other figures 0), the rest from ``findings`` (which carries its round's source, jurisdiction,
    table and time: only the dealer and shoe are joined from ``rounds``; ``rounds`` 0). A group's, or the total's,
    figures are the sum of its rows. By ``rule`` the rounds are counted in the total only, and a rule's voided rounds
    from its findings' rounds. Findings, and whether a round was voided, are those of each round's latest audit. Call
    :func:`snapshot` first: its parts are statements of their own. ``page``: the groups' rows only of the first :attr:`Page.reads
    <app.store.rollups.Page.reads>` keys past its ``after``, of rounds and of findings each (the totals' whole)."""
    round_key, finding_key = _keys(q.group_by)
    zero: ColumnElement[Any] = literal_column("0")
    null: ColumnElement[Any] = literal_column("NULL")
    of_rounds, of_findings = _where(R, q), and_(_where(F, q), finding_is_latest())
    rounds = with_latest_audit()
    voided = func.count(latest_void_reason())
    # A finding carries its round's played_at: joined by both, each finding's round is read from its own month.
    of_its_round = and_(R.c.id == F.c.round_pk, R.c.played_at == F.c.played_at)
    findings: Any = F.join(R, of_its_round) if q.group_by in ("dealer", "shoe") else F
    voided_of_findings: ColumnElement[Any] = zero
    if q.group_by == "rule":
        # The voided rounds among a rule's: a subquery, so that its latest-audit join stays out of the finding's
        # own latest-audit test.
        void = (
            select(R.c.id, R.c.played_at)
            .select_from(rounds)
            .where(latest_void_reason().is_not(None))
            .subquery("voided")
        )
        findings = F.outerjoin(void, and_(void.c.id == F.c.round_pk, void.c.played_at == F.c.played_at))
        voided_of_findings = func.count(void.c.id.distinct())
    found = [
        func.count(F.c.round_pk.distinct()),
        func.count(),
        _owed(1),
        _owed(-1),
        func.count(F.c.corrected_by),
        _corrected_owed(),
    ]
    parts = [
        select(
            literal_column("1").label("total"),
            null.label("key"),
            func.count().label("rounds"),
            zero.label("rounds_with_findings"),
            zero.label("findings"),
            zero.label("owed_to_players"),
            zero.label("owed_by_players"),
            voided.label("voided_rounds"),
            zero.label("corrected_findings"),
            zero.label("corrected_still_owed"),
        )
        .select_from(rounds)
        .where(of_rounds),
        select(*_figures_row("1", [null, zero, *found[:4], zero, *found[4:]]))
        .select_from(F)
        .where(of_findings),
        _grouped(
            session,
            [finding_key, zero, *found[:4], voided_of_findings, *found[4:]],
            findings,
            of_findings,
            page,
        ),
    ]
    if round_key is not None:
        parts.append(
            _grouped(
                session, [round_key, func.count(), *([zero] * 4), voided, zero, zero], rounds, of_rounds, page
            )
        )
    # A statement each, in the caller's snapshot (:func:`snapshot`): as one UNION ALL, PostgreSQL 15 took 160-200 ms
    # over a part-day of 13,000 rounds at 10^7 where its four statements take 35 ms (a report's year by dealer or
    # shoe: the rounds' scan of the first part started 100 ms late, in that statement only).
    return [row for part in parts for row in session.execute(part).all()]


def _grouped(
    session: Session,
    columns: list[ColumnElement[Any]],
    from_: Any,
    where: ColumnElement[bool],
    page: rollups.Page | None,
) -> Select[Any]:
    """The rows of groups: ``columns`` (the key, then the :data:`FIGURES`) of ``from_`` where ``where``, grouped by
    the key; ``page``: only the first :attr:`~app.store.rollups.Page.reads` groups past the page's ``after``, in the
    groups' order (then a subquery, to be a part of a UNION ALL)."""
    key = columns[0]
    stmt = select(*_figures_row("0", columns))
    stmt = stmt.select_from(from_).where(where)
    if page is None:
        return stmt.group_by(key)
    ordered = rollups.in_code_points(session, key)
    paged = (
        stmt.where(page.past(key.is_(None), ordered))
        .group_by(key)
        .order_by(key.is_(None), ordered)
        .limit(page.reads)
        .subquery()
    )
    return select(paged)


def _figures_row(total: str, columns: Sequence[ColumnElement[Any]]) -> list[ColumnElement[Any]]:
    """A row of :func:`raw_summary`: ``total`` ("1": the whole report's; "0": a group's), then ``columns`` (the key,
    then the :data:`FIGURES`), labelled."""
    names = ("key", *FIGURES)
    return [literal_column(total).label("total"), *(c.label(n) for c, n in zip(columns, names, strict=True))]


FIGURES = (
    "rounds",
    "rounds_with_findings",
    "findings",
    "owed_to_players",
    "owed_by_players",
    "voided_rounds",
    "corrected_findings",
    "corrected_still_owed",
)
"""What :func:`summary`'s rows count, in their order."""


def raw_alerts(session: Session, q: Summary) -> int:
    """The alerts of ``q``'s rounds from the raw rows: the findings of each round's first audit (what the pit was
    alerted to, whatever a re-audit found later)."""
    return int(
        session.execute(
            select(func.count()).select_from(F).where(_where(F, q), F.c.audit_no == 1)
        ).scalar_one()
    )


def acknowledged(session: Session, q: Summary) -> list[tuple[datetime, datetime]]:
    """For each acknowledged alert of ``q``'s rounds: (its round's received_at, acknowledged_at)."""
    rows = session.execute(
        select(R.c.received_at, ACK.c.acknowledged_at)
        .select_from(ACK.join(keyed_rounds(), RK.c.id == ACK.c.round_pk))
        .where(_where(R, q))
    ).all()
    return [(r.received_at, r.acknowledged_at) for r in rows]


@dataclass(slots=True)
class Summed:
    """A summary's parts, to be added up: ``rows`` (total, key, the :data:`FIGURES`), and the alerts counted."""

    rows: list[tuple[bool, Any, list[int]]] = field(default_factory=list)
    alerts: int = 0


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time(), UTC)


def whole_days(q: Summary) -> tuple[rollups.Days | None, list[tuple[datetime | None, datetime | None]]]:
    """``q``'s range as the whole UTC days in it (None: not one) and the part-days at its ends, [from, to) each.

    >>> t = lambda *a: datetime(*a, tzinfo=UTC)
    >>> days, ends = whole_days(Summary("day", t(2026, 1, 1, 12), t(2026, 2, 1)))
    >>> days.first, days.end, ends
    (datetime.date(2026, 1, 2), datetime.date(2026, 2, 1), [(datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.timezone.utc), datetime.datetime(2026, 1, 2, 0, 0, tzinfo=datetime.timezone.utc))])
    >>> whole_days(Summary("day", t(2026, 1, 1, 12), t(2026, 1, 2, 6)))[0] is None
    True
    """
    start, stop = q.played_from, q.played_to
    first: date | None = None
    ends: list[tuple[datetime | None, datetime | None]] = []
    if start is not None:
        first = start.astimezone(UTC).date()
        if _day_start(first) != start:
            if first == date.max:
                return None, []
            first += timedelta(days=1)
            ends.append((start, _day_start(first)))
    end: date | None = None
    if stop is not None:
        end = stop.astimezone(UTC).date()
        if _day_start(end) != stop:
            ends.append((_day_start(end), stop))
    if first is not None and end is not None and first >= end:
        return None, []
    return rollups.Days(first, end, q.source, q.jurisdiction), ends


def summary(session: Session, q: Summary, *, raw: bool = False, page: rollups.Page | None = None) -> Summed:
    """The parts a summary is added up from, in no particular order (:func:`raw_summary` says what each figure
    counts): the rollups of the whole days of ``q``'s range, what the chain entries not yet rolled add to them, and
    the raw rows of the part-days at its ends; all of it raw when the range holds no whole day or the entries not
    yet rolled are too many (:data:`app.store.rollups.TAIL_LIMIT`); ``raw``: all of it raw (the definition, which
    the tests hold the rollups to); ``page``: the groups' rows of at least the first :attr:`Page.reads
    <app.store.rollups.Page.reads>` groups past its ``after`` (and of others), the totals' whole. Call
    :func:`snapshot` first."""
    days, ends = (None, []) if raw else whole_days(q)
    added = None if days is None else rollups.tail(session, days)
    if days is None or added is None:
        ends = [(q.played_from, q.played_to)]
    elif ends and session.get_bind().dialect.name == "postgresql":
        # A part-day is at most a day's rounds: parallel workers cost more to start (10-40 ms here) than they save.
        session.execute(text("SET LOCAL max_parallel_workers_per_gather = 0"))
    out = Summed()
    for start, stop in ends:
        part = Summary(q.group_by, start, stop, q.source, q.jurisdiction)
        for row in raw_summary(session, part, page):
            out.rows.append((bool(int(row.total)), row.key, [int(row._mapping[c]) for c in FIGURES]))
        out.alerts += raw_alerts(session, part)
    if days is None or added is None:
        return out
    n = len(FIGURES)
    for dim in ("total", q.group_by):
        for key, figures in rollups.stored(session, days, dim, page):
            out.rows.append((dim == "total", key, figures[:n]))
            if dim == "total":
                out.alerts += figures[n]
    for (day, _, _, dim, key), figures in added.items():
        if dim == "all":
            out.rows.append((True, None, figures[:n]))
            out.alerts += figures[n]
            if q.group_by == "day":
                out.rows.append((False, day.isoformat(), figures[:n]))
        elif dim == q.group_by:
            out.rows.append((False, key, figures[:n]))
    return out
