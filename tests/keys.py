"""API keys for tests: made straight in the test database (as ``bjaudit keys create`` does), cached per database,
source and scopes. ``keyed(client, url)`` gives a test client the key every route accepts for a source."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session

from app.config import sqlalchemy_url
from app.usecases import keys

ALL = ("submit", "read", "admin")


@functools.cache
def _engine(database_url: str) -> Engine:
    return create_engine(sqlalchemy_url(database_url), pool_size=1, max_overflow=0)


_made: dict[tuple[str, str | None, tuple[str, ...], str], str] = {}


def make_key(
    database_url: str,
    source: str | None = "default",
    scopes: Iterable[str] = ALL,
    label: str = "test",
    *,
    fresh: bool = False,
) -> str:
    """A key of ``source`` (None: every source) with ``scopes``: the same one each time unless ``fresh``."""
    wanted = tuple(sorted(scopes))
    cache_key = (database_url, source, wanted, label)
    if not fresh and cache_key in _made:
        return _made[cache_key]
    with Session(_engine(database_url)) as session:
        created = keys.create_key(session, source, wanted, label)
        session.commit()
    if not fresh:
        _made[cache_key] = created.key
    return created.key


def bearer(database_url: str, source: str | None = "default", scopes: Iterable[str] = ALL) -> dict[str, str]:
    """The Authorization header of :func:`make_key`'s key."""
    return {"Authorization": f"Bearer {make_key(database_url, source, scopes)}"}


def keyed(client: object, database_url: str, source: str = "default") -> None:
    """Give a test client (httpx) the key of ``source`` with every scope."""
    client.headers.update(bearer(database_url, source))  # type: ignore[attr-defined]
    client.bjaudit_database_url = database_url  # type: ignore[attr-defined]


def as_source(client: object, source: str | None, scopes: Iterable[str] = ALL) -> dict[str, str]:
    """Headers that make a request of a :func:`keyed` client act for another source."""
    return bearer(client.bjaudit_database_url, source, scopes)  # type: ignore[attr-defined]
