"""The service against a PostgreSQL server of the test's own that hangs (SIGSTOP) or restarts: every request is
answered within the database deadline (503 + Retry-After, a problem), the service recovers by itself, and a stream
of submissions across a restart loses and doubles nothing (the client retries what got 503)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.config import Settings, libpq_url, sqlalchemy_url
from app.main import create_app
from app.store.db import DatabaseTimeout
from app.store.migrate import upgrade_head
from app.store.pg import PgRounds
from app.usecases import rounds as round_cases
from tests.batch.conftest import dumps, legal_rounds
from tests.keys import keyed
from tests.throwaway_pg import ThrowawayPostgres

pytestmark = pytest.mark.postgres

JSON = {"content-type": "application/json"}


@pytest.fixture
def service(server: ThrowawayPostgres, request: pytest.FixtureRequest) -> Iterator[tuple[TestClient, str]]:
    url = server.create_database(request.node.name[:40].lower())
    upgrade_head(url)
    settings = Settings(
        database_url=url,
        embedded_workers=0,
        db_timeout_seconds=2,
        db_connect_timeout=1,
        retry_after_seconds=3,
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        keyed(c, settings.database_url)
        yield c, url


def _unavailable(r: Any) -> None:
    assert r.status_code == 503, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["retry-after"] == "3"


def _stored(url: str) -> dict[str, int]:
    eng = create_engine(sqlalchemy_url(url))
    try:
        with eng.connect() as conn:
            rows = conn.execute(text("SELECT round_id, count(*) FROM rounds GROUP BY round_id")).all()
    finally:
        eng.dispose()
    return {r[0]: int(r[1]) for r in rows}


def test_a_hung_database_is_answered_503_within_the_deadline_and_the_service_recovers(
    server: ThrowawayPostgres, service: tuple[TestClient, str]
) -> None:
    client, url = service
    first, second = (dumps(d) for d in legal_rounds(2, seed=30))
    assert client.post("/v1/rounds", content=first, headers=JSON).status_code == 201
    rid = client.get("/v1/rounds").json()["items"][0]["round_id"]  # both pools hold a connection now
    server.hang()
    try:
        for method, path, body in [
            ("GET", f"/v1/rounds/{rid}", None),  # the PostgreSQL hot path
            ("POST", "/v1/rounds", second),
            ("GET", "/v1/rounds?limit=5", None),  # a SQLAlchemy session in a thread
            ("GET", "/readyz", None),
        ]:
            started = time.monotonic()
            r = client.request(method, path, content=body, headers=JSON if body else None)
            took = time.monotonic() - started
            _unavailable(r)
            assert took < 5, (method, path, took)
    finally:
        server.resume()
    assert client.get("/readyz").status_code == 200
    assert client.get(f"/v1/rounds/{rid}").status_code == 200
    # The submission that timed out may have been stored once the server went on; sent again it is either way
    # stored exactly once.
    assert client.post("/v1/rounds", content=second, headers=JSON).status_code in (200, 201)
    assert sorted(_stored(url).values()) == [1, 1]


def test_submissions_across_a_restart_lose_and_double_nothing(
    server: ThrowawayPostgres, service: tuple[TestClient, str]
) -> None:
    client, url = service
    bodies = [dumps(d) for d in legal_rounds(400, seed=31)]
    answers: list[tuple[float, int, str | None]] = []
    retry: list[bytes] = []
    outage: dict[str, float] = {}

    def submit() -> None:
        for body in bodies:
            r = client.post("/v1/rounds", content=body, headers=JSON)
            answers.append((time.monotonic(), r.status_code, r.headers.get("retry-after")))
            if r.status_code == 503:
                retry.append(body)
            time.sleep(0.005)

    sender = threading.Thread(target=submit)
    sender.start()
    while len(answers) < 50:
        time.sleep(0.01)
    outage["from"] = time.monotonic()
    server.restart(down_for=1.5)
    outage["to"] = time.monotonic()
    sender.join(timeout=120)
    assert not sender.is_alive()

    statuses = {s for _, s, _ in answers}
    assert statuses <= {200, 201, 503}, statuses
    failed = [(t, s, ra) for t, s, ra in answers if s == 503]
    assert failed, "the outage was not seen (the restart came too late?)"
    assert all(ra == "3" for _, _, ra in failed)
    # 503 only during the outage (and the deadline after it), never once the database was back.
    assert all(outage["from"] <= t <= outage["to"] + 2 + 1 for t, _, _ in failed), (outage, failed[-3:])
    for body in retry:  # the client retries what got 503
        assert client.post("/v1/rounds", content=body, headers=JSON).status_code in (200, 201)
    stored = _stored(url)
    assert len(stored) == len(bodies) and set(stored.values()) == {1}


def test_submissions_waiting_behind_a_hung_group_are_each_answered_within_their_own_deadline(
    server: ThrowawayPostgres, request: pytest.FixtureRequest
) -> None:
    """Concurrent submissions are stored in groups (app.store.pg): one that waits for a group stuck on a hung server
    is answered 503 by its own deadline, counted from when it asked, not from when its group would have started."""
    url = server.create_database(request.node.name[:40].lower())
    upgrade_head(url)
    conninfo = libpq_url(url)
    assert conninfo is not None
    rounds = [dumps(d) for d in legal_rounds(3, seed=31)]
    deadline = 1.0

    async def submit(pg: PgRounds, record: bytes, after: float) -> tuple[float, BaseException | None]:
        await asyncio.sleep(after)
        started = time.monotonic()
        try:
            await round_cases.submit_round_pg(pg, record, "hung")
        except Exception as exc:
            return time.monotonic() - started, exc
        return time.monotonic() - started, None

    async def run() -> list[tuple[float, BaseException | None]]:
        pg = PgRounds(conninfo, size=1, timeout=5, connect_timeout=1, deadline=deadline)
        try:
            await round_cases.submit_round_pg(pg, rounds[0], "hung")  # a connection kept
            server.hang()
            try:
                # the first starts a group that hangs; the second asks half-way through the first's deadline
                return await asyncio.gather(submit(pg, rounds[1], 0.0), submit(pg, rounds[2], deadline / 2))
            finally:
                server.resume()
        finally:
            await pg.close()

    for took, exc in asyncio.run(run()):
        assert isinstance(exc, DatabaseTimeout), exc
        assert took < deadline + 0.4, took  # its deadline, and the ≤ 150 ms of interrupting the statement
