"""The table elections repository: SQLAlchemy Core on the caller's session. Nothing here commits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, TextClause, bindparam, select, text
from sqlalchemy.orm import Session

from app.store.models import table_elections_table as E

_UNIQUE = ("source", "jurisdiction", "table_id", "effective_from")


def _insert_statement() -> TextClause:
    # Text, as for rounds: the dialects' ON CONFLICT constructs are not cached by SQLAlchemy.
    cols = [c for c in E.c if c.name != "id"]
    sql = (
        f"INSERT INTO {E.name} ({', '.join(c.name for c in cols)}) VALUES ({', '.join(':' + c.name for c in cols)}) "
        f"ON CONFLICT ({', '.join(_UNIQUE)}) DO NOTHING RETURNING id"
    )
    return text(sql).bindparams(*[bindparam(c.name, type_=c.type) for c in cols])


_INSERT = _insert_statement()


def insert(session: Session, values: Mapping[str, Any]) -> int | None:
    """Insert a registration; its primary key, or ``None`` when (source, jurisdiction, table_id, effective_from)
    is already registered. Race-safe: the unique constraint decides."""
    pk: int | None = session.execute(_INSERT, dict(values)).scalar_one_or_none()
    return pk


COLUMNS = (E.c.source, E.c.jurisdiction, E.c.table_id, E.c.effective_from, E.c.rules, E.c.created_at)


def stored(
    session: Session, source: str, jurisdiction: str, table_id: str, effective_from: datetime
) -> Row[Any] | None:
    return session.execute(
        select(*COLUMNS).where(
            E.c.source == source,
            E.c.jurisdiction == jurisdiction,
            E.c.table_id == table_id,
            E.c.effective_from == effective_from,
        )
    ).one_or_none()


def listing(session: Session, source: str, table_id: str, jurisdiction: str | None) -> Sequence[Row[Any]]:
    """A table's registrations, newest effective_from first."""
    stmt = select(*COLUMNS).where(E.c.source == source, E.c.table_id == table_id)
    if jurisdiction is not None:
        stmt = stmt.where(E.c.jurisdiction == jurisdiction)
    return session.execute(stmt.order_by(E.c.effective_from.desc(), E.c.jurisdiction)).all()


_IN_FORCE = (
    select(E.c.rules)
    .where(
        E.c.source == bindparam("source"),
        E.c.jurisdiction == bindparam("jurisdiction"),
        E.c.table_id == bindparam("table_id"),
        E.c.effective_from <= bindparam("played_at", type_=E.c.effective_from.type),
    )
    .order_by(E.c.effective_from.desc())
    .limit(1)
)


def in_force(
    session: Session, source: str, jurisdiction: str, table_id: str, played_at: datetime
) -> str | None:
    """The rules JSON of the registration in force at ``played_at`` (the greatest effective_from <= played_at),
    or ``None``. One query on the unique index."""
    found: str | None = session.execute(
        _IN_FORCE,
        {"source": source, "jurisdiction": jurisdiction, "table_id": table_id, "played_at": played_at},
    ).scalar_one_or_none()
    return found


_ALL_FOR_TABLE = (
    select(E.c.effective_from, E.c.rules)
    .where(
        E.c.source == bindparam("source"),
        E.c.jurisdiction == bindparam("jurisdiction"),
        E.c.table_id == bindparam("table_id"),
    )
    .order_by(E.c.effective_from)
)


def all_for_table(
    session: Session, source: str, jurisdiction: str, table_id: str
) -> list[tuple[datetime, str]]:
    """Every registration of one table, oldest first: (effective_from, rules JSON). For callers that look up many
    rounds of the same table (a batch chunk) with one query."""
    rows = session.execute(
        _ALL_FOR_TABLE, {"source": source, "jurisdiction": jurisdiction, "table_id": table_id}
    ).all()
    return [(r.effective_from, r.rules) for r in rows]
