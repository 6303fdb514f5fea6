"""Issue 20: a database timeout says what happened (the request ran past the deadline, not "the database is
unavailable"), and whether a retry is safe depends on the request: never "retrying is safe" for a long read.
Issue 23: a statement the database stopped itself (its statement_timeout, lock_timeout; SQLite's lock wait) says the
database is up; a pool with no free connection says so, not that the database cannot be reached."""

from __future__ import annotations

import asyncio
import sqlite3
from types import SimpleNamespace

import orjson
import psycopg
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.requests import Request

from app.api import problems
from app.store.db import DatabaseTimeout
from app.store.pg import PoolTimeout as PgPoolTimeout


def _answer(method: str, path: str, exc: Exception | None = None) -> dict[str, object]:
    settings = SimpleNamespace(retry_after_seconds=5, db_pool_timeout=10.0)
    app = SimpleNamespace(state=SimpleNamespace(settings=settings))
    scope = {"type": "http", "method": method, "path": path, "headers": [], "query_string": b"", "app": app}
    request = Request(scope)
    exc = exc if exc is not None else DatabaseTimeout("the database did not answer within 10 s")
    response = asyncio.run(problems._on_database_error(request, exc))
    assert response.status_code == 503 and response.headers["retry-after"] == "5"
    return dict(orjson.loads(bytes(response.body)))


def test_a_read_that_timed_out_is_not_called_an_outage_nor_safe_to_repeat_as_is() -> None:
    body = _answer("GET", "/v1/integrity")
    assert body["type"] == "urn:bjaudit:problem:database-timeout"
    assert body["title"] == "The request took too long in the database"
    detail = str(body["detail"])
    assert detail.startswith(
        "This request was stopped: the database did not answer within 10 s (BJAUDIT_DB_TIMEOUT_SECONDS)."
    )
    assert "may take as long again" in detail and "safe" not in detail and "unavailable" not in detail


def test_a_round_is_safe_to_send_again_another_write_is_looked_at_first() -> None:
    assert "safe" in str(_answer("POST", "/v1/rounds")["detail"])
    assert "look before you retry" in str(_answer("POST", "/v1/keys")["detail"])


def test_a_statement_postgresql_stopped_says_the_database_is_up_and_which_limit() -> None:
    cases = {
        psycopg.errors.QueryCanceled(
            "canceling statement due to statement timeout"
        ): "it ran longer than the database's statement_timeout",
        psycopg.errors.LockNotAvailable(
            "canceling statement due to lock timeout"
        ): "it waited for a lock longer than the database's lock_timeout",
        psycopg.errors.QueryCanceled(
            "canceling statement due to user request"
        ): "it was cancelled on the database (pg_cancel_backend)",
    }
    for orig, why in cases.items():
        for exc in (orig, OperationalError("SELECT ...", {}, orig)):  # the hot path's psycopg, SQLAlchemy's
            body = _answer("GET", "/v1/rounds", exc)
            assert body["type"] == "urn:bjaudit:problem:database-timeout", body
            detail = str(body["detail"])
            assert detail.startswith(
                f"The database is up: it stopped this request's statement ('{orig}'): {why}."
            )


def test_a_sqlite_lock_held_too_long_says_the_database_is_up() -> None:
    exc = OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked"))
    body = _answer("POST", "/v1/rounds", exc)
    assert body["type"] == "urn:bjaudit:problem:database-timeout"
    assert str(body["detail"]).startswith(
        "The database is up: another connection held its lock longer than 10 s (BJAUDIT_DB_POOL_TIMEOUT)"
    )


def test_no_free_connection_is_not_called_an_unreachable_database() -> None:
    for exc in (PoolTimeout("QueuePool limit of size 4 overflow 4 reached"), PgPoolTimeout("no connection")):
        body = _answer("GET", "/v1/rounds", exc)
        assert body["type"] == "urn:bjaudit:problem:database-unavailable"
        assert str(body["detail"]).startswith(
            "No database connection became free within 10 s (BJAUDIT_DB_POOL_TIMEOUT): other requests held them all."
        )
        assert "cannot be reached" not in str(body["detail"])


def test_a_database_that_cannot_be_reached_still_says_so() -> None:
    orig = psycopg.OperationalError("connection failed: Connection refused")
    body = _answer("GET", "/v1/rounds", OperationalError("SELECT 1", {}, orig))
    assert body["type"] == "urn:bjaudit:problem:database-unavailable"
    assert body["detail"] == "The database cannot be reached; nothing was stored. Retry later."
