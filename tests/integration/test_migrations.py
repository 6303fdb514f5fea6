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


def _roundtrip(url: str) -> None:
    engine = create_engine(sqlalchemy_url(url))
    try:
        upgrade_head(url)
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
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
