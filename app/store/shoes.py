"""The rounds of one shoe: SQLAlchemy Core on the caller's session. Nothing here commits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from app.store.models import rounds_table as R
from app.store.rounds import latest, with_latest_audit

SHOE_COLUMNS = (
    R.c.round_id,
    R.c.table_id,
    R.c.played_at,
    R.c.record,
    latest("audit"),
)
"""The round's record and its latest audit (whose elections give the decks when the record does not)."""


def _where(shoe_id: str, source: str | None, jurisdiction: str | None) -> list[Any]:
    conds: list[Any] = [R.c.shoe_id == shoe_id]
    if source is not None:
        conds.append(R.c.source == source)
    if jurisdiction is not None:
        conds.append(R.c.jurisdiction == jurisdiction)
    return conds


def shoe_groups(
    session: Session, shoe_id: str, source: str | None, jurisdiction: str | None
) -> Sequence[Row[Any]]:
    """The (source, jurisdiction) pairs with rounds under ``shoe_id``, and how many each (at most 10 pairs)."""
    stmt = (
        select(R.c.source, R.c.jurisdiction, func.count().label("rounds"))
        .where(*_where(shoe_id, source, jurisdiction))
        .group_by(R.c.source, R.c.jurisdiction)
        .order_by(R.c.source, R.c.jurisdiction)
        .limit(10)
    )
    return session.execute(stmt).all()


def shoe_rounds(
    session: Session, shoe_id: str, source: str, jurisdiction: str, limit: int
) -> Sequence[Row[Any]]:
    """One source's rounds of ``shoe_id`` in one jurisdiction, in the order played (at most ``limit``)."""
    stmt = (
        select(*SHOE_COLUMNS)
        .select_from(with_latest_audit())
        .where(*_where(shoe_id, source, jurisdiction))
        .order_by(R.c.played_at, R.c.id)
        .limit(limit)
    )
    return session.execute(stmt).all()
