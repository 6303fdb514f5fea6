"""Workbench sessions ended by logout (``ended_sessions``): their signed cookies are refused until they expire."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from app.store.models import ended_sessions_table as ES


def end(session: Session, nonce: str, ends_at: datetime, now: datetime) -> None:
    """Record the end of the session ``nonce`` (its cookie is good until ``ends_at``), and forget those expired."""
    session.execute(delete(ES).where(ES.c.ends_at < now))
    if session.execute(select(ES.c.nonce).where(ES.c.nonce == nonce)).first() is None:
        session.execute(insert(ES).values(nonce=nonce, ends_at=ends_at))


def ended(session: Session, nonce: str) -> bool:
    return session.execute(select(ES.c.nonce).where(ES.c.nonce == nonce)).first() is not None
