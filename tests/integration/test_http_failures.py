"""When the database is down, not migrated, or fails mid-request; when the code fails; when clients race: the
service answers a problem (503 with Retry-After, or 500 without internals) and a failed request writes nothing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import OperationalError

from app.config import Settings, libpq_url
from app.main import create_app
from app.store.db import Database
from app.store.pg import PgRounds
from app.usecases import offline
from app.usecases import rounds as round_cases
from tests.keys import keyed

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"

UNREACHABLE = {
    "postgres-closed-port": "postgresql://postgres@127.0.0.1:1/bjaudit",
    "sqlite-cannot-open": "sqlite:////dev/null/cannot/bjaudit.sqlite3",
}


@pytest.mark.parametrize("url", list(UNREACHABLE.values()), ids=list(UNREACHABLE))
def test_an_unreachable_database_is_503_with_retry_after(url: str, examples: dict[str, bytes]) -> None:
    app = create_app(Settings(database_url=url, retry_after_seconds=7, db_connect_timeout=2))
    with TestClient(app, raise_server_exceptions=False) as client:
        # A key cannot be checked without the database: 503 (never 401, which would say the key is bad).
        client.headers["Authorization"] = "Bearer bja_0123456789abcdef_" + "k" * 43
        for resp in (
            client.post("/v1/rounds", content=examples["nj-compliant-double"], headers=JSON),
            client.get("/v1/rounds/EX-NJ-0001"),
            client.get("/v1/rounds"),
            client.post("/v1/audit", content=examples["nj-compliant-double"], headers=JSON),
            client.get("/readyz"),
        ):
            assert resp.status_code == 503, resp.text
            assert resp.headers["retry-after"] == "7"
            assert resp.headers["content-type"] == PROBLEM
            body = resp.json()
            assert body["status"] == 503
            assert "Traceback" not in resp.text and "psycopg" not in resp.text
        # what needs no database still works
        assert client.get("/healthz").status_code == 200
        assert client.get("/v1/rules").status_code == 200


def _fail_when(engine: Engine, predicate: Callable[[str], bool]) -> None:
    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if predicate(statement):
            raise OperationalError(
                statement, None, ConnectionError("server closed the connection unexpectedly")
            )

    event.listen(engine, "before_cursor_execute", before)


@contextmanager
def _failing_trigger(engine: Engine, table: str, *, at_commit: bool = False) -> Iterator[None]:
    """On PostgreSQL, a trigger that fails the transaction as a lost connection would (SQLSTATE 08006) once a row
    is inserted into ``table``, or at commit: inside the database, so that it fails whichever client stored the
    round (SQLAlchemy sessions, or the psycopg hot path of app.store.pg)."""
    timing = "CONSTRAINT TRIGGER" if at_commit else "TRIGGER"
    deferred = " DEFERRABLE INITIALLY DEFERRED" if at_commit else ""
    with engine.begin() as conn:
        conn.execute(
            text(
                "CREATE FUNCTION bjaudit_test_fail() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN RAISE EXCEPTION 'connection lost' USING ERRCODE = '08006'; END $$"
            )
        )
        conn.execute(
            text(
                f"CREATE {timing} bjaudit_test_fail AFTER INSERT ON {table}{deferred} "
                "FOR EACH ROW EXECUTE FUNCTION bjaudit_test_fail()"
            )
        )
    try:
        yield
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP TRIGGER bjaudit_test_fail ON {table}"))
            conn.execute(text("DROP FUNCTION bjaudit_test_fail()"))


def test_a_failure_after_the_round_is_inserted_writes_nothing(
    app: Any, engine: Engine, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    with TestClient(app, raise_server_exceptions=False) as client, ExitStack() as stack:
        keyed(client, app.state.settings.database_url)
        if engine.dialect.name == "postgresql":
            stack.enter_context(_failing_trigger(engine, "findings"))
        else:
            _fail_when(app.state.db.engine, lambda sql: "INSERT INTO findings" in sql)
        resp = client.post("/v1/rounds", content=examples["nj-double-then-dealer-blackjack"], headers=JSON)
        assert resp.status_code == 503, resp.text
        assert "retry-after" in resp.headers
    assert rows("rounds") == 0
    assert rows("findings") == 0


def test_a_failed_commit_is_answered_503_not_201(
    app: Any, engine: Engine, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    with TestClient(app, raise_server_exceptions=False) as client, ExitStack() as stack:
        keyed(client, app.state.settings.database_url)
        if engine.dialect.name == "postgresql":
            stack.enter_context(_failing_trigger(engine, "rounds", at_commit=True))
        else:

            def on_commit(conn: Any) -> None:
                raise OperationalError("COMMIT", None, ConnectionError("connection lost at commit"))

            event.listen(app.state.db.engine, "commit", on_commit)
        resp = client.post("/v1/rounds", content=examples["nj-compliant-double"], headers=JSON)
        assert resp.status_code == 503, resp.text
    assert rows("rounds") == 0


def test_an_unexpected_error_is_a_500_problem_without_internals(
    app: Any,
    engine: Engine,
    examples: dict[str, bytes],
    rows: Callable[..., int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(offline, "audit_round", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        keyed(client, app.state.settings.database_url)
        resp = client.post("/v1/rounds", content=examples["nj-compliant-double"], headers=JSON)
    assert resp.status_code == 500
    assert resp.headers["content-type"] == PROBLEM
    body = resp.json()
    assert body["type"] == "urn:bjaudit:problem:internal"
    assert body["error_id"]
    assert "secret" not in resp.text and "Traceback" not in resp.text and "RuntimeError" not in resp.text
    assert rows("rounds") == 0


def test_an_unmigrated_database_is_not_ready(tmp_path: Any, examples: dict[str, bytes]) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'empty.sqlite3'}"))
    with TestClient(app, raise_server_exceptions=False) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert "alembic upgrade head" in ready.json()["detail"]
        client.headers["Authorization"] = "Bearer bja_0123456789abcdef_" + "k" * 43  # no table to check it in
        resp = client.post("/v1/rounds", content=examples["nj-compliant-double"], headers=JSON)
        assert resp.status_code == 503, resp.text


def test_concurrent_submissions_of_one_round_store_it_once(
    settings: Settings, engine: Engine, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    """The unique constraint decides: one submission creates the round, the others get its stored audit."""
    db = Database.from_settings(settings.model_copy(update={"db_pool_size": 8}))
    body = examples["nj-double-then-dealer-blackjack"]
    n = 8
    barrier = threading.Barrier(n)
    outcomes: list[round_cases.Submitted] = []
    errors: list[BaseException] = []

    def submit() -> None:
        try:
            barrier.wait()
            with db.session() as session:
                outcomes.append(round_cases.submit_round(session, body, "race"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=submit) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    db.dispose()
    assert not errors, errors
    assert sorted(o.created for o in outcomes) == [False] * (n - 1) + [True]
    assert len({o.body for o in outcomes}) == 1
    assert rows("rounds") == 1
    assert rows("findings") == 1


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_concurrent_submissions_on_the_postgresql_hot_path_store_it_once(
    settings: Settings, engine: Engine, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    """The same race on app.store.pg (what POST /v1/rounds uses on PostgreSQL): one statement inserts the round
    and its findings, so the losers insert nothing and answer the winner's audit."""
    conninfo = libpq_url(settings.database_url)
    assert conninfo is not None
    body = examples["nj-double-then-dealer-blackjack"]

    async def race() -> list[round_cases.Submitted]:
        pg = PgRounds(conninfo, size=8, timeout=10, connect_timeout=5)
        try:
            return await asyncio.gather(*(round_cases.submit_round_pg(pg, body, "race") for _ in range(8)))
        finally:
            await pg.close()

    outcomes = asyncio.run(race())
    assert sorted(o.created for o in outcomes) == [False] * 7 + [True]
    assert len({o.body for o in outcomes}) == 1
    assert rows("rounds") == 1
    assert rows("findings") == 1
