"""POST /v1/batches end to end on SQLite and PostgreSQL (audited in-process): exact per-line outcomes and counts,
gzip, cut-off uploads, idempotent re-upload, a chunk that dies half-way, results streaming, resumption."""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text, update

from app.config import Settings
from app.main import create_app
from app.store.db import Database
from app.store.models import batches_table
from app.synth.mutator import mutate
from app.usecases import batches
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, results, wait_done
from tests.keys import as_source, keyed


def _problem(client: TestClient, record: bytes) -> dict[str, Any]:
    """What the single-round API answers for this record, without what is the request's own (`instance`,
    `request_id`)."""
    r = client.post("/v1/audit", content=record, headers={"content-type": "application/json"})
    assert r.status_code == 422
    body: dict[str, Any] = r.json()
    body.pop("instance", None)
    assert body.pop("request_id") == r.headers["x-request-id"]
    return body


def _mutated(doc: dict[str, Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    out = mutate(doc, rng)
    assert out is not None
    return out[0]


def test_mixed_batch_gives_exact_per_line_results(
    client: TestClient, examples: dict[str, bytes], count: Callable[[str], int]
) -> None:
    legal = legal_rounds(8)
    docs = [dumps(d) for d in legal]
    # Submitted before the batch through the single-round API: one the batch repeats, one it contradicts.
    assert (
        client.post("/v1/rounds", content=docs[6], headers={"content-type": "application/json"}).status_code
        == 201
    )
    assert (
        client.post("/v1/rounds", content=docs[7], headers={"content-type": "application/json"}).status_code
        == 201
    )
    bad_json = b'{"round_id": "X-1", "jurisdiction": '
    bad_schema = orjson.dumps({"round_id": "X-2", "jurisdiction": "US-NJ", "seats": []})
    violation = examples["nj-dealer-draws-on-hard-17"].replace(b"\n", b" ")
    changed = dumps(_mutated(legal[1], 5))  # same round_id as docs[1], another record
    changed7 = dumps({**legal[7], "dealer_id": "E-999"})
    lines = [
        docs[0],  # 1 compliant
        docs[1],  # 2 compliant
        violation,  # 3 violations
        bad_json,  # 4 rejected
        b"",  # 5 blank: no result, but counted in line numbers
        bad_schema,  # 6 rejected
        docs[0],  # 7 duplicate within the batch (another chunk: 4 lines a chunk)
        changed,  # 8 conflict within the batch
        docs[6],  # 9 duplicate of a round submitted before
        changed7,  # 10 conflict with a round submitted before
        docs[2],  # 11 compliant
        docs[0],  # 12 duplicate again, same chunk as 11
    ]
    r = client.post("/v1/batches", content=ndjson(lines), headers=NDJSON)
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["lines_received"] == 11 and body["created"] is True
    assert r.headers["location"] == body["location"] == f"/v1/batches/{body['batch_id']}"
    st = wait_done(client, body["batch_id"])
    assert st["state"] == "done"
    assert st["counts"] == {
        "lines_received": 11,
        "audited": 11,
        "compliant": 3,
        "violations": 1,
        "unreplayable": 0,
        "rejected": 2,
        "duplicates": 3,
        "conflicts": 2,
    }
    got = results(client, body["batch_id"])
    assert [(x["line"], x["outcome"]) for x in got] == [
        (1, "compliant"),
        (2, "compliant"),
        (3, "violations"),
        (4, "rejected"),
        (6, "rejected"),
        (7, "duplicate"),
        (8, "conflict"),
        (9, "duplicate"),
        (10, "conflict"),
        (11, "compliant"),
        (12, "duplicate"),
    ]
    by_line = {x["line"]: x for x in got}
    assert by_line[1]["round_id"] == legal[0]["round_id"] and by_line[1]["findings"] == []
    assert by_line[3]["verdict"] == "violations"
    assert [f["rule"] for f in by_line[3]["findings"]] == [
        f["rule"]
        for f in client.post(
            "/v1/audit", content=violation, headers={"content-type": "application/json"}
        ).json()["findings"]
    ]
    # Rejected lines carry exactly the single-round API's problem.
    assert by_line[4]["problem"] == _problem(client, bad_json)
    assert by_line[6]["problem"] == _problem(client, bad_schema)
    assert by_line[6]["round_id"] == "X-2"
    assert by_line[8]["problem"]["status"] == 409 and by_line[8]["round_id"] == legal[1]["round_id"]
    assert by_line[10]["problem"]["type"] == "urn:bjaudit:problem:round-conflict"
    # Stored once each: 3 legal + 1 violation from the batch, 2 submitted before.
    assert count("SELECT count(*) FROM rounds") == 6
    assert count("SELECT count(*) FROM batch_results") == 11
    # Batch rounds are ordinary stored rounds.
    r = client.get(f"/v1/rounds/{legal[2]['round_id']}")
    assert r.status_code == 200 and r.json()["record_sha256"]
    assert client.get("/v1/rounds", params={"verdict": "violations"}).json()["items"]

    # Filters
    assert [x["line"] for x in results(client, body["batch_id"], "findings")] == [3]
    assert [x["line"] for x in results(client, body["batch_id"], "rejected")] == [4, 6]
    assert client.get(f"/v1/batches/{body['batch_id']}/results?only=nope").status_code == 422
    assert client.get("/v1/batches/nope").status_code == 404
    assert client.get("/v1/batches/nope/results").status_code == 404


def test_gzip_upload_and_idempotent_reupload(client: TestClient, count: Callable[[str], int]) -> None:
    docs = [dumps(d) for d in legal_rounds(10, seed=3)]
    raw = ndjson(docs)
    # Two gzip members back to back, as `cat a.gz b.gz` makes.
    body = gzip.compress(raw[: len(raw) // 2]) + gzip.compress(raw[len(raw) // 2 :])
    headers = {**NDJSON, "content-encoding": "gzip"}
    r = client.post("/v1/batches", content=body, headers=headers)
    assert r.status_code == 202, r.text
    first = r.json()
    st = wait_done(client, first["batch_id"])
    assert st["state"] == "done" and st["counts"]["compliant"] == 10
    assert st["content_sha256"] and st["bytes_received"] == len(raw)

    # The same content again (plain this time): the same batch, nothing new stored.
    r = client.post("/v1/batches", content=raw, headers=NDJSON)
    assert r.status_code == 200 and r.json()["batch_id"] == first["batch_id"]
    assert r.headers["idempotent-replayed"] == "true"
    assert count("SELECT count(*) FROM batches") == 1
    assert count("SELECT count(*) FROM rounds") == 10
    # Another source is another batch: its rounds are other rounds (round_id is unique per source).
    client.headers.update(as_source(client, "other"))
    r = client.post("/v1/batches", content=raw, headers=NDJSON)
    assert r.status_code == 202
    assert wait_done(client, r.json()["batch_id"])["counts"]["compliant"] == 10


def test_cut_off_upload_is_reported_not_half_accepted(
    client: TestClient, count: Callable[[str], int]
) -> None:
    docs = [dumps(d) for d in legal_rounds(12, seed=4)]
    whole = gzip.compress(ndjson(docs))
    r = client.post(
        "/v1/batches", content=whole[: len(whole) * 2 // 3], headers={**NDJSON, "content-encoding": "gzip"}
    )
    assert r.status_code == 400, r.text
    problem = r.json()
    assert problem["type"] == "urn:bjaudit:problem:batch-upload-incomplete"
    st = client.get(f"/v1/batches/{problem['batch_id']}").json()
    assert st["state"] == "failed" and "gzip" in st["error"]
    assert count("SELECT count(*) FROM batch_chunks") == 0
    assert count("SELECT count(*) FROM rounds") == 0
    r = client.post("/v1/batches", content=b"not gzip at all", headers={**NDJSON, "content-encoding": "gzip"})
    assert r.status_code == 400
    assert client.post("/v1/batches", content=b"{}", headers={"content-type": "text/csv"}).status_code == 415


def test_a_gzipped_body_without_its_content_encoding_is_refused_whole(
    client: TestClient, count: Callable[[str], int]
) -> None:
    body = gzip.compress(ndjson([dumps(d) for d in legal_rounds(3, seed=5)]))
    r = client.post("/v1/batches", content=body, headers=NDJSON)
    assert r.status_code == 415, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "sent without 'Content-Encoding: gzip'" in r.json()["detail"]
    assert count("SELECT count(*) FROM batches") == 0


def test_content_length_mismatch_fails_the_upload(settings: Settings, count: Callable[[str], int]) -> None:
    db = Database.from_settings(settings)
    try:
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=2, max_line_bytes=10_000)
        w.feed(ndjson([dumps(d) for d in legal_rounds(5, seed=6)]))
        with pytest.raises(batches.UploadIncomplete):
            w.finish(declared_length=w.bytes_received + 100)
    finally:
        db.dispose()
    assert count("SELECT count(*) FROM batch_chunks") == 0
    assert count("SELECT count(*) FROM batches WHERE state = 'failed'") == 1


def test_a_chunk_that_dies_half_way_leaves_nothing_and_is_redone(
    settings: Settings, count: Callable[[str], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database.from_settings(settings)
    try:
        docs = [dumps(d) for d in legal_rounds(10, seed=8)]
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=4, max_line_bytes=1 << 20)
        w.feed(ndjson(docs + [docs[0]]))
        up = w.finish(None)
        assert up.chunks == [0, 1, 2]

        def die(batch_id: str, chunk_no: int) -> None:
            if chunk_no == 1:
                raise KeyboardInterrupt("worker killed")

        monkeypatch.setattr(batches, "_after_rounds_hook", die)
        assert batches.process_chunk(db, up.batch_id, 0)
        with pytest.raises(KeyboardInterrupt):
            batches.process_chunk(db, up.batch_id, 1)
        assert count("SELECT count(*) FROM rounds") == 4  # chunk 0 only: chunk 1's inserts rolled back
        assert count("SELECT count(*) FROM batch_chunks WHERE done_at IS NOT NULL") == 1
        monkeypatch.setattr(batches, "_after_rounds_hook", None)
        with db.reading() as s:
            assert batches.pending_chunks(s, up.batch_id) == [(up.batch_id, 1), (up.batch_id, 2)]
        assert batches.process_chunk(db, up.batch_id, 1)
        assert batches.process_chunk(db, up.batch_id, 2)
        assert not batches.process_chunk(db, up.batch_id, 1)  # done: never twice
        with db.reading() as s:
            st = batches.batch_status(s, up.batch_id)
        assert st["state"] == "done"
        assert st["counts"]["compliant"] == 10 and st["counts"]["duplicates"] == 1
        assert count("SELECT count(*) FROM rounds") == 10
        assert count("SELECT count(*) FROM batch_results") == 11
    finally:
        db.dispose()


def test_service_restart_resumes_undone_chunks(settings: Settings, count: Callable[[str], int]) -> None:
    """A batch stored but not audited (the service stopped) is taken up when the service starts again."""
    db = Database.from_settings(settings)
    try:
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=3, max_line_bytes=1 << 20)
        w.feed(ndjson([dumps(d) for d in legal_rounds(7, seed=9)]))
        up = w.finish(None)
    finally:
        db.dispose()
    with TestClient(create_app(settings)) as c:
        keyed(c, settings.database_url)
        st = wait_done(c, up.batch_id)
    assert st["state"] == "done" and st["counts"]["compliant"] == 7
    assert count("SELECT count(*) FROM rounds") == 7


def test_upload_is_accepted_when_queueing_fails_after_commit(
    client: TestClient, count: Callable[[str], int]
) -> None:
    """The batch is committed before its chunks are queued: a queue that fails then is no reason to answer an
    error (the workers' rescue, or the next start, takes the batch up)."""
    runner = client.app.state.batch_runner  # type: ignore[attr-defined]

    def broken(_items: Any) -> None:
        raise RuntimeError("queue unreachable")

    submit, runner.submit = runner.submit, broken
    try:
        docs = [dumps(d) for d in legal_rounds(6, seed=21)]
        r = client.post("/v1/batches", content=ndjson(docs), headers=NDJSON)
    finally:
        runner.submit = submit
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["created"] is True and body["lines_received"] == 6
    st = client.get(body["location"]).json()
    assert st["state"] == "queued" and st["chunks"] == 2 and st["chunks_done"] == 0
    assert count("SELECT count(*) FROM batch_chunks") == 2
    # What the rescue does: queue the undone chunks again; they are audited.
    runner.resume()
    assert wait_done(client, body["batch_id"])["counts"]["compliant"] == 6


def test_batch_stores_rounds_and_findings_as_the_single_round_api_does(
    client: TestClient, examples: dict[str, bytes], engine: Any
) -> None:
    """The bulk path (COPY on PostgreSQL) stores exactly the columns a single submission stores."""
    from sqlalchemy import text

    records = [examples["nj-dealer-draws-on-hard-17"].replace(b"\n", b" ")]
    records += [dumps(d) for d in legal_rounds(5, seed=23)]
    for rec in records:
        r = client.post(
            "/v1/rounds",
            content=rec,
            headers={"content-type": "application/json", **as_source(client, "one")},
        )
        assert r.status_code == 201, r.text
    client.headers.update(as_source(client, "bulk"))
    r = client.post("/v1/batches", content=ndjson(records), headers=NDJSON)
    assert r.status_code == 202, r.text
    assert wait_done(client, r.json()["batch_id"])["state"] == "done"

    def rows(sql: str, source: str) -> list[tuple[Any, ...]]:
        with engine.connect() as conn:
            return [tuple(x) for x in conn.execute(text(sql), {"source": source})]

    rounds_sql = (
        "SELECT jurisdiction, round_id, table_id, played_at, dealer_id, shoe_id, record, record_sha256, verdict, "
        "ruleset, engine_version, elections_source, finding_count, audit FROM rounds WHERE source = :source "
        "ORDER BY round_id"
    )
    findings_sql = (
        "SELECT r.round_id, f.seq, f.rule, f.also_cited_as, f.citation_status, f.category, f.event_index, f.hand, "
        "f.amount_delta, f.jurisdiction, f.table_id, f.played_at FROM findings f JOIN rounds r ON r.id = f.round_pk "
        "WHERE f.source = :source ORDER BY r.round_id, f.seq"
    )
    one, bulk = rows(rounds_sql, "one"), rows(rounds_sql, "bulk")
    assert len(one) == 6 and one == bulk
    one_f, bulk_f = rows(findings_sql, "one"), rows(findings_sql, "bulk")
    assert one_f and one_f == bulk_f


def test_a_repeated_line_that_conflicts_with_a_stored_round_is_a_conflict_each_time(
    client: TestClient, count: Callable[[str], int]
) -> None:
    doc = legal_rounds(1)[0]
    stored = dumps(doc)
    assert (
        client.post("/v1/rounds", content=stored, headers={"content-type": "application/json"}).status_code
        == 201
    )
    other = dumps({**doc, "dealer_id": "E-777"})  # same round_id, another record; twice in one chunk
    r = client.post("/v1/batches", content=ndjson([other, other]), headers=NDJSON)
    assert r.status_code == 202, r.text
    st = wait_done(client, r.json()["batch_id"])
    assert (st["counts"]["conflicts"], st["counts"]["duplicates"]) == (2, 0)
    assert [x["outcome"] for x in results(client, r.json()["batch_id"])] == ["conflict", "conflict"]
    assert count("SELECT count(*) FROM rounds") == 1


def test_an_upload_that_died_half_way_is_swept_as_failed(
    settings: Settings, count: Callable[[str], int]
) -> None:
    db = Database.from_settings(settings)
    try:
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=2, max_line_bytes=10_000)
        w.feed(
            ndjson([dumps(d) for d in legal_rounds(5, seed=7)])
        )  # two chunks stored, then the process "dies"
        assert count("SELECT count(*) FROM batch_chunks") == 2
        with db.session() as s:  # still arriving: the runners do not see it, a sweep leaves it
            assert batches.pending_chunks(s) == []
            assert batches.sweep_stale_uploads(s, idle_seconds=60) == 0
            assert batches.batch_status(s, w.batch_id)["state"] == "uploading"
        with db.engine.begin() as conn:
            conn.execute(
                text("UPDATE batches SET updated_at = :t"), {"t": datetime.now(UTC) - timedelta(seconds=121)}
            )
        with db.session() as s:
            assert batches.sweep_stale_uploads(s, idle_seconds=60) == 1
        with db.session() as s:
            st = batches.batch_status(s, w.batch_id)
        assert st["state"] == "failed" and "stopped before it was complete" in st["error"]
        assert count("SELECT count(*) FROM batch_chunks") == 0
    finally:
        db.dispose()


@pytest.mark.parametrize("piece", [1 << 20, 97])  # the body at once, and in pieces that cut lines anywhere
def test_a_line_over_the_limit_is_rejected_alone(
    settings: Settings, count: Callable[[str], int], piece: int
) -> None:
    db = Database.from_settings(settings)
    docs = [dumps(d) for d in legal_rounds(3, seed=13)]
    long_line = b'{"round_id": "' + b"x" * 5000 + b'"}'
    body = b"\n".join(
        [docs[0], long_line, docs[1], b"", docs[2], long_line]
    )  # the last one without a newline
    try:
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=2, max_line_bytes=3000)
        for i in range(0, len(body), piece):
            w.feed(body[i : i + piece])
        outcome = w.finish(None)
        assert outcome.created and outcome.lines_received == 5
        for chunk_no in outcome.chunks:
            batches.process_chunk(db, outcome.batch_id, chunk_no)
        rows = list(batches.iter_results(db, outcome.batch_id, None))
    finally:
        db.dispose()
    by_line = {r["line"]: r for r in map(orjson.loads, b"".join(rows).splitlines())}
    assert sorted(by_line) == [1, 2, 3, 5, 6]
    assert [by_line[n]["outcome"] for n in (1, 3, 5)] == ["compliant"] * 3
    for n in (2, 6):
        problem = by_line[n]["problem"]
        assert by_line[n]["outcome"] == "rejected" and problem["status"] == 413
        assert problem["type"] == "urn:bjaudit:problem:batch-line-too-long"
        assert problem["detail"] == (
            f"Line {n} is {len(long_line)} bytes, over the limit of 3000 bytes (BJAUDIT_MAX_BODY_BYTES, the "
            "single-round limit); this line alone is rejected."
        )
    assert count("SELECT count(*) FROM rounds") == 3


def test_a_line_that_looks_like_the_too_long_marker_is_only_a_bad_line(
    settings: Settings, count: Callable[[str], int]
) -> None:
    db = Database.from_settings(settings)
    docs = [dumps(d) for d in legal_rounds(2, seed=14)]
    try:
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=10, max_line_bytes=10_000)
        w.feed(b"\n".join([docs[0], batches.TOO_LONG + b"oops", docs[1]]) + b"\n")
        outcome = w.finish(None)
        assert [batches.process_chunk(db, outcome.batch_id, c) for c in outcome.chunks] == [True]
        rows = [
            orjson.loads(x) for x in b"".join(batches.iter_results(db, outcome.batch_id, None)).splitlines()
        ]
    finally:
        db.dispose()
    assert [r["outcome"] for r in rows] == ["compliant", "rejected", "compliant"]
    assert rows[1]["problem"]["type"] == "urn:bjaudit:problem:round-invalid"  # malformed JSON, as it is


def test_a_live_upload_is_never_swept_and_a_swept_one_accepts_nothing_more(
    settings: Settings, count: Callable[[str], int]
) -> None:
    db = Database.from_settings(settings)
    docs = [dumps(d) for d in legal_rounds(8, seed=15)]
    old = datetime.now(UTC) - timedelta(seconds=600)

    def age_all() -> None:
        with db.engine.begin() as conn:
            conn.execute(text("UPDATE batches SET updated_at = :t"), {"t": old})

    try:
        # Alive: data keeps coming (no chunk needed), so its mark of life is renewed and a sweep leaves it.
        live = batches.BatchWriter(
            db, "default", gzipped=False, chunk_lines=2, max_line_bytes=10_000, alive_every=0
        )
        live.feed(ndjson(docs[:2]))  # one chunk stored: the batch row exists
        age_all()
        live.feed(docs[2][:10])  # a piece of a line: no chunk, but a sign of life
        with db.session() as s:
            assert batches.sweep_stale_uploads(s, idle_seconds=60) == 0
        live.feed(docs[2][10:] + b"\n" + docs[3] + b"\n")
        assert live.finish(None).created
        # Dead (swept while its client went on): what it stored is gone, and nothing more of it is accepted.
        dead = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=2, max_line_bytes=10_000)
        dead.feed(ndjson(docs[4:6]))
        age_all()
        with db.session() as s:
            assert batches.sweep_stale_uploads(s, idle_seconds=60) == 1
        with pytest.raises(batches.UploadIncomplete):
            dead.feed(ndjson(docs[6:8]))  # its next chunk finds the batch failed
        with db.session() as s:
            assert batches.batch_status(s, dead.batch_id)["state"] == "failed"
        assert count(f"SELECT count(*) FROM batch_chunks WHERE batch_id = '{dead.batch_id}'") == 0
    finally:
        db.dispose()


def test_a_line_played_after_the_batch_was_received_is_rejected_alone(
    client: TestClient, count: Callable[[str], int]
) -> None:
    """Round-v1 section 2.3: a line whose played_at is more than 5 minutes after the service received the batch is
    rejected as the single-round API refuses it (422 naming /played_at); the rest of the batch is audited."""
    legal = legal_rounds(3, seed=31)
    at = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0).isoformat()
    future = dumps({**legal[1], "played_at": at})
    lines = [dumps(legal[0]), future, dumps(legal[2])]
    r = client.post("/v1/batches", content=ndjson(lines), headers=NDJSON)
    assert r.status_code == 202, r.text
    st = wait_done(client, r.json()["batch_id"])
    assert (st["state"], st["counts"]["rejected"], st["counts"]["audited"]) == ("done", 1, 3)
    got = results(client, r.json()["batch_id"])
    assert [x["outcome"] for x in got] == ["compliant", "rejected", "compliant"]
    problem = got[1]["problem"]
    single = _problem(client, future)  # the same problem, but for the moments of receipt in its words
    same = ("type", "title", "status", "round_id")
    assert {k: problem[k] for k in same} == {k: single[k] for k in same}
    assert set(problem) == set(single)
    assert problem["type"] == "urn:bjaudit:problem:round-in-future"
    assert got[1]["round_id"] == legal[1]["round_id"]
    assert [e["pointer"] for e in problem["errors"]] == ["/played_at"]
    assert count("SELECT count(*) FROM rounds") == 2


def test_a_batch_line_is_judged_by_when_the_batch_was_received_not_when_it_is_audited(
    settings: Settings, count: Callable[[str], int]
) -> None:
    db = Database.from_settings(settings)
    legal = legal_rounds(2, seed=32)
    a_minute_ago = (datetime.now(UTC) - timedelta(minutes=1)).replace(microsecond=0).isoformat()
    lines = [dumps(legal[0]), dumps({**legal[1], "played_at": a_minute_ago})]
    try:
        w = batches.BatchWriter(db, "default", gzipped=False, chunk_lines=10, max_line_bytes=10_000)
        w.feed(ndjson(lines))
        outcome = w.finish(None)
        with db.session() as s:  # received an hour ago, audited only now
            s.execute(
                update(batches_table)
                .where(batches_table.c.id == outcome.batch_id)
                .values(received_at=datetime.now(UTC) - timedelta(hours=1))
            )
        for chunk_no in outcome.chunks:
            batches.process_chunk(db, outcome.batch_id, chunk_no)
        rows = [
            orjson.loads(x) for x in b"".join(batches.iter_results(db, outcome.batch_id, None)).splitlines()
        ]
    finally:
        db.dispose()
    assert [r["outcome"] for r in rows] == ["compliant", "rejected"]
    assert rows[1]["problem"]["errors"][0]["pointer"] == "/played_at"
    assert count("SELECT count(*) FROM rounds") == 1
