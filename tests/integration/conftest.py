"""Integration fixtures: every API test runs against SQLite (a temporary file) and PostgreSQL (a fresh database
per test session, created from BJAUDIT_TEST_POSTGRES_URL and dropped afterwards), both built by
``alembic upgrade head``.

PostgreSQL unreachable: its tests are skipped, unless BJAUDIT_REQUIRE_POSTGRES=1 (CI), where they fail.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from app.config import Settings, sqlalchemy_url
from app.main import create_app
from app.store.migrate import upgrade_head
from tests.keys import keyed

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"


def postgres_admin_url() -> str:
    return os.environ.get("BJAUDIT_TEST_POSTGRES_URL", DEFAULT_PG)


def postgres_required() -> bool:
    return os.environ.get("BJAUDIT_REQUIRE_POSTGRES", "") not in ("", "0", "false", "no")


def _libpq(url: str) -> str:
    """A URL psycopg.connect takes (no SQLAlchemy driver suffix)."""
    return make_url(sqlalchemy_url(url)).set(drivername="postgresql").render_as_string(hide_password=False)


def _admin_connect() -> psycopg.Connection:
    try:
        return psycopg.connect(_libpq(postgres_admin_url()), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        message = f"PostgreSQL is unreachable at {postgres_admin_url()}: {exc}".strip()
        if postgres_required():
            pytest.fail(message + " (BJAUDIT_REQUIRE_POSTGRES=1)", pytrace=False)
        pytest.skip(message + " (set BJAUDIT_TEST_POSTGRES_URL, or BJAUDIT_REQUIRE_POSTGRES=1 to fail)")


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[object]:
    """A factory of fresh, uniquely named, empty PostgreSQL databases, all dropped at the end of the session."""
    created: list[str] = []
    admin = _admin_connect()

    def make(tag: str = "t") -> str:
        name = f"bjaudit_test_{tag}_{os.getpid()}_{secrets.token_hex(4)}"
        admin.execute(f'CREATE DATABASE "{name}"')
        created.append(name)
        return (
            make_url(sqlalchemy_url(postgres_admin_url()))
            .set(database=name)
            .render_as_string(hide_password=False)
        )

    try:
        yield make
    finally:
        for name in created:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture(
    scope="session",
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated database of each kind, shared by the session's tests (emptied before each test)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'bjaudit.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_database")("api")
    upgrade_head(url)
    return url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A separate engine onto the test database, to look at what the service stored."""
    eng = create_engine(sqlalchemy_url(database_url))
    with eng.begin() as conn:
        conn.execute(text("DELETE FROM acknowledgements"))
        conn.execute(text("DELETE FROM deliveries"))
        conn.execute(text("DELETE FROM subscriptions"))
        conn.execute(text("DELETE FROM reaudit_chunks"))
        conn.execute(text("DELETE FROM reaudits"))
        conn.execute(text("DELETE FROM findings"))
        conn.execute(text("DELETE FROM audits"))
        conn.execute(text("DELETE FROM rounds"))
        conn.execute(text("DELETE FROM round_keys"))
        conn.execute(text("DELETE FROM archives"))
        conn.execute(text("DELETE FROM table_elections"))
        conn.execute(text("DELETE FROM chain_entries"))  # a fresh database: no chain either
        conn.execute(text("DELETE FROM chain_heads"))
        conn.execute(text("DELETE FROM merkle_nodes"))  # nor a tree
        conn.execute(text("DELETE FROM tree_heads"))
        conn.execute(text("DELETE FROM report_rollups"))  # nor figures added up from a chain
        conn.execute(text("DELETE FROM rollup_cursors"))
    yield eng
    eng.dispose()


@pytest.fixture
def settings(database_url: str) -> Settings:
    # No batch worker of the service's own: these tests do not upload batches (tests/batch covers that path).
    return Settings(database_url=database_url, embedded_workers=0)


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI, engine: Engine, database_url: str) -> Iterator[TestClient]:  # noqa: F811
    """A client with a key of the source ``default`` with every scope (tests/keys.py)."""
    with TestClient(app, raise_server_exceptions=False) as c:
        keyed(c, database_url)
        yield c


@pytest.fixture(scope="session")
def examples() -> dict[str, bytes]:
    """The hand-written example rounds, by file stem (``nj-compliant-double``), as bytes."""
    return {p.name.removesuffix(".round.json"): p.read_bytes() for p in sorted(EXAMPLES.glob("*.round.json"))}


@pytest.fixture
def rows(engine: Engine) -> object:
    """``rows("rounds")``: how many rows a table holds now."""

    def count(table: str = "rounds") -> int:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())

    return count


@pytest.fixture(autouse=True)
def _verify_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bjaudit verify` keeps its checkpoints (BJAUDIT_VERIFY_STATE) per test: databases are emptied between tests,
    which to a checkpoint looks like a rewrite."""
    monkeypatch.setenv("BJAUDIT_VERIFY_STATE", str(tmp_path_factory.mktemp("verify") / "state.json"))
