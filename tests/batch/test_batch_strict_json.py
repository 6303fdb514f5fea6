"""Strict JSON in a batch (issue 8): a line with a key given twice, NaN, an integer out of range or absurd nesting is
rejected alone, with exactly the problem the single-round API answers for it (the pointer of the member at fault);
the lines around it are audited."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.wire.strict import duplicate_message
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, results, wait_done


def _single(client: TestClient, record: bytes) -> dict[str, Any]:
    """What the single-round API answers for this record, without what is the request's own."""
    r = client.post("/v1/audit", content=record, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    body: dict[str, Any] = r.json()
    body.pop("instance", None)
    body.pop("request_id", None)
    return body


def test_a_line_that_is_not_strict_json_is_rejected_alone_with_its_pointer(
    client: TestClient, count: Callable[[str], int]
) -> None:
    legal = legal_rounds(3, seed=808)
    docs = [dumps(d) for d in legal]
    wager = b'"wager":%d' % legal[1]["seats"][0]["wager"]
    twice = docs[1].replace(wager, b'"wager":1,' + wager, 1)
    escaped = docs[1].replace(wager, b'"w\\u0061ger":1,' + wager, 1)
    nan = docs[2].replace(b'"wager":%d' % legal[2]["seats"][0]["wager"], b'"wager":NaN', 1)
    deep = docs[2].replace(b'"seats":', b'"x":' + b"[" * 40 + b"]" * 40 + b',"seats":', 1)
    lookalike = dumps({**legal[0], "round_id": "LOOKALIKE-1", "dealer_id": '"wager":1,"wager":2'})
    lines = [docs[0], twice, escaped, nan, deep, lookalike]
    r = client.post("/v1/batches", content=ndjson(lines), headers=NDJSON)
    assert r.status_code == 202, r.text
    batch_id = r.json()["batch_id"]
    assert wait_done(client, batch_id)["state"] == "done"
    got = {x["line"]: x for x in results(client, batch_id)}
    assert [got[n]["outcome"] for n in range(1, 7)] == [
        "compliant",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "compliant",
    ]
    for n in (2, 3, 4, 5):
        assert got[n]["problem"] == _single(client, lines[n - 1])
        assert got[n]["problem"]["status"] == 422
    duplicate = {"pointer": "/seats/0/wager", "detail": duplicate_message("wager")}
    assert got[2]["problem"]["errors"] == [duplicate] and got[3]["problem"]["errors"] == [duplicate]
    assert got[2]["round_id"] == legal[1]["round_id"]
    assert got[4]["problem"]["errors"][0]["pointer"] == "/seats/0/wager"
    assert "/x" + "/0" * 31 in [e["pointer"] for e in got[5]["problem"]["errors"]]
    assert count("SELECT count(*) FROM rounds") == 2
