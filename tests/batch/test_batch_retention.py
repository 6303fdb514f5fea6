"""A batch line whose round_id is taken by a round of an archived month (issue 21): a conflict whose problem says
where the round went (the record to compare with is in the archive file), whichever line of the chunk it is."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.config import Settings
from app.store import partitions
from app.store.db import Database
from app.usecases import retention
from tests.batch.conftest import NDJSON, ndjson, results, wait_done

ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


def october(record: bytes, day: int) -> bytes:
    doc = orjson.loads(record)
    doc["played_at"] = f"2024-10-{day:02d}T12:00:00Z"
    return orjson.dumps(doc)


@ON_POSTGRES
def test_a_line_of_an_archived_round_is_a_conflict_saying_where_it_went(
    client: TestClient,
    engine: Engine,
    database_url: str,
    examples: dict[str, bytes],
    tmp_path: Path,
    count: Callable[[str], int],
) -> None:
    with engine.begin() as conn:
        partitions.ensure_months(conn, [date(2024, 10, 1)])
    first = october(examples["nj-compliant-double"], 3)
    r = client.post("/v1/rounds", content=first, headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    db = Database.from_settings(Settings(database_url=database_url))
    try:
        (done,) = retention.archive(db, date(2024, 11, 1), tmp_path, "auditor", Ed25519PrivateKey.generate())
    finally:
        db.dispose()
    # The same record again, alone: 410; in a batch, twice (a repeat in the chunk) and beside a new round.
    again = client.post("/v1/rounds", content=first, headers={"Content-Type": "application/json"})
    assert again.status_code == 410, again.text
    other = october(examples["nj-dealer-draws-on-hard-17"], 4)
    r = client.post("/v1/batches", content=ndjson([first, other, first]), headers=NDJSON)
    assert r.status_code == 202, r.text
    st = wait_done(client, r.json()["batch_id"])
    assert st["state"] == "done", st
    assert (st["counts"]["conflicts"], st["counts"]["compliant"] + st["counts"]["violations"]) == (2, 1)
    lines = results(client, r.json()["batch_id"])
    gone = [line for line in lines if line["outcome"] == "conflict"]
    assert [line["line"] for line in gone] == [1, 3]
    assert all(line["problem"]["archive"] == str(done.path.resolve()) for line in gone)
    assert count("SELECT count(*) FROM rounds") == 1
