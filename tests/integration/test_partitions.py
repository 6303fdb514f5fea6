"""Monthly partitions (issue 21): on PostgreSQL ``rounds`` and ``findings`` are partitioned by month of ``played_at``
with a DEFAULT partition, and the round's key lives in ``round_keys``; the guarantees of submissions are the same on
both databases (a round of any legal year is stored; a round_id is taken whatever month its round was played in)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.config import Settings, libpq_url
from app.store import partitions
from app.store import rounds as repo
from app.store.db import Database
from app.store.pg import PgRounds

from .test_grouped_storing import row_of
from .test_http_rounds import assert_problem, post

ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


def played_at(body: bytes, when: str) -> bytes:
    changed, n = re.subn(rb'"played_at": "[^"]*"', f'"played_at": "{when}"'.encode(), body)
    assert n == 1
    return changed


def partition_of(engine: Engine, round_id: str) -> str | None:
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        return str(
            conn.execute(
                text("SELECT tableoid::regclass::text FROM rounds WHERE round_id = :r"), {"r": round_id}
            ).scalar_one()
        )


def december(engine: Engine) -> None:
    """The month of the example rounds has its partitions (whenever the tests run)."""
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            partitions.ensure_months(conn, [date(2026, 12, 1)])


def stored(
    database_url: str, values: dict[str, Any], findings: list[dict[str, Any]], alone: bool
) -> int | None:
    """Store a round as the service does: on PostgreSQL by the hot path's statement (``alone``: by the session's
    repository instead, as on SQLite); its id, or None when its key was taken."""
    if database_url.startswith("postgresql") and not alone:

        async def go() -> int | None:
            pg = PgRounds(str(libpq_url(database_url)), size=1, timeout=30, connect_timeout=5, deadline=60)
            try:
                return await pg.insert_round(values, findings)
            finally:
                await pg.close()

        return asyncio.run(go())
    db = Database.from_settings(Settings(database_url=database_url))
    try:
        with db.session() as s:
            pk = repo.insert_round(s, values)
            if pk is not None:
                repo.insert_findings(s, [{**f, "round_pk": pk} for f in findings])
            return pk
    finally:
        db.dispose()


def round_played(record: bytes, when: datetime, source: str = "default") -> tuple[dict[str, Any], list[Any]]:
    """The rows of ``record``'s submission, as if it had been played at ``when`` (the API refuses a round no
    ruleset was in force for, or played in the future: the store must hold any legal ``played_at`` still)."""
    values, findings = row_of(record, source, played_at=when)
    return values, [{**f, "played_at": when} for f in findings]


FIRST_AND_LAST = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)]


@pytest.mark.parametrize("alone", [False, True], ids=["statement", "session"])
@pytest.mark.parametrize("when", FIRST_AND_LAST, ids=["year-1", "year-9999"])
def test_a_round_of_the_first_or_the_last_legal_year_is_stored(
    client: TestClient,
    examples: dict[str, bytes],
    engine: Engine,
    database_url: str,
    rows: Callable[..., int],
    when: datetime,
    alone: bool,
) -> None:
    """No month partition holds it: the DEFAULT partition does, and it is found like any other."""
    values, findings = round_played(examples["nj-double-then-dealer-blackjack"], when)
    assert stored(database_url, values, findings, alone) is not None
    assert stored(database_url, values, findings, alone) is None  # taken: its key is found
    got = client.get("/v1/rounds/EX-NJ-0003")
    assert got.status_code == 200, got.text
    assert got.json()["played_at"].startswith(when.isoformat()[:4])
    assert rows("rounds") == 1 and rows("round_keys") == 1 and rows("findings") == len(findings) == 1
    if engine.dialect.name == "postgresql":
        assert partition_of(engine, "EX-NJ-0003") == "rounds_default"
        with engine.connect() as conn:
            where = conn.execute(text("SELECT tableoid::regclass::text FROM findings")).scalar_one()
        assert where == "findings_default"


def test_a_round_id_taken_in_one_month_is_taken_in_every_other(
    client: TestClient,
    examples: dict[str, bytes],
    engine: Engine,
    database_url: str,
    rows: Callable[..., int],
) -> None:
    """The key is global (``round_keys``), not a partition's: the same round_id played in another month (another
    partition) is a conflict; the stored record again is still a replay."""
    body = examples["nj-compliant-double"]  # played 2026-11-30 (EST): December in UTC
    december(engine)
    assert post(client, body).status_code == 201
    for when in ("2025-01-15T12:00:00Z", "2026-10-15T12:00:00Z"):
        problem = assert_problem(post(client, played_at(body, when)), 409)
        assert problem["round_id"] == "EX-NJ-0001"
    assert post(client, body).status_code == 200
    for when in FIRST_AND_LAST:  # beyond what the API accepts: the store alone
        for alone in (False, True):
            assert stored(database_url, *round_played(body, when), alone) is None
    assert rows("rounds") == 1 and rows("round_keys") == 1
    if engine.dialect.name == "postgresql":
        assert partition_of(engine, "EX-NJ-0001") == "rounds_2026_12"


@ON_POSTGRES
def test_the_store_is_partitioned_by_month_as_the_migration_says(engine: Engine) -> None:
    with engine.connect() as conn:
        parents = conn.execute(
            text(
                "SELECT c.relname, p.partstrat, a.attname FROM pg_partitioned_table p "
                "JOIN pg_class c ON c.oid = p.partrelid "
                "JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] ORDER BY 1"
            )
        ).all()
        assert [tuple(p) for p in parents] == [("findings", "r", "played_at"), ("rounds", "r", "played_at")]
        children = {
            parent: set(
                conn.execute(
                    text(
                        "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = CAST(:p AS regclass)"
                    ),
                    {"p": parent},
                ).scalars()
            )
            for parent in partitions.PARTITIONED
        }
        now = partitions.month_of(datetime.now(UTC))
        for parent, names in children.items():
            assert f"{parent}_default" in names
            for month in partitions.months(partitions.add_months(now, -1), partitions.add_months(now, 3)):
                assert f"{parent}_{month:%Y_%m}" in names
            assert all(partitions.is_partition(n) for n in names)
            bounds = conn.execute(
                text("SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE relname = :n"),
                {"n": f"{parent}_{now:%Y_%m}"},
            ).scalar_one()
            assert bounds == (
                f"FOR VALUES FROM ('{now:%Y-%m}-01 00:00:00+00') TO "
                f"('{partitions.add_months(now, 1):%Y-%m}-01 00:00:00+00')"
            )
        # Every partition keeps the evidence's append-only trigger (a parent's statement trigger does not fire for
        # a statement on a partition).
        untriggered = (
            conn.execute(
                text(
                    "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                    "WHERE c.relkind = 'r' AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'append_only')"
                )
            )
            .scalars()
            .all()
        )
        assert untriggered == []
        # The key is global: round_keys is a plain table with the unique constraint; nothing refers to a partition.
        kinds = dict(
            conn.execute(
                text(
                    "SELECT relname, relkind FROM pg_class WHERE relname IN ('round_keys', 'rounds', 'findings')"
                )
            ).all()
        )
        assert kinds == {"round_keys": "r", "rounds": "p", "findings": "p"}
        referenced = (
            conn.execute(
                text(
                    "SELECT DISTINCT confrelid::regclass::text FROM pg_constraint WHERE contype = 'f' "
                    "AND conrelid IN ('rounds'::regclass, 'findings'::regclass, 'audits'::regclass, "
                    "'acknowledgements'::regclass)"
                )
            )
            .scalars()
            .all()
        )
        assert referenced == ["round_keys"]


@ON_POSTGRES
def test_creating_months_ahead_is_idempotent(engine: Engine) -> None:
    first = partitions.ensure_ahead(engine)
    assert first is not None and len(first) == partitions.BEHIND_MONTHS + 1 + partitions.AHEAD_MONTHS
    assert set(first.values()) <= {"created", "exists"}
    assert partitions.ensure_ahead(engine) == dict.fromkeys(first, "exists")
    far = date(2990, 7, 1)
    with engine.begin() as conn:
        assert partitions.ensure_months(conn, [far]) == {far: "created"}
    with engine.begin() as conn:
        assert partitions.ensure_months(conn, [far, far]) == {far: "exists"}
        assert conn.execute(text("SELECT to_regclass('rounds_2990_07') IS NOT NULL")).scalar_one()


@ON_POSTGRES
def test_a_month_whose_rounds_are_in_the_default_partition_is_skipped_and_they_stay_found(
    client: TestClient, examples: dict[str, bytes], engine: Engine, database_url: str
) -> None:
    body = examples["nj-compliant-double"]
    values, findings = round_played(body, datetime(2995, 3, 10, 12, tzinfo=UTC))
    assert stored(database_url, values, findings, False) is not None
    held, free = date(2995, 3, 1), date(2995, 4, 1)
    with engine.begin() as conn:
        assert partitions.ensure_months(conn, [held, free]) == {held: "skipped", free: "created"}
    assert partition_of(engine, "EX-NJ-0001") == "rounds_default"
    assert client.get("/v1/rounds/EX-NJ-0001").status_code == 200
    assert stored(database_url, values, findings, False) is None
    # A round of the month created now goes to its partition.
    other = round_played(examples["nj-dealer-draws-on-hard-17"], datetime(2995, 4, 2, tzinfo=UTC))
    assert stored(database_url, *other, False) is not None
    assert partition_of(engine, "EX-NJ-0002") == "rounds_2995_04"


@ON_POSTGRES
def test_a_partition_refuses_update_and_delete_to_any_role_but_the_owner(
    client: TestClient, examples: dict[str, bytes], engine: Engine, database_url: str
) -> None:
    """Even granted every privilege on the partition itself (a careless deployment), another role is refused."""
    december(engine)
    assert post(client, examples["nj-compliant-double"]).status_code == 201
    role = "bjaudit_test_partition_role"
    with engine.begin() as conn:
        conn.execute(text(f"DROP ROLE IF EXISTS {role}"))
        conn.execute(text(f"CREATE ROLE {role} LOGIN"))
        for t in ("rounds_2026_12", "findings_2026_12", "rounds_default"):
            conn.execute(text(f"GRANT ALL ON {t} TO {role}"))
    try:
        url = str(libpq_url(database_url)).replace("postgres@", f"{role}@", 1)
        with psycopg.connect(url, autocommit=True) as conn:
            for statement in (
                "DELETE FROM rounds_2026_12",
                "UPDATE findings_2026_12 SET rule = 'x'",
                "TRUNCATE rounds_default",
            ):
                with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
                    conn.execute(statement)
                assert "is append-only" in str(refused.value), statement
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM rounds_2026_12")).scalar_one() == 1
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP OWNED BY {role}"))
            conn.execute(text(f"DROP ROLE {role}"))


@ON_POSTGRES
def test_two_processes_creating_the_same_month_at_once_both_end(engine: Engine) -> None:
    """The service, the batch workers and a restore each create months at start. When two made the same month at
    once, each read the DEFAULT partitions (are the month's rows there?) and then each waited for the other's read
    to end before it could create the month: a deadlock (CI, 2026-12-05, the first week of a month not made yet).
    Here a reader of ``rounds`` holds both back until both have begun; then one makes the month and the other finds
    it made."""
    month = date(2991, 5, 1)
    with engine.connect() as reader:
        reader.begin()
        reader.execute(text("LOCK TABLE rounds IN ACCESS SHARE MODE"))
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            both = [pool.submit(_ensure_in_own_transaction, engine, month) for _ in range(2)]
            wait_until_calling(engine, 2, both)
            time.sleep(0.2)  # both have tried, and found the tables busy (or waited, before)
            reader.commit()
            outcomes = sorted(done.result(timeout=60)[month] for done in both)
    assert outcomes == ["created", "exists"]


def _ensure_in_own_transaction(engine: Engine, month: date, patience: float = 30.0) -> dict[date, str]:
    with engine.begin() as conn:
        return partitions.ensure_months(conn, [month], patience=patience)


def wait_until_calling(engine: Engine, n: int, running: list[concurrent.futures.Future[Any]]) -> None:
    """Until ``n`` sessions of the test's database are making a month (or waiting in it), none of ``running``
    having ended meanwhile."""
    deadline = time.monotonic() + 60
    while True:
        with engine.connect() as conn:
            calling = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND query LIKE 'SELECT bjaudit_ensure_month%'"
                )
            ).scalar_one()
        if calling >= n:
            return
        ended = [f for f in running if f.done()]
        assert not ended, f"ended before: {ended[0].result()}"
        assert time.monotonic() < deadline, f"{calling} of {n} sessions make a month"
        time.sleep(0.02)


@ON_POSTGRES
def test_a_month_made_while_a_round_is_stored_waits_for_the_store(engine: Engine) -> None:
    """A store locks ``round_keys`` and then ``rounds`` (the key is inserted first, in one statement); a new
    partition locks ``rounds`` and then ``round_keys`` (its foreign key). Made in that order they deadlocked: the
    month now takes all its locks at once or none, and tries again."""
    month = date(2992, 6, 1)
    with engine.connect() as store:
        store.begin()
        store.execute(text("LOCK TABLE round_keys IN ROW EXCLUSIVE MODE"))
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            made = pool.submit(_ensure_in_own_transaction, engine, month)
            wait_until_calling(engine, 1, [made])
            time.sleep(0.2)
            store.execute(text("LOCK TABLE rounds IN ROW EXCLUSIVE MODE"))
            store.execute(text("LOCK TABLE findings IN ROW EXCLUSIVE MODE"))
            store.commit()
            assert made.result(timeout=20) == {month: "created"}


@ON_POSTGRES
def test_a_month_waiting_for_a_long_reader_does_not_hold_the_stores_back(engine: Engine) -> None:
    """A month's partitions need the parents wholly, so their making waits for a long reader of ``rounds`` (a
    report, a restore's insert). Queued for the lock, it held every store back behind it; it now takes its locks
    at once or none, so stores go on while it waits, and it makes the month once the reader is done."""
    month = date(2993, 7, 1)
    with engine.connect() as reader:
        reader.begin()
        reader.execute(text("LOCK TABLE rounds IN ACCESS SHARE MODE"))
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            made = pool.submit(_ensure_in_own_transaction, engine, month)
            wait_until_calling(engine, 1, [made])
            time.sleep(0.2)
            with engine.begin() as store:
                store.execute(text("SET LOCAL lock_timeout = '1s'"))
                store.execute(text("LOCK TABLE round_keys IN ROW EXCLUSIVE MODE"))
                store.execute(text("LOCK TABLE rounds IN ROW EXCLUSIVE MODE"))
            assert not made.done()
            reader.commit()
            assert made.result(timeout=60) == {month: "created"}


@ON_POSTGRES
def test_a_month_whose_tables_stay_busy_is_said_busy_and_tried_again_later(engine: Engine) -> None:
    month = date(2994, 8, 1)
    with engine.connect() as reader:
        reader.begin()
        reader.execute(text("LOCK TABLE findings IN ACCESS SHARE MODE"))
        assert _ensure_in_own_transaction(engine, month, patience=0.2) == {month: "busy"}
        assert partitions.ensure_ahead(engine, now=datetime(2994, 8, 15, tzinfo=UTC)) is None
        reader.commit()
    assert _ensure_in_own_transaction(engine, month) == {month: "created"}
