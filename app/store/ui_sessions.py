"""Workbench sessions ended by logout (``ended_sessions``): their signed cookies are refused until they expire."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.store.models import ended_sessions_table as ES


def end(session: Session, nonce: str, ends_at: datetime, now: datetime) -> None:
    """Record the end of the session ``nonce`` (its cookie is good until ``ends_at``), and forget those expired."""
    session.execute(delete(ES).where(ES.c.ends_at < now))
    # Two logouts of one session at once (two tabs) both record it: the second finds the row and does nothing (a
    # check then an insert let both insert, and one failed).
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(
        insert(ES).values(nonce=nonce, ends_at=ends_at).on_conflict_do_nothing(index_elements=["nonce"])
    )


def ended(session: Session, nonce: str) -> bool:
    return session.execute(select(ES.c.nonce).where(ES.c.nonce == nonce)).first() is not None
