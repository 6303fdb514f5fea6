"""The rounds repository: SQLAlchemy Core on the caller's session. Nothing here commits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import (
    Column,
    ColumnElement,
    Row,
    Select,
    TextClause,
    and_,
    bindparam,
    case,
    exists,
    func,
    literal,
    or_,
    select,
    text,
    tuple_,
    union_all,
)
from sqlalchemy.orm import Session

from app.domain.model import Round
from app.store.db import snapshot
from app.store.models import audits_table as A
from app.store.models import chain_entries_table as CE
from app.store.models import findings_table as F
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R

_UNIQUE = ("round_id", "source", "jurisdiction")
_KEY = (*_UNIQUE, "played_at")


def _insert_statements() -> tuple[TextClause, TextClause]:
    # Text, not the dialects' insert(): their ON CONFLICT constructs are not cached by SQLAlchemy and would be
    # compiled on every request. The statements are the same on PostgreSQL and SQLite (3.35+).
    key_cols = [RK.c[c] for c in _KEY]
    key = text(
        f"INSERT INTO {RK.name} ({', '.join(_KEY)}) VALUES ({', '.join(':' + c for c in _KEY)}) "
        f"ON CONFLICT ({', '.join(_UNIQUE)}) DO NOTHING RETURNING id"
    ).bindparams(*[bindparam(c.name, type_=c.type) for c in key_cols])
    cols = list(R.c)
    round_ = text(
        f"INSERT INTO {R.name} ({', '.join(c.name for c in cols)}) VALUES ({', '.join(':' + c.name for c in cols)})"
    ).bindparams(*[bindparam(c.name, type_=c.type) for c in cols])
    return key, round_


_INSERT_KEY, _INSERT_ROUND = _insert_statements()


def insert_round(session: Session, values: Mapping[str, Any]) -> int | None:
    """Insert a round; its primary key, or ``None`` when (round_id, source, jurisdiction) is already taken.

    Race-safe: the key's unique constraint decides (``INSERT INTO round_keys ... ON CONFLICT DO NOTHING``), and the
    round is inserted only under a key inserted now. On PostgreSQL a concurrent insert of the same key waits for the
    other transaction and then does nothing if that one committed.
    """
    pk: int | None = session.execute(_INSERT_KEY, {c: values[c] for c in _KEY}).scalar_one_or_none()
    if pk is not None:
        session.execute(_INSERT_ROUND, {**values, "id": pk})
    return pk


def keyed_rounds() -> Any:
    """``round_keys`` joined with the rounds they key, by (id, played_at): a round found by its key is read from one
    partition (PostgreSQL prunes the others by the key's ``played_at``)."""
    return RK.join(R, and_(R.c.id == RK.c.id, R.c.played_at == RK.c.played_at))


def finding_rows(
    round_pk: int, findings: Sequence[Mapping[str, Any]], source: str, rnd: Round, audit_no: int = 1
) -> list[dict[str, Any]]:
    """The ``findings`` rows of one stored round's audit ``audit_no`` (1: the audit stored with the round; shared by
    single submissions, batches and re-audits)."""
    return [
        {
            "round_pk": round_pk,
            "seq": i,
            "rule": f["rule"],
            "also_cited_as": orjson.dumps(list(f["also_cited_as"])).decode()
            if f.get("also_cited_as")
            else None,
            "citation_status": f["citation_status"],
            "category": f["category"],
            "event_index": f.get("event"),
            "hand": f.get("hand"),
            "amount_delta": f.get("amount_delta"),
            "source": source,
            "jurisdiction": rnd.jurisdiction,
            "table_id": rnd.table_id,
            "played_at": rnd.played_at,
            "audit_no": audit_no,
            "corrected_by": f.get("corrected_by"),
            "corrected_actual": f.get("corrected_actual"),
        }
        for i, f in enumerate(findings)
    ]


def insert_findings(session: Session, rows: Sequence[Mapping[str, Any]]) -> None:
    if rows:
        session.execute(F.insert(), list(rows))


@dataclass(frozen=True, slots=True)
class Stored:
    pk: int
    record_sha256: str
    audit: str


def stored_submission(session: Session, round_id: str, source: str, jurisdiction: str) -> Stored | None:
    row = session.execute(
        select(R.c.id, R.c.record_sha256, R.c.audit)
        .select_from(keyed_rounds())
        .where(RK.c.round_id == round_id, RK.c.source == source, RK.c.jurisdiction == jurisdiction)
    ).one_or_none()
    return None if row is None else Stored(row.id, row.record_sha256, row.audit)


# --- the latest audit --------------------------------------------------------------------------------------------
# A round's audits: 1, stored with it (``rounds``), then 2, 3 ... (``audits``), each with its own findings rows
# (``findings.audit_no``). What is searched and reported is the latest of each round.

_LATER = A.alias("later")


def finding_is_latest(*, probed: bool = False) -> ColumnElement[bool]:
    """A findings row is of its round's latest audit: no audit of the round has a greater number. ``probed``: asked
    row by row (OFFSET 0 keeps PostgreSQL from planning it as a join that reads every audit), for a walk that stops
    early."""
    later = select(literal(1)).where(A.c.round_pk == F.c.round_pk, A.c.audit_no > F.c.audit_no)
    return ~exists(later.offset(0) if probed else later)


def with_latest_audit() -> Any:
    """``rounds`` left-joined with each round's latest re-audit (``audits`` columns all NULL for a round never
    re-audited): read the audit's columns with :func:`latest`."""
    return R.outerjoin(
        A,
        and_(
            A.c.round_pk == R.c.id,
            ~exists().where(_LATER.c.round_pk == A.c.round_pk, _LATER.c.audit_no > A.c.audit_no),
        ),
    )


def latest_void_reason() -> ColumnElement[Any]:
    """The latest audit's ``void_reason`` of a round (NULL: not voided), in a query over :func:`with_latest_audit`.
    Not :func:`latest`'s COALESCE: a re-audit that finds the round not voided has a NULL of its own."""
    return case((A.c.id.is_not(None), A.c.void_reason), else_=R.c.void_reason)


def latest(column: str) -> ColumnElement[Any]:
    """The latest audit's ``column`` (verdict, ruleset, engine_version, finding_count, audit ...) of a round, in a
    query over :func:`with_latest_audit`; ``audit_no``: 1 for a round never re-audited."""
    if column == "audit_no":
        return func.coalesce(A.c.audit_no, 1).label("audit_no")
    return func.coalesce(A.c[column], R.c[column]).label(column)


LOOKUP_COLUMNS = (
    R.c.id,
    R.c.round_id,
    R.c.source,
    R.c.jurisdiction,
    R.c.table_id,
    R.c.played_at,
    R.c.received_at,
    R.c.record,
    R.c.record_sha256,
    R.c.ruleset,
    R.c.audit,
    CE.c.seq.label("chain_seq"),
    CE.c.hash.label("chain_hash"),
    select(func.max(A.c.audit_no)).where(A.c.round_pk == R.c.id).scalar_subquery().label("latest_no"),
)
"""The round as stored (its first audit), its chain entry, and the number of its latest re-audit (NULL: none;
:func:`audits_of` reads them)."""


def _lookup_statement(by_source: bool, by_jurisdiction: bool) -> Select[Any]:
    stmt = (
        select(*LOOKUP_COLUMNS)
        .select_from(keyed_rounds().outerjoin(CE, (CE.c.kind == "round") & (CE.c.ref_id == R.c.id)))
        .where(RK.c.round_id == bindparam("round_id"))
    )
    if by_source:
        stmt = stmt.where(RK.c.source == bindparam("source"))
    if by_jurisdiction:
        stmt = stmt.where(RK.c.jurisdiction == bindparam("jurisdiction"))
    return stmt.order_by(RK.c.source, RK.c.jurisdiction).limit(10)


_LOOKUP = {(s, j): _lookup_statement(s, j) for s in (False, True) for j in (False, True)}


def find_rounds(
    session: Session, round_id: str, source: str | None, jurisdiction: str | None
) -> Sequence[Row[Any]]:
    """The rounds stored under ``round_id`` (one per submitter and jurisdiction; at most 10), narrowed by either
    if given."""
    stmt = _LOOKUP[(source is not None, jurisdiction is not None)]
    params = {"round_id": round_id, "source": source, "jurisdiction": jurisdiction}
    return session.execute(stmt, {k: v for k, v in params.items() if v is not None}).all()


ARCHIVED_SQL = (
    "SELECT k.round_id, k.source, k.jurisdiction, a.path, a.archived_at FROM round_keys k JOIN archives a "
    "ON a.month = date_trunc('month', k.played_at, 'UTC') AND a.restored_at IS NULL "
    "WHERE k.round_id = %(round_id)s AND (CAST(%(source)s AS text) IS NULL OR k.source = %(source)s) "
    "AND (CAST(%(jurisdiction)s AS text) IS NULL OR k.jurisdiction = %(jurisdiction)s) ORDER BY a.id DESC LIMIT 1"
)
"""A round whose key is known and whose month is archived (PostgreSQL: archives are made there only)."""


def archived(
    session: Session, round_id: str, source: str | None, jurisdiction: str | None
) -> Row[Any] | None:
    """Where a round that is not stored went, if its month was archived (:data:`ARCHIVED_SQL`)."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    sql = ARCHIVED_SQL.replace("%(round_id)s", ":round_id").replace("%(source)s", ":source")
    sql = sql.replace("%(jurisdiction)s", ":jurisdiction")
    return session.execute(
        text(sql), {"round_id": round_id, "source": source, "jurisdiction": jurisdiction}
    ).first()


AUDIT_COLUMNS = (A.c.audit_no, A.c.created_at, A.c.reaudit_id, A.c.audit, CE.c.seq.label("chain_seq"))


def audits_of(session: Session, round_pk: int) -> Sequence[Row[Any]]:
    """A round's re-audits (2, 3 ...), in order, each with its chain position."""
    return session.execute(
        select(*AUDIT_COLUMNS)
        .select_from(A.outerjoin(CE, (CE.c.kind == "audit") & (CE.c.ref_id == A.c.id)))
        .where(A.c.round_pk == round_pk)
        .order_by(A.c.audit_no)
    ).all()


@dataclass(frozen=True, slots=True)
class Search:
    table: str | None = None
    dealer: str | None = None
    shoe: str | None = None
    rule: str | None = None
    verdict: str | None = None
    jurisdiction: str | None = None
    source: str | None = None
    played_from: datetime | None = None
    played_to: datetime | None = None
    corrected: bool | None = None
    """With findings corrected at the table (True) or not (False): the rounds with a finding (under ``rule``, if
    given) whose ``corrected_by`` is set, or not."""
    voided: bool | None = None
    """Rounds declared void (True) or not (False), by their latest audit."""
    after: tuple[datetime, int] | None = None
    """Keyset cursor: the (played_at, id) of the last row of the previous page."""
    within: tuple[tuple[int, datetime], ...] | None = None
    """Only these rounds, by (id, played_at): a stretch of the rule's findings walked by :func:`search_rounds`."""


SEARCH_COLUMNS = (
    R.c.id,
    R.c.round_id,
    R.c.source,
    R.c.jurisdiction,
    R.c.table_id,
    R.c.played_at,
    R.c.received_at,
    latest("verdict"),
    latest("ruleset"),
    latest("engine_version"),
    latest("finding_count"),
    R.c.record_sha256,
    latest_void_reason().label("void_reason"),
)


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_conditions(q: Search) -> list[Any]:
    """``q`` as conditions on ``rounds`` (a verdict's and a void's on :func:`with_latest_audit`, which they then
    need)."""
    conds: list[Any] = []
    if q.table is not None:
        conds.append(R.c.table_id == q.table)
    if q.dealer is not None:
        conds.append(R.c.dealer_id == q.dealer)
    if q.shoe is not None:
        conds.append(R.c.shoe_id == q.shoe)
    if q.verdict is not None:
        conds.append(func.coalesce(A.c.verdict, R.c.verdict) == q.verdict)
    if q.jurisdiction is not None:
        conds.append(R.c.jurisdiction == q.jurisdiction)
    if q.source is not None:
        conds.append(R.c.source == q.source)
    if q.played_from is not None:
        conds.append(R.c.played_at >= q.played_from)
    if q.played_to is not None:
        conds.append(R.c.played_at < q.played_to)
    if q.voided is not None:
        void = latest_void_reason()
        conds.append(void.is_not(None) if q.voided else void.is_(None))
    found = finding_conditions(q)  # one finding must meet them all
    if found:
        of_round = (F.c.round_pk == R.c.id, F.c.played_at == R.c.played_at, *found, finding_is_latest())
        # Looked for round by round, newest first (OFFSET 0 keeps the subquery from being planned as a join):
        # over monthly partitions PostgreSQL misjudged that join and read every round (corrected=true at 10^6:
        # 55 ms before partitions, 700 ms after, 18 ms so); each probe reads the round's own month. The search by
        # rule does not come here: it walks the rule's findings (:func:`search_rounds`).
        conds.append(exists(select(literal(1)).where(*of_round).offset(0)))
    if q.within is not None:
        conds.append(tuple_(R.c.id, R.c.played_at).in_(q.within))
    if q.after is not None:
        conds.append(tuple_(R.c.played_at, R.c.id) < q.after)
    return conds


def finding_conditions(q: Search) -> list[Any]:
    """What one finding of a round's latest audit must meet for ``q``: cite ``rule`` (as its rule, or in
    ``also_cited_as``), be corrected or not."""
    found: list[Any] = []
    if q.rule is not None:
        cited = F.c.also_cited_as.like(f'%"{_like_escape(q.rule)}"%', escape="\\")
        found.append(or_(F.c.rule == q.rule, cited))
    if q.corrected is not None:
        found.append(F.c.corrected_by.is_not(None) if q.corrected else F.c.corrected_by.is_(None))
    return found


_NEWEST = (R.c.played_at.desc(), R.c.id.desc())
_OWN_COLUMNS = [c if isinstance(c, Column) else R.c[c.name].label(c.name) for c in SEARCH_COLUMNS]
"""The search's columns of a round never re-audited: its own."""
_LATER_COLUMNS = [c if isinstance(c, Column) else A.c[c.name].label(c.name) for c in SEARCH_COLUMNS]
"""The search's columns of a round re-audited, joined with its latest re-audit: that audit's."""


WALK_FIRST = 64
"""Findings the search by rule reads first in each of its walks (at least twice the page); each next stretch reads
four times as many, up to :data:`WALK_MOST` in all its walks."""
WALK_MOST = 8192

_ALSO_CITED = text(
    # The distinct also_cited_as values, one probe of ix_findings_also_cited_as each (a skip scan): a few dozen.
    "WITH RECURSIVE v(also) AS ("
    " SELECT min(also_cited_as) FROM findings WHERE also_cited_as IS NOT NULL"
    " UNION ALL"
    " SELECT (SELECT min(also_cited_as) FROM findings WHERE also_cited_as > v.also) FROM v WHERE v.also IS NOT NULL"
    ") SELECT also FROM v WHERE also LIKE :cited ESCAPE '\\'"
)


def search_rounds(session: Session, q: Search, limit: int) -> Sequence[Row[Any]]:
    """Rounds matching ``q``, newest played first, at most ``limit`` rows.

    By rule, the rule's findings are walked newest first, a stretch at a time, and each stretch's rounds searched
    with the other filters, until the page is full or the findings end: one ordered index walk for the rule itself
    and one for each ``also_cited_as`` value that lists it (:data:`_ALSO_CITED`), merged. A rule's findings are a
    fraction of a percent of the rounds; reading them all first (as this did) cost 2.5 s at 10^7 rounds, most of it
    for ``also_cited_as LIKE``, which no index serves, so that every finding was read.
    """
    if q.rule is None:
        return _search(session, q, limit)
    if not session.in_transaction():  # else its caller's transaction, as it is
        snapshot(session)  # the walk's statements, and the rounds', see one state of the store
    walks = [F.c.rule == q.rule]
    cited = f'%"{_like_escape(q.rule)}"%'
    walks += [F.c.also_cited_as == v for v in session.execute(_ALSO_CITED, {"cited": cited}).scalars()]
    found = finding_conditions(replace(q, rule=None))
    found += [F.c.played_at >= q.played_from] if q.played_from is not None else []
    found += [F.c.played_at < q.played_to] if q.played_to is not None else []
    found.append(finding_is_latest(probed=True))
    rest = replace(q, rule=None, corrected=None, after=None)
    rows: list[Row[Any]] = []
    most = max(WALK_MOST // len(walks), WALK_FIRST)  # a stretch's keys, whatever the walks: a bounded IN list
    after, size = q.after, min(max(WALK_FIRST, 2 * limit), most)
    while True:
        keys, end = _walk(session, walks, found, after, size)
        if keys:
            rows += _search(
                session, replace(rest, within=tuple((pk, at) for at, pk in keys)), limit - len(rows)
            )
        if len(rows) >= limit or end is None:
            return rows
        after, size = end, min(4 * size, most)


def _walk(
    session: Session, walks: list[Any], found: list[Any], after: tuple[datetime, int] | None, size: int
) -> tuple[list[tuple[datetime, int]], tuple[datetime, int] | None]:
    """The next stretch of the rule's findings past ``after``: the (played_at, round_pk) of their rounds, newest first,
    and where the stretch ends (None: the findings are all read). Each walk reads at most ``size`` findings; a walk that
    read that many may have more, so the stretch ends at the latest of such walks' last keys (included: a round's other
    findings past it are of the same round, and of the same audit, the latest)."""
    keys: set[tuple[datetime, int]] = set()
    ends: list[tuple[datetime, int]] = []
    past = [tuple_(F.c.played_at, F.c.round_pk) < after] if after is not None else []
    for walk in walks:
        got = session.execute(
            select(F.c.played_at, F.c.round_pk)
            .where(walk, *found, *past)
            .order_by(F.c.played_at.desc(), F.c.round_pk.desc())
            .limit(size)
        ).all()
        keys.update((at, pk) for at, pk in got)
        if len(got) == size:
            ends.append((got[-1][0], got[-1][1]))
    end = max(ends) if ends else None
    return sorted((k for k in keys if end is None or k >= end), reverse=True), end


def _search(session: Session, q: Search, limit: int) -> Sequence[Row[Any]]:
    """:func:`search_rounds` of a ``q`` without ``rule``.

    A filter on the latest audit's verdict or void is the one no index can serve as written (its value is the
    round's own or its latest re-audit's): the search is then made of two, each on plain columns, newest first,
    merged. The rounds never re-audited, by their own columns (``rounds``' partial indexes of the violations,
    the unreplayable and the voided, a few percent of the rounds, find the rare ones without reading the others),
    and the rounds re-audited, by their latest re-audit's columns."""
    if q.verdict is None and q.voided is None:
        stmt = (
            select(*SEARCH_COLUMNS)
            .select_from(with_latest_audit())
            .where(and_(True, *search_conditions(q)))
            .order_by(*_NEWEST)
            .limit(limit)
        )
        return session.execute(stmt).all()
    rest = search_conditions(replace(q, verdict=None, voided=None))
    own: list[Any] = [~exists().where(A.c.round_pk == R.c.id)]
    later: list[Any] = [~exists().where(_LATER.c.round_pk == A.c.round_pk, _LATER.c.audit_no > A.c.audit_no)]
    if q.verdict is not None:
        # In the SQL text, not a parameter: a statement prepared by the driver (psycopg, from its 5th run) gets a
        # generic plan, which can use a partial index only for a value it can see.
        verdict = literal(q.verdict, literal_execute=True)
        own.append(R.c.verdict == verdict)
        later.append(A.c.verdict == verdict)
    if q.voided is not None:
        own.append(R.c.void_reason.is_not(None) if q.voided else R.c.void_reason.is_(None))
        later.append(A.c.void_reason.is_not(None) if q.voided else A.c.void_reason.is_(None))
    parts = [
        select(*columns).select_from(joined).where(*rest, *conds).order_by(*_NEWEST).limit(limit).subquery()
        for columns, joined, conds in (
            (_OWN_COLUMNS, R, own),
            (_LATER_COLUMNS, R.join(A, A.c.round_pk == R.c.id), later),
        )
    ]
    both = union_all(*(select(*p.c) for p in parts)).subquery("found")
    return session.execute(
        select(*both.c).order_by(both.c.played_at.desc(), both.c.id.desc()).limit(limit)
    ).all()
