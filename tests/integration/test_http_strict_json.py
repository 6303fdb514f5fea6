"""Strict JSON over HTTP (issue 8): a round with a key given twice, NaN, an integer out of range or nesting past 32
levels is 422 with the JSON pointer of the member at fault, on POST /v1/rounds and POST /v1/audit, and nothing is
stored; a string that only looks like a key is no key."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.wire.strict import duplicate_message

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
SEAT = b'{"seat": 1, "wager": 2500}'
DOUBLE = b'{"type": "double", "hand": "1", "amount": 2500}'


def post(client: TestClient, body: bytes, path: str) -> Any:
    return client.post(path, content=body, headers=JSON)


def edited(body: bytes, old: bytes, new: bytes) -> bytes:
    assert body.count(old) == 1, old
    return body.replace(old, new)


def problem_of(resp: Any) -> dict[str, Any]:
    assert resp.status_code == 422, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert body["status"] == 422 and body["type"] == "urn:bjaudit:problem:round-invalid"
    assert "Traceback" not in resp.text
    return body


UNREADABLE: dict[str, tuple[bytes, bytes, str]] = {
    "a key twice": (SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}', "/seats/0/wager"),
    "a key twice, once escaped": (SEAT, b'{"seat": 1, "w\\u0061ger": 1, "wager": 2500}', "/seats/0/wager"),
    "a key twice in an event": (
        DOUBLE,
        b'{"type": "double", "hand": "1", "amount": 5000, "amount" : 2500}',
        "/events/4/amount",
    ),
    "NaN": (SEAT, b'{"seat": 1, "wager": NaN}', "/seats/0/wager"),
    "-Infinity in an unknown member": (SEAT, b'{"seat": 1, "wager": 2500, "x": [-Infinity]}', "/seats/0/x/0"),
    "an integer past 64 bits": (
        DOUBLE,
        b'{"type": "double", "hand": "1", "amount": 18446744073709551616}',
        "/events/4/amount",
    ),
    "an integer of 5000 digits": (
        DOUBLE,
        b'{"type": "double", "hand": "1", "amount": ' + b"9" * 5000 + b"}",
        "/events/4/amount",
    ),
    "nesting past 32 levels": (
        SEAT,
        b'{"seat": 1, "wager": ' + b"[" * 300 + b"]" * 300 + b"}",
        "/seats/0/wager" + "/0" * 29,
    ),
}


@pytest.mark.parametrize("path", ["/v1/rounds", "/v1/audit"])
@pytest.mark.parametrize("case", list(UNREADABLE))
def test_a_record_that_is_not_strict_json_is_422_at_its_pointer_and_nothing_is_stored(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int], case: str, path: str
) -> None:
    old, new, where = UNREADABLE[case]
    problem = problem_of(post(client, edited(examples["nj-compliant-double"], old, new), path))
    assert where in [e["pointer"] for e in problem["errors"]], problem["errors"]
    assert all(e["detail"] for e in problem["errors"])
    assert rows("rounds") == 0


@pytest.mark.parametrize("path", ["/v1/rounds", "/v1/audit"])
def test_a_key_twice_names_the_ambiguity(client: TestClient, examples: dict[str, bytes], path: str) -> None:
    body = edited(examples["nj-compliant-double"], SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}')
    problem = problem_of(post(client, body, path))
    assert problem["errors"] == [{"pointer": "/seats/0/wager", "detail": duplicate_message("wager")}]
    assert "ambiguous" in problem["errors"][0]["detail"]
    assert problem["round_id"] == "EX-NJ-0001"
    # a round_id given twice is no round_id
    body = edited(examples["nj-compliant-double"], b'"EX-NJ-0001"', b'"EX-NJ-0001", "round_id": "EX-NJ-0009"')
    problem = problem_of(post(client, body, path))
    assert [e["pointer"] for e in problem["errors"]] == ["/round_id"]
    assert "round_id" not in problem


def test_a_string_that_looks_like_a_key_is_accepted_and_stored_verbatim(
    client: TestClient, examples: dict[str, bytes], engine: Engine
) -> None:
    doc = json.loads(examples["nj-compliant-double"])
    doc["events"][0]["note"] = 'dealer wrote "wager": 1, "wager": 2500 \\":'
    body = json.dumps(doc).encode()
    assert b'\\"wager\\": 1, \\"wager\\": 2500' in body
    resp = post(client, body, "/v1/rounds")
    assert resp.status_code == 201, resp.text
    with engine.connect() as conn:
        assert bytes(conn.execute(text("SELECT record FROM rounds")).scalar_one()) == body
    assert post(client, body, "/v1/audit").status_code == 200
