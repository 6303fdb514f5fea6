"""A batch line without ``table.rules`` is audited by the elections its source registered for the table at
``played_at``, exactly as the single-round API audits it (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from tests.batch.conftest import NDJSON, ndjson, results, wait_done
from tests.integration.test_table_elections import HIT, S17, STAND, register, soft_17_round
from tests.keys import as_source


@pytest.fixture(autouse=True)
def no_registrations(engine: Engine) -> Iterator[None]:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM table_elections"))
    yield
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM table_elections"))


def test_batch_lines_use_the_registration_in_force(client: TestClient, engine: Engine) -> None:
    for source in ("bulk", "other"):
        register(client, "2026-11-01T00:00:00Z", STAND, source=source)
    register(client, "2026-12-01T00:00:00Z", HIT, source="bulk")
    lines = [
        soft_17_round("B-1", "2026-10-15T12:00:00Z"),  # before any registration: defaults
        soft_17_round("B-2", "2026-11-15T12:00:00Z"),  # stand
        soft_17_round("B-3", "2026-12-01T00:00:00Z"),  # hit, on the boundary
        soft_17_round("B-4", "2026-11-15T12:00:00Z", table="BJ22"),  # no registration for that table
        soft_17_round("B-5", "2026-11-15T12:00:00Z", rules=HIT),  # its own rules
        soft_17_round("B-6", "2026-11-30T23:59:59Z"),  # stand, next chunk (4 lines a chunk)
    ]
    client.headers.update(as_source(client, "bulk"))  # from here on, the table system "bulk"
    r = client.post("/v1/batches", content=ndjson(lines), headers=NDJSON)
    assert r.status_code == 202, r.text
    batch_id = r.json()["batch_id"]
    assert wait_done(client, batch_id)["state"] == "done"
    got = {x["round_id"]: x for x in results(client, batch_id)}
    assert {k: v["verdict"] for k, v in got.items()} == {
        "B-1": "compliant",
        "B-2": "violations",
        "B-3": "compliant",
        "B-4": "compliant",
        "B-5": "compliant",
        "B-6": "violations",
    }
    assert [(f["rule"], f["event"]) for f in got["B-2"]["findings"]] == [S17]
    with engine.connect() as conn:
        stored = dict(conn.execute(text("SELECT round_id, elections_source FROM rounds")).all())
    assert stored == {
        "B-1": "defaults",
        "B-2": "registered",
        "B-3": "registered",
        "B-4": "defaults",
        "B-5": "record",
        "B-6": "registered",
    }
    # The same audit as the single-round API gives the same record from the same source.
    for line in lines:
        doc: dict[str, Any] = json.loads(line)
        single = client.post(
            "/v1/audit",
            content=line,
            headers={"content-type": "application/json"},
        ).json()
        stored_audit = client.get(f"/v1/rounds/{doc['round_id']}").json()["audit"]
        assert stored_audit == single
