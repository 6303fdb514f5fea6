"""The API keys repository: SQLAlchemy Core on the caller's session. Nothing here commits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select, update
from sqlalchemy.orm import Session

from app.store.models import api_keys_table as K

COLUMNS = (
    K.c.key_id,
    K.c.secret_sha256,
    K.c.source,
    K.c.scopes,
    K.c.label,
    K.c.created_at,
    K.c.created_by,
    K.c.revoked_at,
)

FIND_SQL = "SELECT key_id, secret_sha256, source, scopes, label, revoked_at FROM api_keys WHERE key_id = %s"
"""The lookup of one key by its public id, for the psycopg hot path (:mod:`app.store.pg`)."""


def add(session: Session, values: Mapping[str, Any]) -> None:
    session.execute(insert(K).values(**values))


def find(session: Session, key_id: str) -> Row[Any] | None:
    return session.execute(select(*COLUMNS).where(K.c.key_id == key_id)).one_or_none()


def listing(session: Session, source: str | None, everyone: bool) -> Sequence[Row[Any]]:
    """Keys oldest first: of ``source`` (``None``: the every-source keys), or all when ``everyone``."""
    stmt = select(*COLUMNS).order_by(K.c.id)
    if not everyone:
        stmt = stmt.where(K.c.source.is_(None) if source is None else K.c.source == source)
    return session.execute(stmt).all()


def revoke(session: Session, key_id: str, when: datetime) -> bool:
    """Mark a key revoked (once: the first revocation time is kept). False when there is no such key."""
    done = session.execute(
        update(K).where(K.c.key_id == key_id, K.c.revoked_at.is_(None)).values(revoked_at=when)
    )
    if done.rowcount:  # type: ignore[attr-defined]
        return True
    return find(session, key_id) is not None


def count(session: Session) -> int:
    return int(session.execute(select(func.count()).select_from(K)).scalar_one())
