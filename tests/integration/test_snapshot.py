"""A report's reads are one snapshot (app.store.db.snapshot) on both stores: a commit made by another connection
between two of its statements (a roller's) is not seen by the second."""

from __future__ import annotations

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.store.db import make_engine, snapshot


def test_a_commit_between_two_reads_of_a_snapshot_is_not_seen(database_url: str, engine: Engine) -> None:
    engine = make_engine(Settings(database_url=database_url))  # the service's: SQLite in WAL mode
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS snapshot_probe (n integer)"))
        conn.execute(text("DELETE FROM snapshot_probe"))
        conn.execute(text("INSERT INTO snapshot_probe VALUES (1)"))
    reading = sessionmaker(engine.execution_options(isolation_level="AUTOCOMMIT"))
    try:
        with reading() as s:
            snapshot(s)
            assert s.execute(text("SELECT count(*) FROM snapshot_probe")).scalar_one() == 1
            with engine.begin() as other:
                other.execute(text("INSERT INTO snapshot_probe VALUES (2)"))
            assert s.execute(text("SELECT count(*) FROM snapshot_probe")).scalar_one() == 1
        with reading() as s:  # a new one sees it
            assert s.execute(text("SELECT count(*) FROM snapshot_probe")).scalar_one() == 2
        with Session(engine) as s:  # and a session that writes is not held by one before it
            s.execute(text("INSERT INTO snapshot_probe VALUES (3)"))
            s.commit()
    finally:
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE snapshot_probe"))
        engine.dispose()
