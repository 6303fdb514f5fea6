"""Rollups of the reports: each UTC day's figures per source and jurisdiction, in total and per table, dealer, shoe
and rule, kept up to date from the sources' hash chains (issue 21).

A summary report over a year at 10^7 rounds cannot add up every round and finding when it is asked: it adds up
these rows instead (a few per table and day) and reads the raw rows only where the rollups cannot answer:

- **The chain is the log of what to add.** Every stored round and every re-audit is an entry of its source's chain,
  appended in the transaction that stores it and numbered in the order of commit. A roller (:func:`roll`) reads a
  source's entries past its cursor (``rollup_cursors``), adds what each contributes to ``report_rollups`` and moves
  the cursor, in one transaction. A round contributes its first audit's figures; a re-audit (audit ``n``) the
  difference between its figures and audit ``n - 1``'s. However the entries are grouped into passes, the rollups
  then hold, for every round rolled, the figures of its latest audit — the report's definition.
- **Exact at every moment.** A report reads, in one snapshot: the rollups of the whole days of its range, the entries
  not yet rolled (the tail: what each contributes, computed here the same way), and the raw rows of the part-days at
  the range's ends (:mod:`app.store.reports`). Nothing is approximate, and a report never waits for the roller.

Contributions are computed in Python from the rows (:func:`contributions`), one function for the roller and for the
tail, so that the two cannot disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    and_,
    any_,
    bindparam,
    cast,
    false,
    func,
    literal,
    or_,
    select,
    text,
    true,
    tuple_,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from app.store.models import audits_table as A
from app.store.models import chain_entries_table as CE
from app.store.models import chain_heads_table as CH
from app.store.models import findings_table as F
from app.store.models import report_rollups_table as RU
from app.store.models import rollup_cursors_table as RC
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R
from app.store.rounds import keyed_rounds

FIGURES = (
    "rounds",
    "rounds_with_findings",
    "findings",
    "owed_to_players",
    "owed_by_players",
    "voided_rounds",
    "corrected_findings",
    "corrected_still_owed",
    "alerts",
)
"""What a rollup row counts: the report's figures (:data:`app.store.reports.FIGURES`, in their order), then the
alerts (findings of rounds' first audits, whatever a re-audit found later)."""

DIMENSIONS = ("all", "table", "dealer", "shoe", "rule")
"""``all``: the day's totals (one row; the report by day reads them); the others: one row per group of the day."""

Figures = tuple[int, ...]
GroupKey = tuple[date, str, str, str, str | None]
"""(day, source, jurisdiction, dimension, key)."""

PASS_ENTRIES = 2000
"""Entries a roller adds in one transaction."""


@dataclass(frozen=True, slots=True)
class Coordinates:
    """What places a round in the rollups."""

    day: date
    source: str
    jurisdiction: str
    table_id: str
    dealer_id: str | None
    shoe_id: str | None


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    amount_delta: int | None
    corrected_by: int | None


def _figures(findings: Sequence[Finding], voided: bool, rounds: int, alerts: int) -> list[int]:
    owed_to = owed_by = corrected = corrected_owed = 0
    for f in findings:
        d = f.amount_delta
        if d is not None:
            if d > 0:
                owed_to += d
            elif d < 0:
                owed_by -= d
        if f.corrected_by is not None:
            corrected += 1
            corrected_owed += d or 0
    return [
        rounds,
        1 if findings else 0,
        len(findings),
        owed_to,
        owed_by,
        int(voided),
        corrected,
        corrected_owed,
        alerts,
    ]


def contributions(
    at: Coordinates, findings: Sequence[Finding], voided: bool, first: bool
) -> dict[GroupKey, list[int]]:
    """What one audit of a round adds to each rollup row: the round in its day's total, its table's, dealer's and
    shoe's rows (a round, voided or not, with or without findings), and in the row of each rule it has findings of
    (as the report by rule counts: rounds with findings of the rule, their findings and money, the voided among
    them). ``first``: the round's first audit, whose findings are the alerts."""
    day, source, jur = at.day, at.source, at.jurisdiction
    whole = _figures(findings, voided, 1, len(findings) if first else 0)
    out: dict[GroupKey, list[int]] = {(day, source, jur, "all", ""): whole}
    one = [*whole[:-1], 0]
    for dim, key in (("table", at.table_id), ("dealer", at.dealer_id), ("shoe", at.shoe_id)):
        out[(day, source, jur, dim, key)] = one
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_rule[f.rule].append(f)
    for rule, of_rule in by_rule.items():
        out[(day, source, jur, "rule", rule)] = [0, *_figures(of_rule, voided, 0, 0)[1:]]
    return out


def add(into: dict[GroupKey, list[int]], part: Mapping[GroupKey, Sequence[int]], sign: int = 1) -> None:
    for key, figures in part.items():
        row = into.get(key)
        if row is None:
            into[key] = [sign * v for v in figures]
        else:
            for i, v in enumerate(figures):
                row[i] += sign * v


def utc_date(ts: datetime) -> date:
    return ts.astimezone(UTC).date()


# --- what entries contribute ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    source: str
    seq: int
    kind: str
    ref_id: int


def entries_after(session: Session, source: str, seq: int, limit: int) -> list[Entry]:
    """``source``'s chain entries past ``seq`` that change a report (rounds and re-audits), at most ``limit`` entries
    read (registrations included: the caller's position moves past them)."""
    rows = session.execute(
        select(CE.c.seq, CE.c.kind, CE.c.ref_id)
        .where(CE.c.source == source, CE.c.seq > seq)
        .order_by(CE.c.seq)
        .limit(limit)
    ).all()
    return [Entry(source, int(r.seq), r.kind, int(r.ref_id)) for r in rows]


def _among(session: Session, column: Any, ids: Sequence[int]) -> Any:
    """``column IN ids``: on PostgreSQL one array parameter (``= ANY``), not a parameter per id."""
    if session.get_bind().dialect.name == "postgresql":
        return column == any_(bindparam(None, list(ids), type_=postgresql.ARRAY(BigInteger())))
    return column.in_(ids)


def delta(session: Session, entries: Iterable[Entry]) -> dict[GroupKey, list[int]]:
    """What ``entries`` add to the rollups: each round's first audit; each re-audit ``n`` its figures less those of
    audit ``n - 1``. Rows the entries name that are gone (tampering, which ``bjaudit verify`` reports) add nothing."""
    round_ids = [e.ref_id for e in entries if e.kind == "round"]
    audit_ids = [e.ref_id for e in entries if e.kind == "audit"]
    audits: dict[int, Any] = {}
    if audit_ids:
        for row in session.execute(
            select(A.c.id, A.c.round_pk, A.c.audit_no, A.c.void_reason).where(
                _among(session, A.c.id, audit_ids)
            )
        ):
            audits[int(row.id)] = row
    wanted: set[tuple[int, int]] = {(pk, 1) for pk in round_ids}  # (round, audit_no) whose figures are needed
    for row in audits.values():
        wanted.update({(int(row.round_pk), int(row.audit_no)), (int(row.round_pk), int(row.audit_no) - 1)})
    if not wanted:
        return {}
    pks = sorted({pk for pk, _ in wanted})
    at: dict[int, Coordinates] = {}
    voided: dict[tuple[int, int], bool] = {}
    for row in session.execute(
        select(
            R.c.id,
            R.c.played_at,
            R.c.source,
            R.c.jurisdiction,
            R.c.table_id,
            R.c.dealer_id,
            R.c.shoe_id,
            R.c.void_reason,
        )
        .select_from(keyed_rounds())  # by their keys: each round read from its own month
        .where(_among(session, RK.c.id, pks))
    ):
        pk = int(row.id)
        at[pk] = Coordinates(
            utc_date(row.played_at), row.source, row.jurisdiction, row.table_id, row.dealer_id, row.shoe_id
        )
        voided[(pk, 1)] = row.void_reason is not None
    later = [(pk, n) for pk, n in wanted if n >= 2 and (pk, n) not in voided]
    if later:
        for row in session.execute(
            select(A.c.round_pk, A.c.audit_no, A.c.void_reason).where(
                tuple_(A.c.round_pk, A.c.audit_no).in_(later)
            )
        ):
            voided[(int(row.round_pk), int(row.audit_no))] = row.void_reason is not None
    found: dict[tuple[int, int], list[Finding]] = defaultdict(list)
    for row in session.execute(
        select(F.c.round_pk, F.c.audit_no, F.c.rule, F.c.amount_delta, F.c.corrected_by)
        .select_from(RK.join(F, and_(F.c.round_pk == RK.c.id, F.c.played_at == RK.c.played_at)))
        .where(_among(session, RK.c.id, pks))
        .order_by(F.c.round_pk, F.c.audit_no, F.c.seq)
    ):
        key = (int(row.round_pk), int(row.audit_no))
        if key in wanted:
            found[key].append(Finding(row.rule, row.amount_delta, row.corrected_by))

    def of(pk: int, n: int, alerted: bool = False) -> dict[GroupKey, list[int]]:
        return contributions(at[pk], found.get((pk, n), []), voided.get((pk, n), False), alerted)

    out: dict[GroupKey, list[int]] = {}
    for e in entries:
        if e.kind == "round" and e.ref_id in at:
            add(out, of(e.ref_id, 1, alerted=True))  # the alerts are the first audit's, for good
        elif e.kind == "audit" and e.ref_id in audits:
            row = audits[e.ref_id]
            pk, n = int(row.round_pk), int(row.audit_no)
            if pk in at:
                add(out, of(pk, n))
                add(out, of(pk, n - 1), -1)
    return out


# --- the roller -----------------------------------------------------------------------------------------------------

_UPSERT = text(
    f"INSERT INTO {RU.name} (span, day, source, jurisdiction, dim, null_key, key, {', '.join(FIGURES)}) "
    f"VALUES (:span, :day, :source, :jurisdiction, :dim, :null_key, :key, {', '.join(':' + f for f in FIGURES)}) "
    "ON CONFLICT (span, dim, day, source, jurisdiction, null_key, key) DO UPDATE SET "
    + ", ".join(f"{f} = {RU.name}.{f} + excluded.{f}" for f in FIGURES)
).bindparams(bindparam("day", type_=RU.c.day.type))


_START = text(f"INSERT INTO {RC.name} (source, seq) VALUES (:source, 0) ON CONFLICT (source) DO NOTHING")


_PG_UPSERT = (
    f"INSERT INTO {RU.name} (span, day, source, jurisdiction, dim, null_key, key, {', '.join(FIGURES)}) "
    "SELECT * FROM unnest(%(span)b::text[], %(day)b::date[], %(source)b::text[], %(jurisdiction)b::text[], %(dim)b::text[], "
    f"%(null_key)b::boolean[], %(key)b::text[], {', '.join(f'%({f})b::bigint[]' for f in FIGURES)}) "
    "ON CONFLICT (span, dim, day, source, jurisdiction, null_key, key) DO UPDATE SET "
    + ", ".join(f"{f} = {RU.name}.{f} + excluded.{f}" for f in FIGURES)
)
"""PostgreSQL: every row of a pass in one statement (a column an array, sent in binary), where a row a statement cost
≈ 50 µs each."""


MONTHLY = ("all", "table", "dealer", "rule")
"""The dimensions also added up per month (a report over a year reads 12 rows a group, not 365); not the shoes,
which a day holds whole."""


def _with_months(rows: Mapping[GroupKey, Sequence[int]]) -> dict[tuple[str, GroupKey], list[int]]:
    """``rows`` (a day each) and their sums per month (the month's first day), by span."""
    out: dict[tuple[str, GroupKey], list[int]] = {}
    for key, figures in rows.items():
        if not any(figures):
            continue
        out[("day", key)] = list(figures)
        if key[3] in MONTHLY:
            month = ("month", (key[0].replace(day=1), *key[1:]))
            have = out.get(month)
            if have is None:
                out[month] = list(figures)
            else:
                for i, v in enumerate(figures):
                    have[i] += v
    return out


def _store(session: Session, rows: Mapping[GroupKey, Sequence[int]]) -> None:
    spans = _with_months(rows)
    if session.get_bind().dialect.name == "postgresql":
        ordered = [
            kv for kv in sorted(spans.items(), key=lambda kv: (kv[0][0], *_order(kv[0][1]))) if any(kv[1])
        ]
        if ordered:
            keys = [k for (_, k), _ in ordered]
            columns: dict[str, list[Any]] = {
                "span": [span for (span, _), _ in ordered],
                "day": [k[0] for k in keys],
                "source": [k[1] for k in keys],
                "jurisdiction": [k[2] for k in keys],
                "dim": [k[3] for k in keys],
                "null_key": [k[4] is None for k in keys],
                "key": ["" if k[4] is None else k[4] for k in keys],
            }
            for i, f in enumerate(FIGURES):
                columns[f] = [v[i] for _, v in ordered]
            session.connection().exec_driver_sql(_PG_UPSERT, columns)
        return
    params = [
        {
            "span": span,
            "day": day,
            "source": source,
            "jurisdiction": jur,
            "dim": dim,
            "null_key": key is None,
            "key": "" if key is None else key,
            **dict(zip(FIGURES, figures, strict=True)),
        }
        for (span, (day, source, jur, dim, key)), figures in sorted(
            spans.items(), key=lambda kv: (kv[0][0], *_order(kv[0][1]))
        )
        if any(figures)
    ]
    if params:
        session.execute(_UPSERT, params)


def _order(key: GroupKey) -> tuple[Any, ...]:
    # One order of row locks for every roller (a source is rolled by one at a time; kept for safety).
    day, source, jur, dim, k = key
    return (day, source, jur, dim, k is None, k or "")


def cursors(session: Session, source: str | None = None) -> dict[str, tuple[int, int]]:
    """Each source's rollup cursor (the last chain entry added) and chain head, for every source with a chain (or
    ``source`` only)."""
    stmt = select(CH.c.source, func.coalesce(RC.c.seq, 0).label("cursor"), CH.c.seq).select_from(
        CH.outerjoin(RC, RC.c.source == CH.c.source)
    )
    if source is not None:
        stmt = stmt.where(CH.c.source == source)
    return {row.source: (int(row.cursor), int(row.seq)) for row in session.execute(stmt)}


def behind(session: Session) -> list[str]:
    """The sources whose chain has entries past their rollup cursor."""
    return list(
        session.execute(
            select(CH.c.source)
            .select_from(CH.outerjoin(RC, RC.c.source == CH.c.source))
            .where(CH.c.seq > func.coalesce(RC.c.seq, 0))
            .order_by(CH.c.source)
        ).scalars()
    )


def lag(session: Session) -> int:
    """The chain entries of every source past its rollup cursor."""
    behind = select(func.coalesce(func.sum(CH.c.seq - func.coalesce(RC.c.seq, 0)), 0)).select_from(
        CH.outerjoin(RC, RC.c.source == CH.c.source)
    )
    return int(session.execute(behind).scalar_one())


def roll(session: Session, source: str, limit: int = PASS_ENTRIES) -> int | None:
    """Add ``source``'s next entries (at most ``limit``) to the rollups and move its cursor, in the caller's
    transaction (commit it). The number of entries read; 0 when the rollups are up to date; None when another roller
    holds the source (PostgreSQL) or moved its cursor first: the caller's transaction must then be rolled back."""
    session.execute(_START, {"source": source})
    held = session.execute(
        select(RC.c.seq).where(RC.c.source == source).with_for_update(skip_locked=True)
    ).scalar_one_or_none()
    if held is None:
        return None
    start = int(held)
    entries = entries_after(session, source, start, limit)
    if not entries:
        return 0
    moved = session.execute(
        RC.update()
        .where(RC.c.source == source, RC.c.seq == start)
        .values(seq=entries[-1].seq)
        .returning(RC.c.seq)
    ).first()
    if moved is None:  # SQLite: another roller moved it between our read and our write
        return None
    _store(session, delta(session, entries))
    return len(entries)


def add_rolled(session: Session, rows: Mapping[GroupKey, Sequence[int]]) -> None:
    """Add ``rows`` (:func:`delta` of entries the rollers have passed) to the rollups, in the caller's transaction:
    a month restored from an archive (app/usecases/retention.py)."""
    _store(session, rows)


# --- reading: the rollups and the tail ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Days:
    """The whole UTC days of a report's range, [first, end) (either open), of one source and jurisdiction or all."""

    first: date | None
    end: date | None
    source: str | None
    jurisdiction: str | None

    def holds(self, key: GroupKey) -> bool:
        day, source, jur = key[0], key[1], key[2]
        return (
            (self.first is None or day >= self.first)
            and (self.end is None or day < self.end)
            and (self.source is None or source == self.source)
            and (self.jurisdiction is None or jur == self.jurisdiction)
        )


TAIL_LIMIT = 50_000
"""Past this many entries not yet rolled (a store being caught up after an upgrade, a roller stopped), a report adds
up the raw rows instead (:func:`tail`'s None): slower, as exact."""


def tail(session: Session, days: Days) -> dict[GroupKey, list[int]] | None:
    """What the entries past the cursors add to the rows of ``days``; None when they are more than
    :data:`TAIL_LIMIT`."""
    at = cursors(session, days.source)
    if sum(max(0, head - seq) for seq, head in at.values()) > TAIL_LIMIT:
        return None
    out: dict[GroupKey, list[int]] = {}
    for source, (seq, _) in at.items():
        while True:
            entries = entries_after(session, source, seq, PASS_ENTRIES)
            if not entries:
                break
            add(out, {k: v for k, v in delta(session, entries).items() if days.holds(k)})
            seq = entries[-1].seq
    return out


def _month_after(day: date) -> date | None:
    return (
        None
        if (day.year, day.month) == (9999, 12)
        else date(day.year + day.month // 12, day.month % 12 + 1, 1)
    )


def _spans(days: Days) -> Any:
    """The rows that add up to ``days``: the months wholly inside it from their month's rows, the other days from
    their day's (all of them from the days' when no whole month is inside)."""
    first, end = days.first, days.end
    m1 = first if first is None or first.day == 1 else _month_after(first)
    m2 = None if end is None else end.replace(day=1)
    if (first is not None and m1 is None) or (m1 is not None and m2 is not None and m1 >= m2):
        return and_(RU.c.span == "day", *_between(first, end))
    parts = [and_(RU.c.span == "month", *_between(m1, m2))]
    if m1 is not None and first is not None and first < m1:
        parts.append(and_(RU.c.span == "day", *_between(first, m1)))
    if m2 is not None and end is not None and m2 < end:
        parts.append(and_(RU.c.span == "day", *_between(m2, end)))
    return or_(*parts)


def _between(first: date | None, end: date | None) -> list[Any]:
    conds = []
    if first is not None:
        conds.append(RU.c.day >= first)
    if end is not None:
        conds.append(RU.c.day < end)
    return conds


@dataclass(frozen=True, slots=True)
class Page:
    """A page of a report's groups, in the groups' order: keys in code point order (days in time order), the null
    key last. ``after``: the last group of the page before, as (its key is null, its key); None: from the first.
    Each part a report is added up from reads at most ``limit + 1`` of its groups past ``after`` (:meth:`reads`): the
    first ``limit + 1`` groups of their union are then whole, enough for a page and to know whether more follow."""

    limit: int
    after: tuple[bool, str] | None = None

    @property
    def reads(self) -> int:
        return self.limit + 1

    def follows(self, key: str | None) -> bool:
        """Whether the group of ``key`` comes after :attr:`after`."""
        if self.after is None:
            return True
        null, last = self.after
        return not null and (key is None or key > last)

    def past(self, is_null: ColumnElement[bool], key: ColumnElement[Any]) -> ColumnElement[bool]:
        """:meth:`follows` in SQL, of a key column (in code point order: see :func:`in_code_points`) and whether it
        is null."""
        if self.after is None:
            return true()
        null, last = self.after
        return false() if null else or_(is_null, key > last)


def in_code_points(session: Session, key: ColumnElement[Any]) -> ColumnElement[Any]:
    """``key`` compared and ordered by code point, as Python orders strings: PostgreSQL's ``"C"`` collation (UTF-8
    bytes in order are code points in order), SQLite's default (its BINARY collation compares the bytes)."""
    return key.collate("C") if session.get_bind().dialect.name == "postgresql" else key


def stored(session: Session, days: Days, dim: str, page: Page | None = None) -> list[tuple[Any, list[int]]]:
    """The rollups of ``days`` added up per key of ``dim`` (``day``: the day's totals per day; ``total``: one row),
    as (key, figures); ``page``: only the first :attr:`Page.reads` keys past its ``after``, in order (by shoe, an
    index walk in key order: a year holds hundreds of thousands of shoes)."""
    # bigint sums (PostgreSQL's sum of bigint is numeric, read as Decimal): no sum comes near 2^63 minor units
    figures = [cast(func.sum(RU.c[f]), BigInteger).label(f) for f in FIGURES]
    conds = [RU.c.dim == ("all" if dim in ("day", "total") else dim)]
    if dim == "day" or dim == "shoe":
        conds += [RU.c.span == "day", *_between(days.first, days.end)]
    else:
        conds.append(_spans(days))
    if days.source is not None:
        conds.append(RU.c.source == days.source)
    if days.jurisdiction is not None:
        conds.append(RU.c.jurisdiction == days.jurisdiction)
    if dim == "total":
        stmt = select(literal(None).label("null_key"), literal("").label("key"), *figures).where(*conds)
    elif dim == "day":
        if page is not None and page.after is not None:
            conds.append(false() if page.after[0] else RU.c.day > date.fromisoformat(page.after[1]))
        stmt = (
            select(literal(False).label("null_key"), RU.c.day.label("key"), *figures)
            .where(*conds)
            .group_by(RU.c.day)
            .order_by(RU.c.day)
        )
    else:
        key = in_code_points(session, RU.c.key)
        if page is not None and page.after is not None:
            # one row comparison (false < true: the null key last), which the index of the keys walks from
            null, last = page.after
            conds.append(tuple_(RU.c.null_key, key) > tuple_(literal(null), literal(last)))
        stmt = (
            select(RU.c.null_key, key.label("key"), *figures)
            .where(*conds)
            .group_by(RU.c.null_key, key)
            .order_by(RU.c.null_key, key)
        )
    if page is not None and dim != "total":
        stmt = stmt.limit(page.reads)
    out = []
    for null_key, key_value, *values in session.execute(stmt).tuples():
        if values[0] is None:  # no row: the sums of nothing
            values = [0] * len(FIGURES)
        out.append(
            (
                key_value.isoformat() if isinstance(key_value, date) else None if null_key else key_value,
                values,
            )
        )
    return out
