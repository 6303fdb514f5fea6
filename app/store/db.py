"""Engine and sessions. One engine per process, built by the application's lifespan (or the CLI), never at import."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings, sqlalchemy_url

# What a broken or unreachable database raises: answered 503, never 500.
UNAVAILABLE = (DBAPIError,)


class DatabaseTimeout(Exception):
    """The database did not answer within a request's deadline (BJAUDIT_DB_TIMEOUT_SECONDS): answered 503. A write
    may still have happened (the database may have been slow, not gone), so a retry must be, and is, safe."""


def database_missing(exc: BaseException, database_url: str) -> bool:
    """The server answered that the database named in the URL does not exist: a setting to fix, not an outage."""
    url = make_url(sqlalchemy_url(database_url))
    text_ = str(getattr(exc, "orig", None) or exc)
    return url.get_backend_name() == "postgresql" and f'database "{url.database}" does not exist' in text_


def explain_connect_error(exc: BaseException, database_url: str) -> str:
    """One line that says what is wrong with the configured database and what to do, for start-up errors.

    >>> url = "postgresql://app:secret@db.example:5433/bjaudit"
    >>> explain_connect_error(Exception('FATAL:  database "bjaudit" does not exist'), url)
    "the database 'bjaudit' does not exist on db.example:5433: create it first (createdb -h db.example -p 5433 -U app bjaudit), never use the maintenance database 'postgres'"
    >>> explain_connect_error(Exception('connection failed: ... Connection refused\\n\\tIs the server running'), url)
    'cannot connect to PostgreSQL at db.example:5433 (connection refused): is the server running there, and are the host and port of DATABASE_URL right?'
    """
    url = make_url(sqlalchemy_url(database_url))
    cause = getattr(exc, "orig", None) or exc
    text_ = str(cause)
    first = next((line.strip() for line in text_.splitlines() if line.strip()), type(cause).__name__)
    if url.get_backend_name() != "postgresql":
        return f"cannot open the database {database_url}: {first}"
    where = f"{url.host or 'localhost'}:{url.port or 5432}"
    if database_missing(exc, database_url):
        user = f" -U {url.username}" if url.username else ""
        return (
            f"the database {url.database!r} does not exist on {where}: create it first (createdb -h "
            f"{url.host or 'localhost'} -p {url.port or 5432}{user} {url.database}), never use the maintenance "
            "database 'postgres'"
        )
    if "Connection refused" in text_:
        return (
            f"cannot connect to PostgreSQL at {where} (connection refused): is the server running there, and are the "
            "host and port of DATABASE_URL right?"
        )
    if "password authentication failed" in text_ or "no password supplied" in text_:
        return f"PostgreSQL at {where} refused the user {url.username!r}: check the user and password in DATABASE_URL"
    return f"cannot use the database {url.render_as_string(hide_password=True)}: {first.removeprefix('FATAL:').strip()}"


def ensure_sqlite_directory(database_url: str) -> None:
    """Make the directory of a SQLite database file (``./var`` on a fresh checkout). A directory that cannot be
    made is reported when the database is first needed (503 for a request), not here."""
    url = make_url(sqlalchemy_url(database_url))
    database = url.database or ""
    if (
        url.get_backend_name() == "sqlite"
        and database
        and database != ":memory:"
        and not database.startswith("file:")
    ):
        with contextlib.suppress(OSError):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def make_engine(settings: Settings, *, pre_ping: bool = False) -> Engine:
    """``pre_ping``: test each pooled connection before use (one round trip per checkout), for processes that must
    carry on through a database restart without a failed unit of work (the batch workers)."""
    url = make_url(sqlalchemy_url(settings.database_url))
    kwargs: dict[str, Any] = {"pool_pre_ping": pre_ping}
    if url.get_backend_name() != "sqlite":
        # After a restart every pooled connection is dead: test each before use (one round trip per checkout;
        # the hot path of single rounds does not come through here) rather than fail a request on each.
        kwargs["pool_pre_ping"] = True
    if url.get_backend_name() == "sqlite":
        ensure_sqlite_directory(settings.database_url)
        kwargs["connect_args"] = {"timeout": settings.db_pool_timeout, "check_same_thread": False}
        engine = create_engine(url, **kwargs)
        event.listen(engine, "connect", _sqlite_on_connect)
        return engine
    kwargs.update(
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        pool_timeout=settings.db_pool_timeout,
        pool_recycle=1800,
        connect_args={"connect_timeout": settings.db_connect_timeout, "application_name": "bjaudit"},
    )
    return create_engine(url, **kwargs)


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
    finally:
        cursor.close()


def snapshot(session: Session) -> None:
    """Make the rest of ``session``'s reads one snapshot (call it first): a report adds up rollups, the entries past
    their cursors and raw rows, which a roller's commit between two of its statements would count twice or not at
    all. PostgreSQL: a REPEATABLE READ transaction; SQLite: a transaction (its reads see one snapshot)."""
    if session.get_bind().dialect.name == "postgresql":
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        return
    # SQLite: Python's sqlite3 begins a transaction only before a write, so that each SELECT would see the store as it
    # is then: begin one ourselves (in WAL mode its reads then see the store as of its first), ended with the session.
    session.connection(execution_options={"isolation_level": "AUTOCOMMIT"}).exec_driver_sql("BEGIN")


class Database:
    """The engine and its session factory."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessionmaker = sessionmaker(engine, expire_on_commit=False, autoflush=False)
        # Reads of one statement need no transaction: autocommit saves the BEGIN and COMMIT round trips.
        self.read_sessionmaker = sessionmaker(
            engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False, autoflush=False
        )

    @classmethod
    def from_settings(cls, settings: Settings, *, pre_ping: bool = False) -> Database:
        return cls(make_engine(settings, pre_ping=pre_ping))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: commits when the block ends, rolls back when it raises. Services below only flush."""
        with self.sessionmaker() as session:
            try:
                yield session
            except BaseException:
                session.rollback()
                raise
            session.commit()

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for a use case that only reads, each statement on its own (autocommit)."""
        with self.read_sessionmaker() as session:
            yield session

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()
