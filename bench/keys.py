"""The API key a benchmark's client sends: made straight in the benchmark's database, as `bjaudit keys create`."""

from __future__ import annotations

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from app.config import sqlalchemy_url
from app.usecases.keys import create_key


def make_key(url: str, source: str = "bench", scopes: tuple[str, ...] = ("submit", "read")) -> str:
    """A key of ``source`` in the database at ``url``: submit + read unless ``scopes`` say otherwise."""
    engine = create_engine(sqlalchemy_url(url))
    try:
        with Session(engine) as session:
            key = create_key(session, source, scopes, "benchmark").key
            session.commit()
    finally:
        engine.dispose()
    return key
