"""The read replica (BJAUDIT_DATABASE_READ_URL) against a real streaming standby: a throwaway primary and a copy of
it by ``pg_basebackup -R`` on another port (tests/throwaway_pg.py), replaying as the primary writes.

Searches, reports, shoes and the workbench's search and report pages are read from the standby while it is within
BJAUDIT_READ_MAX_LAG_SECONDS (``X-Bjaudit-Read-From: replica``); writes, a round's lookup, keys and batches stay on
the primary. A standby that lags (its replay paused) or is down serves nothing: the read goes to the primary
(BJAUDIT_READ_FALLBACK=primary) or is answered 503 (``unavailable``), and it is used again once it is back.

That a read really came from the standby is shown by what only the standby can answer: with its replay paused, a
round stored on the primary since is missing from the standby's answer, present in the primary's."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.store.migrate import upgrade_head
from tests.batch.conftest import dumps, legal_rounds
from tests.html_tree import parse
from tests.keys import keyed, make_key
from tests.throwaway_pg import ThrowawayPostgres

pytestmark = pytest.mark.postgres

JSON = {"content-type": "application/json"}
DATABASE = "replicated"


@pytest.fixture(scope="module")
def pair(server: ThrowawayPostgres) -> Iterator[tuple[ThrowawayPostgres, ThrowawayPostgres]]:
    """The module's primary (its own database migrated to head, a few rounds stored) and a standby of it."""
    upgrade_head(server.create_database(DATABASE))
    standby = server.standby()
    try:
        yield server, standby
    finally:
        with contextlib.suppress(Exception):
            standby.resume()
        standby.destroy()


def _service(primary: ThrowawayPostgres, standby: ThrowawayPostgres | None, **settings: Any) -> TestClient:
    extra = {} if standby is None else {"database_read_url": standby.url(DATABASE)}
    s = Settings(
        session_key_file=str(primary.root / "session-key"),
        database_url=primary.url(DATABASE),
        embedded_workers=0,
        db_timeout_seconds=8,
        db_connect_timeout=1,
        retry_after_seconds=3,
        **extra,
        **settings,
    )
    client = TestClient(create_app(s), raise_server_exceptions=False)
    keyed(client, s.database_url)
    return client


@contextlib.contextmanager
def services(
    primary: ThrowawayPostgres, standby: ThrowawayPostgres, **settings: Any
) -> Iterator[tuple[TestClient, TestClient]]:
    """A service reading from the standby, and one with no replica (every read on the primary), to compare."""
    with _service(primary, standby, **settings) as replicated, _service(primary, None) as plain:
        yield replicated, plain


def caught_up(primary: ThrowawayPostgres, standby: ThrowawayPostgres, timeout: float = 30) -> None:
    """Wait until the standby has replayed all that the primary had written when this was called."""
    (target,) = primary.sql("SELECT pg_current_wal_lsn()")[0]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = standby.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")
        if rows and rows[0][0]:
            return
        time.sleep(0.05)
    raise AssertionError(f"the standby did not replay up to {target} within {timeout} s")


def eventually(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the timeout"
        time.sleep(0.1)


def served_by(client: TestClient) -> str | None:
    """Who served a search now (replica, primary)."""
    return client.get("/v1/rounds?limit=1").headers.get("x-bjaudit-read-from")


def submit(client: TestClient, n: int, seed: int) -> list[str]:
    ids = []
    for doc in legal_rounds(n, seed=seed):
        r = client.post("/v1/rounds", content=dumps(doc), headers=JSON)
        assert r.status_code in (200, 201), r.text
        ids.append(doc["round_id"])
    return ids


def log_in(client: TestClient, database_url: str) -> None:
    """A workbench session for ``client`` (its cookie), made with a read key."""
    page = client.get("/ui/login", params={"next": "/ui"}).text
    csrf = parse(page).one("form", id="login-form").one("input", attrs={"name": "csrf"}).get("value")
    r = client.post(
        "/ui/login",
        data={"key": make_key(database_url, "default", ("read",)), "csrf": csrf, "next": "/ui"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text


def ids_of(r: Any) -> set[str]:
    assert r.status_code == 200, r.text
    return {i["round_id"] for i in r.json()["items"]}


READS = [
    "/v1/rounds?limit=100",
    "/v1/rounds?verdict=compliant&limit=100",
    "/v1/reports/summary?group_by=day&from=2020-01-01&to=2030-01-01",
    "/v1/reports/summary?group_by=rule&from=2020-01-01&to=2030-01-01&limit=5",
    "/v1/reports/summary?group_by=dealer&from=2020-01-01&to=2030-01-01&format=csv",
]


def test_searches_reports_and_shoes_are_read_from_the_standby_and_answer_as_the_primary(
    pair: tuple[ThrowawayPostgres, ThrowawayPostgres],
) -> None:
    primary, standby = pair
    with services(primary, standby) as (replicated, plain):
        (rid, *_) = submit(replicated, 30, seed=41)
        shoe_id = legal_rounds(1, seed=41)[0]["shoe_id"]
        caught_up(primary, standby)
        for path in [*READS, f"/v1/shoes/{shoe_id}"]:
            r, p = replicated.get(path), plain.get(path)
            assert r.status_code == p.status_code == 200, (path, r.text)
            assert r.headers["x-bjaudit-read-from"] == "replica", path
            assert "x-bjaudit-read-from" not in p.headers, path  # no replica configured: nothing to say
            assert r.content == p.content, path
        # What a client reads back after writing it stays on the primary.
        lookup = replicated.get(f"/v1/rounds/{rid}")
        assert lookup.status_code == 200 and "x-bjaudit-read-from" not in lookup.headers
        assert "x-bjaudit-read-from" not in replicated.get("/v1/keys").headers
        ready = replicated.get("/readyz").json()
        assert ready["read_replica"]["state"] == "in_use", ready
        assert plain.get("/readyz").json()["read_replica"] is None


def test_with_its_replay_paused_the_standby_answers_what_it_has_until_it_lags_too_far_then_the_primary_does(
    pair: tuple[ThrowawayPostgres, ThrowawayPostgres],
) -> None:
    primary, standby = pair
    with services(primary, standby, read_max_lag_seconds=2) as (replicated, plain):
        caught_up(primary, standby)
        before = ids_of(replicated.get("/v1/rounds?limit=500"))
        standby.sql("SELECT pg_wal_replay_pause()")
        try:
            new = set(submit(replicated, 3, seed=42))
            # Within the lag allowed: the standby's answer, without what it has not replayed; the primary has it.
            r = replicated.get("/v1/rounds?limit=500")
            if r.headers["x-bjaudit-read-from"] == "replica":  # else the 2 s went by already (a slow machine)
                assert ids_of(r) == before
            assert ids_of(plain.get("/v1/rounds?limit=500")) == before | new
            # Past it: the standby is not read; the primary answers, and says so.
            eventually(lambda: replicated.get("/readyz").json()["read_replica"]["state"] == "not_used")
            ready = replicated.get("/readyz").json()["read_replica"]
            assert ready["lag_seconds"] > 2 and "behind the primary" in ready["reason"], ready
            r = replicated.get("/v1/rounds?limit=500")
            assert r.headers["x-bjaudit-read-from"] == "primary"
            assert ids_of(r) == before | new
            report = replicated.get(READS[2])
            assert report.headers["x-bjaudit-read-from"] == "primary"
            assert report.content == plain.get(READS[2]).content
        finally:
            standby.sql("SELECT pg_wal_replay_resume()")
        eventually(lambda: served_by(replicated) == "replica")
        assert ids_of(replicated.get("/v1/rounds?limit=500")) == before | new


def test_with_fallback_unavailable_a_lagging_standby_makes_its_reads_503_and_nothing_else(
    pair: tuple[ThrowawayPostgres, ThrowawayPostgres],
) -> None:
    primary, standby = pair
    with services(primary, standby, read_max_lag_seconds=1, read_fallback="unavailable") as (replicated, _):
        caught_up(primary, standby)
        assert replicated.get("/v1/rounds?limit=1").headers["x-bjaudit-read-from"] == "replica"
        standby.sql("SELECT pg_wal_replay_pause()")
        try:
            (rid,) = submit(replicated, 1, seed=43)  # writes go on
            eventually(lambda: replicated.get("/readyz").json()["read_replica"]["state"] == "not_used")
            for path in READS:
                r = replicated.get(path)
                assert r.status_code == 503, (path, r.text)
                assert r.headers["content-type"] == "application/problem+json"
                assert r.headers["retry-after"] == "1"
                problem = r.json()
                assert problem["type"] == "urn:bjaudit:problem:read-replica-unavailable", problem
                assert (
                    "behind the primary" in problem["detail"] and "BJAUDIT_READ_FALLBACK" in problem["detail"]
                )
                assert "x-bjaudit-read-from" not in r.headers
            log_in(replicated, primary.url(DATABASE))
            page = replicated.get("/ui")
            assert page.status_code == 503, page.text
            # The primary's own reads, and the service's readiness, are not the standby's.
            assert replicated.get(f"/v1/rounds/{rid}").status_code == 200
            assert replicated.get("/readyz").status_code == 200
            submit(replicated, 1, seed=44)
        finally:
            standby.sql("SELECT pg_wal_replay_resume()")
        eventually(lambda: replicated.get("/v1/rounds?limit=1").status_code == 200)


def test_a_standby_that_is_down_serves_nothing_and_is_used_again_once_it_is_back(
    pair: tuple[ThrowawayPostgres, ThrowawayPostgres],
) -> None:
    primary, standby = pair
    with services(primary, standby) as (replicated, plain):
        caught_up(primary, standby)
        assert replicated.get("/v1/rounds?limit=1").headers["x-bjaudit-read-from"] == "replica"
        standby.stop()
        try:
            (rid,) = submit(replicated, 1, seed=45)
            # The pooled connections to it are dead: the first read fails there, is served by the primary, and
            # the standby is not tried again until a check finds it up.
            for path in READS:
                r = replicated.get(path)
                assert r.status_code == 200, (path, r.text)
                assert r.headers["x-bjaudit-read-from"] == "primary", path
                assert r.content == plain.get(path).content, path
            assert rid in ids_of(replicated.get("/v1/rounds?limit=500"))
            ready = replicated.get("/readyz").json()
            assert ready["status"] == "ready" and ready["read_replica"]["state"] == "not_used"
            assert (
                "cannot be reached" in ready["read_replica"]["reason"]
                or "failed" in ready["read_replica"]["reason"]
            )
        finally:
            standby.start()
        eventually(lambda: served_by(replicated) == "replica")
        caught_up(primary, standby)
        assert rid in ids_of(replicated.get("/v1/rounds?limit=500"))


def test_a_hung_standby_is_found_down_within_the_check_timeout_and_the_primary_answers(
    pair: tuple[ThrowawayPostgres, ThrowawayPostgres],
) -> None:
    primary, standby = pair
    with services(primary, standby) as (replicated, plain):
        caught_up(primary, standby)
        standby.hang()
        try:
            time.sleep(1.1)  # the last check is stale: the next read checks again, and finds it silent
            started = time.monotonic()
            r = replicated.get(READS[0])
            took = time.monotonic() - started
            assert r.status_code == 200, r.text
            assert r.headers["x-bjaudit-read-from"] == "primary"
            assert r.content == plain.get(READS[0]).content
            assert took < 6, took  # the check's 2 s (connect) and the read, well within the 8 s deadline
        finally:
            standby.resume()
        eventually(lambda: served_by(replicated) == "replica")


def test_the_workbench_search_and_reports_pages_are_read_from_the_standby(
    pair: tuple[ThrowawayPostgres, ThrowawayPostgres],
) -> None:
    primary, standby = pair
    with services(primary, standby) as (replicated, _):
        log_in(replicated, primary.url(DATABASE))
        caught_up(primary, standby)
        for path in ["/ui", "/ui/reports?group_by=table&from=2020-01-01&to=2030-01-01", "/ui/rules"]:
            r = replicated.get(path)
            assert r.status_code == 200, (path, r.text[:300])
            assert r.headers["x-bjaudit-read-from"] == "replica", path
