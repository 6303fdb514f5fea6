"""Alembic, driven from code: ``upgrade_head`` for ``bjaudit serve`` and the tests, ``is_at_head`` for /readyz."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from app.config import sqlalchemy_url
from app.store.db import ensure_sqlite_directory

_REPO_ROOT = Path(__file__).resolve().parents[2]


def migrations_dir() -> Path:
    """``migrations/`` beside the ``app`` package (a checkout or editable install), else in the working directory."""
    for candidate in (_REPO_ROOT / "migrations", Path.cwd() / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError("cannot find the migrations/ directory (run from the project directory)")


def alembic_config(database_url: str) -> Config:
    ini = migrations_dir().parent / "alembic.ini"
    cfg = Config(str(ini)) if ini.is_file() else Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    cfg.set_main_option("sqlalchemy.url", sqlalchemy_url(database_url).replace("%", "%%"))
    cfg.attributes["configure_logger"] = False  # leave the host process's logging alone
    return cfg


def upgrade_head(database_url: str) -> None:
    ensure_sqlite_directory(database_url)
    command.upgrade(alembic_config(database_url), "head")


def downgrade_base(database_url: str) -> None:
    command.downgrade(alembic_config(database_url), "base")


def head_revisions() -> frozenset[str]:
    return frozenset(ScriptDirectory(str(migrations_dir())).get_heads())


def current_revisions(conn: Connection) -> frozenset[str]:
    return frozenset(MigrationContext.configure(conn).get_current_heads())
