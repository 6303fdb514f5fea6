"""The schema is what the migrations say: on an empty database ``alembic upgrade head`` builds exactly the models
(the equivalent of ``alembic check``), and ``downgrade base`` takes it all away again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from app.config import sqlalchemy_url
from app.store.migrate import downgrade_base, head_revisions, migrations_dir, upgrade_head
from app.store.models import metadata
from app.store.partitions import include_name


def _roundtrip(url: str) -> None:
    engine = create_engine(sqlalchemy_url(url))
    try:
        upgrade_head(url)
        with engine.connect() as conn:
            # (the monthly partitions are made by the service, not the models: app.store.partitions)
            ctx = MigrationContext.configure(conn, opts={"compare_type": True, "include_name": include_name})
            assert set(ctx.get_current_heads()) == set(head_revisions())
            assert compare_metadata(ctx, metadata) == []
        assert {"rounds", "findings", "alembic_version"} <= set(inspect(engine).get_table_names())

        downgrade_base(url)
        engine.dispose()
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}

        upgrade_head(url)  # and up again, as a deploy after a rollback would
        engine.dispose()
        assert {"rounds", "findings"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_migrations_build_the_models_on_postgresql(postgres_database: Callable[[str], str]) -> None:
    _roundtrip(postgres_database("mig"))


def test_migrations_build_the_models_on_sqlite(tmp_path: Path) -> None:
    _roundtrip(f"sqlite:///{tmp_path / 'mig.sqlite3'}")


def test_migration_files_are_dated() -> None:
    files = sorted(p.name for p in (migrations_dir() / "versions").glob("*.py"))
    assert files
    for name in files:
        assert name[:4].isdigit() and name[4] == "_" and name[7] == "_" and name[10] == "_", name


def _downgrade_to(url: str, revision: str) -> None:
    from alembic import command

    from app.store.migrate import alembic_config

    command.downgrade(alembic_config(url), revision)


def test_the_merkle_log_migration_converts_a_sound_chain_and_refuses_a_broken_one(tmp_path: Path) -> None:
    """Issue 20: existing chains become Merkle trees as they stand (leaves = their entries' digests), after the
    migration checked that they link; a chain that does not link stops it, naming the entry."""
    import hashlib

    import orjson
    from sqlalchemy import text

    from app.config import Settings
    from app.evidence import merkle
    from app.store import tree
    from app.store.db import Database
    from app.synth.generator import generate_rounds
    from app.usecases import rounds as round_cases

    for broken in (False, True):
        url = f"sqlite:///{tmp_path / f'db-{broken}.sqlite3'}"
        # Today's code stores the rounds (in today's tables), then the store is taken back to the revision before
        # the Merkle log, as a store of then would be.
        upgrade_head(url)
        db = Database.from_settings(Settings(database_url=url))
        for doc in generate_rounds(37, 11):
            with db.session() as s:
                round_cases.submit_round(s, orjson.dumps(doc), "casino-a")
        db.dispose()
        _downgrade_to(url, "b8d2f4a6c0e3")
        db = Database.from_settings(Settings(database_url=url))
        if broken:
            with db.session() as s:
                s.execute(
                    text("UPDATE chain_entries SET digest = :d WHERE seq = 20"),
                    {"d": hashlib.sha256(b"x").digest()},
                )
        with db.reading() as s:
            digests = [
                bytes(d) for d in s.execute(text("SELECT digest FROM chain_entries ORDER BY seq")).scalars()
            ]
        db.dispose()
        if broken:
            with pytest.raises(Exception, match="entry 20 of source 'casino-a' does not link"):
                upgrade_head(url)
            continue
        upgrade_head(url)
        db = Database.from_settings(Settings(database_url=url))
        with db.reading() as s:
            nodes = s.execute(text("SELECT level, count(*) FROM merkle_nodes GROUP BY level")).all()
            assert [tuple(n) for n in nodes] == [(4, 2)]  # 37 entries: two subtrees of 16 kept
            assert tree.root(s, "casino-a", 37) == merkle.root([merkle.leaf_hash(d) for d in digests])
        db.dispose()
