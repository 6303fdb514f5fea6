"""A fresh checkout has no ./var: the embedded default must make its own directory before migrating."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, inspect

from app.store.migrate import upgrade_head


def test_migrating_the_sqlite_default_makes_its_directory(tmp_path: Path) -> None:
    db = tmp_path / "var" / "nested" / "bjaudit.sqlite3"
    upgrade_head(f"sqlite:///{db}")
    assert db.is_file()
    assert "rounds" in inspect(create_engine(f"sqlite:///{db}")).get_table_names()
