"""The table elections repository: SQLAlchemy Core on the caller's session. Nothing here commits.

The table is an append-only history: a registration in force is one that no other ``supersedes``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, TextClause, bindparam, exists, select, text
from sqlalchemy.orm import Session, aliased

from app.store.models import table_elections_table as E

S = aliased(E, name="s")
_CURRENT = ~exists().where(S.c.supersedes_id == E.c.id)
"""The registration is in force at its effective_from: nothing supersedes it."""


def _insert_statement() -> TextClause:
    # Text, as for rounds: the dialects' ON CONFLICT constructs are not cached by SQLAlchemy. Any unique index
    # decides: one original per (source, jurisdiction, table, effective_from), one correction per registration.
    cols = [c for c in E.c if c.name != "id"]
    sql = (
        f"INSERT INTO {E.name} ({', '.join(c.name for c in cols)}) VALUES ({', '.join(':' + c.name for c in cols)}) "
        "ON CONFLICT DO NOTHING RETURNING id"
    )
    return text(sql).bindparams(*[bindparam(c.name, type_=c.type) for c in cols])


_INSERT = _insert_statement()


def insert(session: Session, values: Mapping[str, Any]) -> int | None:
    """Append a registration; its id, or ``None`` when a concurrent registration took its place (an original at
    that time, or a correction of the same registration). Race-safe: the unique indexes decide."""
    pk: int | None = session.execute(_INSERT, dict(values)).scalar_one_or_none()
    return pk


COLUMNS = (
    E.c.id,
    E.c.source,
    E.c.jurisdiction,
    E.c.table_id,
    E.c.effective_from,
    E.c.rules,
    E.c.created_at,
    E.c.reason,
    E.c.registered_by,
    E.c.supersedes_id,
)


def by_id(session: Session, pk: int) -> Row[Any] | None:
    return session.execute(select(*COLUMNS).where(E.c.id == pk)).one_or_none()


def current_at(
    session: Session, source: str, jurisdiction: str, table_id: str, effective_from: datetime
) -> Row[Any] | None:
    """The registration in force from exactly ``effective_from`` (the last of its corrections), or None."""
    return session.execute(
        select(*COLUMNS).where(
            E.c.source == source,
            E.c.jurisdiction == jurisdiction,
            E.c.table_id == table_id,
            E.c.effective_from == effective_from,
            _CURRENT,
        )
    ).one_or_none()


def history(
    session: Session, source: str | None, table_id: str, jurisdiction: str | None
) -> Sequence[Row[Any]]:
    """A table's registrations, superseded ones included (each with ``superseded_by``): newest effective_from
    first, and at one effective_from the newest registration first. ``source`` None: every source's."""
    superseded_by = select(S.c.id).where(S.c.supersedes_id == E.c.id).scalar_subquery()
    stmt = select(*COLUMNS, superseded_by.label("superseded_by")).where(E.c.table_id == table_id)
    if source is not None:
        stmt = stmt.where(E.c.source == source)
    if jurisdiction is not None:
        stmt = stmt.where(E.c.jurisdiction == jurisdiction)
    return session.execute(
        stmt.order_by(E.c.effective_from.desc(), E.c.source, E.c.jurisdiction, E.c.id.desc())
    ).all()


_IN_FORCE = (
    select(E.c.id, E.c.rules)
    .where(
        E.c.source == bindparam("source"),
        E.c.jurisdiction == bindparam("jurisdiction"),
        E.c.table_id == bindparam("table_id"),
        E.c.effective_from <= bindparam("played_at", type_=E.c.effective_from.type),
        _CURRENT,
    )
    .order_by(E.c.effective_from.desc())
    .limit(1)
)


def in_force(
    session: Session, source: str, jurisdiction: str, table_id: str, played_at: datetime
) -> tuple[int, str] | None:
    """(id, rules JSON) of the registration in force at ``played_at`` (the greatest effective_from <= played_at,
    not superseded), or ``None``. One query on the index."""
    row = session.execute(
        _IN_FORCE,
        {"source": source, "jurisdiction": jurisdiction, "table_id": table_id, "played_at": played_at},
    ).one_or_none()
    return None if row is None else (int(row.id), str(row.rules))


_ALL_FOR_TABLE = (
    select(E.c.effective_from, E.c.id, E.c.rules)
    .where(
        E.c.source == bindparam("source"),
        E.c.jurisdiction == bindparam("jurisdiction"),
        E.c.table_id == bindparam("table_id"),
        _CURRENT,
    )
    .order_by(E.c.effective_from)
)


def all_for_table(
    session: Session, source: str, jurisdiction: str, table_id: str
) -> list[tuple[datetime, int, str]]:
    """Every registration in force of one table, oldest first: (effective_from, id, rules JSON). For callers that
    look up many rounds of the same table (a batch chunk) with one query."""
    rows = session.execute(
        _ALL_FOR_TABLE, {"source": source, "jurisdiction": jurisdiction, "table_id": table_id}
    ).all()
    return [(r.effective_from, int(r.id), r.rules) for r in rows]
