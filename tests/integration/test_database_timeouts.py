"""Issue 23, item 3: the 503 of a request that ran too long said the database was unavailable ("The database cannot be
reached") when the database had answered: PostgreSQL had stopped the statement (its statement_timeout or lock_timeout).
Against a real PostgreSQL, with a lock held by another connection: a request stopped by the service's deadline
(BJAUDIT_DB_TIMEOUT_SECONDS) and one stopped by the database's own limit each say what happened, and neither says the
database is unavailable."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from app.config import Settings, libpq_url
from app.main import create_app
from app.store.migrate import upgrade_head
from tests.batch.conftest import dumps, legal_rounds
from tests.keys import keyed

pytestmark = pytest.mark.postgres

JSON = {"content-type": "application/json"}
DEADLINE = 1.0
TIMEOUT = "urn:bjaudit:problem:database-timeout"
TITLE = "The request took too long in the database"


@pytest.fixture
def database(postgres_database: Callable[[str], str]) -> tuple[str, str]:
    """A migrated database of the test's own holding one round: its URL and the round's ID."""
    url = postgres_database("timeouts")
    upgrade_head(url)
    with _client(url) as client:
        first = dumps(legal_rounds(1, seed=23)[0])
        assert client.post("/v1/rounds", content=first, headers=JSON).status_code == 201
        round_id = client.get("/v1/rounds").json()["items"][0]["round_id"]
    return url, round_id


@contextmanager
def _client(url: str) -> Iterator[TestClient]:
    settings = Settings(
        database_url=url, embedded_workers=0, db_timeout_seconds=DEADLINE, retry_after_seconds=3
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        keyed(client, url)
        yield client


@contextmanager
def _rounds_locked(url: str) -> Iterator[None]:
    """Another connection holds the rounds table: every read and write of it waits."""
    conninfo = libpq_url(url)
    assert conninfo is not None
    with psycopg.connect(conninfo) as holder:
        holder.execute("LOCK TABLE rounds IN ACCESS EXCLUSIVE MODE")
        try:
            yield
        finally:
            holder.rollback()


def _answer(
    client: TestClient, method: str, path: str, body: bytes | None = None
) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    r = client.request(method, path, content=body, headers=JSON if body else None)
    took = time.monotonic() - started
    assert r.status_code == 503, r.text
    assert r.headers["content-type"] == "application/problem+json" and r.headers["retry-after"] == "3"
    problem: dict[str, Any] = r.json()
    assert (problem["type"], problem["title"]) == (TIMEOUT, TITLE), problem
    assert "unavailable" not in problem["detail"] and "cannot be reached" not in problem["detail"], problem
    return problem, took


def test_a_request_past_the_deadline_says_it_was_stopped_by_it(database: tuple[str, str]) -> None:
    url, round_id = database
    with _client(url) as client, _rounds_locked(url):
        for path in (f"/v1/rounds/{round_id}", "/v1/rounds?limit=5"):  # the PostgreSQL hot path, a session
            problem, took = _answer(client, "GET", path)
            assert DEADLINE <= took < DEADLINE + 2, (path, took)
            detail = problem["detail"]
            assert detail.startswith(
                f"This request was stopped: the database did not answer within {DEADLINE:g} s "
                "(BJAUDIT_DB_TIMEOUT_SECONDS)."
            ), detail
            assert "GET /readyz says whether it answers" in detail and "may take as long again" in detail


@pytest.mark.parametrize(
    ("limit", "why"),
    [
        ("statement_timeout", "it ran longer than the database's statement_timeout"),
        ("lock_timeout", "it waited for a lock longer than the database's lock_timeout"),
    ],
)
def test_a_request_the_database_stopped_says_the_database_is_up_and_why(
    database: tuple[str, str], limit: str, why: str
) -> None:
    url, round_id = database
    name = url.rsplit("/", 1)[1]
    conninfo = libpq_url(url)
    assert conninfo is not None
    with psycopg.connect(conninfo, autocommit=True) as admin:
        admin.execute(
            f'ALTER DATABASE "{name}" SET {limit} = 200'
        )  # milliseconds; for connections made from now
    second = dumps(legal_rounds(2, seed=23)[1])
    with _client(url) as client, _rounds_locked(url):
        for method, path, body, advice in [
            ("GET", f"/v1/rounds/{round_id}", None, "may take as long again"),
            ("GET", "/v1/rounds?limit=5", None, "may take as long again"),
            ("POST", "/v1/rounds", second, "the same request again is safe"),
        ]:
            problem, took = _answer(client, method, path, body)
            assert took < DEADLINE, (path, took)  # the database's limit, not the service's deadline
            detail = problem["detail"]
            assert detail.startswith("The database is up: it stopped this request's statement ("), detail
            assert why in detail and advice in detail, detail
    with _client(url) as client:  # the lock gone, the same requests are served
        assert client.get(f"/v1/rounds/{round_id}").status_code == 200
        assert client.post("/v1/rounds", content=second, headers=JSON).status_code == 201
