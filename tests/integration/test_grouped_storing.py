"""Submissions stored together (app.store.pg: the storing statements of concurrent submissions go to PostgreSQL in
one pipeline, one transaction): each request still gets exactly the answer it would get alone, nothing is stored
twice or half, and the chain stays sound.

Written from the contract before running: a round is answered 201 once stored, 200 with the stored audit when the
same record was stored before, 409 when another record holds its key (round-v1.md, "Idempotency"); a revoked key
stores nothing (docs/service.md); every stored round has its chain entry, in one unbroken sequence per source
(docs/integrity.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import psycopg
import pytest
from sqlalchemy import Engine

from app.config import Settings, libpq_url
from app.store import pg as pg_store
from app.store import rounds as repo
from app.store.db import Database
from app.store.pg import KeyRevoked, PgRounds
from app.synth.generator import generate_rounds
from app.usecases import integrity, offline
from app.usecases import keys as key_cases
from app.usecases import rounds as round_cases
from app.usecases.errors import RoundConflict

SOURCE = "grouped"
ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


@pytest.fixture
def groups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each group sent to the server, in order."""
    sizes: list[int] = []
    pipelined = pg_store._pipelined

    async def counted(conn: Any, group: Any) -> list[Any]:
        sizes.append(len(group))
        return await pipelined(conn, group)

    monkeypatch.setattr(pg_store, "_pipelined", counted)
    return sizes


@pytest.fixture
def db(database_url: str, engine: Engine) -> Iterator[Database]:
    database = Database.from_settings(Settings(database_url=database_url))
    yield database
    database.dispose()


def run(database_url: str, work: Callable[[PgRounds], Any], size: int = 2) -> Any:
    async def go() -> Any:
        pg = PgRounds(str(libpq_url(database_url)), size=size, timeout=30, connect_timeout=5, deadline=60)
        try:
            return await work(pg)
        finally:
            await pg.close()

    return asyncio.run(go())


_KEY_THEN_ROUND = (
    "WITH k AS (INSERT INTO round_keys (round_id, source, jurisdiction, played_at) "
    "VALUES (%(round_id)s, %(source)s, %(jurisdiction)s, %(played_at)s) RETURNING id) "
    f"INSERT INTO rounds (id, {', '.join(pg_store._ROUND_COLUMNS)}) "
    f"SELECT k.id, {pg_store._typed(pg_store._ROUND_COLUMNS)} FROM k"
)
"""Another transaction's round stored as the batch path stores one (its key, then the round), without its chain
entry: the round's key is held until that transaction ends."""


def row_of(record: bytes, source: str = SOURCE, **change: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The values and findings rows the submission of ``record`` stores (``change``: columns replaced)."""
    rnd = offline.read_round(record)
    done = offline.audit_read(rnd, None)
    values = round_cases.round_row(done, record, hashlib.sha256(record).hexdigest(), source)
    findings = repo.finding_rows(0, done.result.get("findings", ()), source, rnd)
    return {**values, **change}, findings


def sound(db: Database, source: str = SOURCE) -> integrity.Report:
    with db.reading() as s:
        return integrity.verify_source(s, source)


@ON_POSTGRES
def test_concurrent_submissions_are_stored_in_groups_each_answered_as_alone(
    database_url: str, db: Database, groups: list[int], rows: Callable[..., int]
) -> None:
    docs = list(generate_rounds(40, seed=20261203))
    records = [orjson.dumps(d) for d in docs]
    repeated = records[7]
    other = orjson.dumps(
        {**docs[11], "table": {**docs[11]["table"], "id": "ANOTHER-TABLE"}}
    )  # round 11's key

    async def work(pg: PgRounds) -> list[Any]:
        # the first of round 11 goes first (the conflicting record then finds it stored), then everything at once
        first = await round_cases.submit_round_pg(pg, records[11], SOURCE)
        rest = [r for i, r in enumerate(records) if i != 11] + [repeated] * 5 + [other]
        got = await asyncio.gather(
            *(round_cases.submit_round_pg(pg, r, SOURCE) for r in rest), return_exceptions=True
        )
        return [first, *got]

    outcomes = run(database_url, work)
    first, fresh, repeats, conflict = outcomes[0], outcomes[1:40], outcomes[40:45], outcomes[45]
    assert first.created
    assert all(not isinstance(o, BaseException) and o.created for o in fresh), fresh
    # the repeats of round 7 went with round 7 itself: one stored it, the others answer its stored audit
    seven = [o for o in [*fresh, *repeats] if o.round_id == docs[7]["round_id"]]
    assert sorted(o.created for o in seven) == [False] * 5 + [True]
    assert len({o.body for o in seven}) == 1
    assert isinstance(conflict, RoundConflict), conflict
    assert rows("rounds") == 40
    # round 11 alone, then the 45 others together (each statement once; pool of 2: in one or two groups)
    assert groups[0] == 1 and max(groups[1:]) > 1 and sum(groups) == 46, groups
    report = sound(db)
    assert report.ok and report.entries == 40, report.to_dict()


@ON_POSTGRES
def test_a_statement_that_fails_in_a_group_fails_alone(
    database_url: str, db: Database, groups: list[int], rows: Callable[..., int]
) -> None:
    records = [orjson.dumps(d) for d in generate_rounds(3, seed=7)]
    good_a, bad, good_b = row_of(records[0]), row_of(records[1], verdict="v" * 40), row_of(records[2])

    async def work(pg: PgRounds) -> list[Any]:
        return await asyncio.gather(
            *(pg.insert_round(v, f) for v, f in (good_a, bad, good_b)), return_exceptions=True
        )

    a, failed, b = run(database_url, work, size=1)
    assert isinstance(a, int) and isinstance(b, int), (a, b)
    assert isinstance(failed, psycopg.errors.StringDataRightTruncation), failed
    # the group of three failed as a whole (nothing of it stored), then each statement ran alone
    assert groups == [3], groups
    assert rows("rounds") == 2
    report = sound(db)
    assert report.ok and report.entries == 2, report.to_dict()


@ON_POSTGRES
def test_a_revoked_key_in_a_group_stores_nothing_for_its_request_only(
    database_url: str, db: Database, groups: list[int], rows: Callable[..., int]
) -> None:
    with db.session() as s:
        live = key_cases.create_key(s, SOURCE, ("submit",), "live").info["key_id"]
        gone = key_cases.create_key(s, SOURCE, ("submit",), "gone").info["key_id"]
        key_cases.revoke_key(s, gone)
    records = [orjson.dumps(d) for d in generate_rounds(4, seed=11)]

    async def work(pg: PgRounds) -> list[Any]:
        keys = [live, gone, live, gone]
        return await asyncio.gather(
            *(pg.insert_round(*row_of(r), key_id=k) for r, k in zip(records, keys, strict=True)),
            return_exceptions=True,
        )

    outcomes = run(database_url, work, size=1)
    assert isinstance(outcomes[0], int) and isinstance(outcomes[2], int), outcomes
    assert all(isinstance(o, KeyRevoked) for o in outcomes[1::2]), outcomes
    assert groups == [4], groups  # one group: a revoked key is an answer, not an error
    assert rows("rounds") == 2
    assert sound(db).ok


def test_a_database_that_cannot_be_reached_fails_each_request_of_the_group(groups: list[int]) -> None:
    records = [orjson.dumps(d) for d in generate_rounds(3, seed=5)]

    async def work() -> list[Any]:
        pg = PgRounds("host=127.0.0.1 port=1 dbname=x", size=1, timeout=5, connect_timeout=2)
        try:
            return await asyncio.gather(
                *(pg.insert_round(*row_of(r)) for r in records), return_exceptions=True
            )
        finally:
            await pg.close()

    outcomes = asyncio.run(work())
    assert all(isinstance(o, psycopg.OperationalError) for o in outcomes), outcomes
    assert groups == [], groups  # never connected: no group was sent


@ON_POSTGRES
def test_a_group_that_fails_on_the_client_side_stores_nothing_and_each_runs_alone(
    database_url: str, db: Database, groups: list[int], rows: Callable[..., int]
) -> None:
    """A parameter psycopg cannot send fails the group on the client, after the statements before it were sent: the
    group's transaction is rolled back, so those are stored by their run alone and answered as created."""
    records = [orjson.dumps(d) for d in generate_rounds(3, seed=13)]
    first, unsendable, last = (
        row_of(records[0]),
        row_of(records[1], verdict={"not": "sendable"}),
        row_of(records[2]),
    )

    async def work(pg: PgRounds) -> list[Any]:
        return await asyncio.gather(
            *(pg.insert_round(v, f) for v, f in (first, unsendable, last)), return_exceptions=True
        )

    a, failed, b = run(database_url, work, size=1)
    assert isinstance(a, int) and isinstance(b, int), (a, b)  # created now, not found stored
    assert isinstance(failed, psycopg.ProgrammingError), failed
    assert groups == [3], groups
    assert rows("rounds") == 2
    assert sound(db).ok


@ON_POSTGRES
def test_a_group_gives_way_to_a_batch_chunk_holding_one_of_its_rounds_instead_of_deadlocking(
    database_url: str, db: Database, groups: list[int], rows: Callable[..., int]
) -> None:
    """A batch chunk inserts its rounds, then takes its source's chain head (app.usecases.batches). A group whose first
    statement took that head and whose second waits for a round the chunk inserted would deadlock with it: the group
    gives way (its lock timeout, below PostgreSQL's deadlock_timeout), the chunk commits, and each statement runs
    alone: the first is stored, the second finds the chunk's round."""
    conninfo = str(libpq_url(database_url))
    records = [orjson.dumps(d) for d in generate_rounds(2, seed=17)]
    mine, theirs = row_of(records[0]), row_of(records[1])
    chunk_insert = _KEY_THEN_ROUND
    head = (
        "INSERT INTO chain_heads (source, seq, hash) VALUES (%s, 0, %s) "
        "ON CONFLICT (source) DO UPDATE SET seq = chain_heads.seq"
    )

    async def work(pg: PgRounds) -> list[Any]:
        chunk = await psycopg.AsyncConnection.connect(conninfo)
        try:
            async with chunk.transaction():
                await chunk.execute(chunk_insert, theirs[0])  # the chunk's round, not committed yet
                group = asyncio.gather(
                    *(pg.insert_round(v, f) for v, f in (mine, theirs)), return_exceptions=True
                )
                await asyncio.sleep(0.1)  # the group holds the head and waits for the chunk's round
                started = time.monotonic()
                await chunk.execute(head, (SOURCE, b"\0" * 32))  # the chunk's last step: the head
                waited = time.monotonic() - started
            return [*(await group), waited]
        finally:
            await chunk.close()

    stored, found, waited = run(database_url, work, size=1)
    assert isinstance(stored, int), stored
    assert found is None, found  # taken: by the chunk, committed
    assert waited < 0.9, waited  # the group gave way before PostgreSQL's deadlock detection (1 s)
    assert groups == [2], groups
    assert rows("rounds") == 2


@ON_POSTGRES
def test_a_submission_alone_waits_for_a_round_another_transaction_holds_and_gets_its_answer(
    database_url: str, db: Database, groups: list[int], rows: Callable[..., int]
) -> None:
    """A group of one whose round another transaction is inserting waits longer than the group's lock timeout: it
    gives way and runs alone, waiting as long as its deadline, and finds the round stored (a replay or a conflict, as
    before grouping), not a 503."""
    conninfo = str(libpq_url(database_url))
    theirs = row_of(orjson.dumps(next(iter(generate_rounds(1, seed=19)))))
    insert = _KEY_THEN_ROUND

    async def work(pg: PgRounds) -> Any:
        other = await psycopg.AsyncConnection.connect(conninfo)
        try:
            async with other.transaction():
                await other.execute(
                    insert, theirs[0]
                )  # not committed for 0.5 s: longer than GROUP_LOCK_TIMEOUT
                mine = asyncio.ensure_future(pg.insert_round(*theirs))
                await asyncio.sleep(0.5)
            return await mine
        finally:
            await other.close()

    assert run(database_url, work, size=1) is None  # taken: the other transaction's round, committed
    assert groups == [1], groups
    assert rows("rounds") == 1
