"""Batches of records as real tables write them (round-v1 section 2.3): a voided round's reason and a finding's
correction at the table are stored by the batch path (COPY through the staging table on PostgreSQL, SQLAlchemy on
SQLite) exactly as a single submission stores them, and the chain verifies."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from tests.batch.conftest import NDJSON, ndjson, results, wait_done
from tests.integration.test_reports import overpaid
from tests.keys import as_source
from tests.spec23 import burned_in_play, corrected, voided

RECORDS = [
    voided("V1", "2026-12-01T21:00:00-05:00", table="T1", dealer_id="D1"),
    voided("V2", "2026-12-02T10:00:00Z", "card_exposed", dealt_after=True, table="T2"),
    corrected("C1", "2026-12-01T10:00:00-05:00", 1000, table="T1"),
    corrected("C2", "2026-12-02T12:00:00Z", 800, table="T2"),
    burned_in_play("B1", "2026-12-02T13:00:00Z", table="T1"),
    overpaid("P1", "2026-12-03T01:00:00Z", table="T2"),
]

ROUNDS = (
    "SELECT round_id, jurisdiction, table_id, played_at, dealer_id, record_sha256, verdict, finding_count, audit, "
    "void_reason FROM rounds WHERE source = :source ORDER BY round_id"
)
FINDINGS = (
    "SELECT r.round_id, f.seq, f.rule, f.event_index, f.hand, f.amount_delta, f.corrected_by, f.corrected_actual, "
    "f.audit_no FROM findings f JOIN rounds r ON r.id = f.round_pk WHERE f.source = :source ORDER BY r.round_id, "
    "f.seq"
)


def test_a_batch_stores_voids_and_corrections_as_single_submissions_do(
    client: TestClient, engine: Engine
) -> None:
    for rec in RECORDS:
        resp = client.post(
            "/v1/rounds",
            content=rec,
            headers={"content-type": "application/json", **as_source(client, "one")},
        )
        assert resp.status_code == 201, resp.text
    client.headers.update(as_source(client, "bulk"))
    resp = client.post("/v1/batches", content=ndjson(RECORDS), headers=NDJSON)
    assert resp.status_code == 202, resp.text
    batch_id = resp.json()["batch_id"]
    assert wait_done(client, batch_id)["counts"]["rejected"] == 0
    lines = results(client, batch_id)
    assert [(x["round_id"], x["verdict"]) for x in lines] == [
        ("V1", "compliant"),
        ("V2", "violations"),
        ("C1", "violations"),
        ("C2", "violations"),
        ("B1", "violations"),
        ("P1", "violations"),
    ]

    def rows(sql: str, source: str) -> list[tuple[Any, ...]]:
        with engine.connect() as conn:
            return [tuple(x) for x in conn.execute(text(sql), {"source": source})]

    one, bulk = rows(ROUNDS, "one"), rows(ROUNDS, "bulk")
    assert one == bulk
    assert [(r[0], r[-1]) for r in bulk] == [
        ("B1", None),
        ("C1", None),
        ("C2", None),
        ("P1", None),
        ("V1", "misdeal"),
        ("V2", "card_exposed"),
    ]
    one_f, bulk_f = rows(FINDINGS, "one"), rows(FINDINGS, "bulk")
    assert one_f == bulk_f
    assert [(f[0], f[5], f[6], f[7], f[8]) for f in bulk_f] == [
        ("B1", None, None, None, 1),
        ("C1", 0, 8, 1000, 1),
        ("C2", 200, 8, 800, 1),
        ("P1", -500, None, None, 1),
        ("V2", None, None, None, 1),
    ]
    # The batch's lines, by corrections at the table.
    fixed = client.get(f"/v1/batches/{batch_id}/results", params={"corrected": "true"})
    assert [orjson.loads(x)["round_id"] for x in fixed.content.splitlines()] == ["C1", "C2"]
    others = client.get(f"/v1/batches/{batch_id}/results", params={"corrected": "false", "only": "findings"})
    assert [orjson.loads(x)["round_id"] for x in others.content.splitlines()] == ["V2", "B1", "P1"]
    none = client.get(f"/v1/batches/{batch_id}/results", params={"corrected": "true", "only": "rejected"})
    assert none.status_code == 200 and none.content == b""
    bad = client.get(f"/v1/batches/{batch_id}/results", params={"corrected": "maybe"})
    assert bad.status_code == 422 and [e["parameter"] for e in bad.json()["errors"]] == ["corrected"]
    regulator = as_source(client, None, ["read"])
    for source in ("one", "bulk"):
        resp = client.get("/v1/integrity", params={"source": source}, headers=regulator)
        assert resp.status_code == 200 and resp.json()["ok"], resp.text
