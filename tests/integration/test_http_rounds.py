"""The HTTP API against a real database (SQLite and PostgreSQL): submit, replay, conflict, lookup, search, dry run,
rules, health, and what the service answers to inputs it cannot use."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from tests.keys import as_source, keyed

from .conftest import EXAMPLES

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"


def post(client: TestClient, body: bytes, path: str = "/v1/rounds", **headers: str) -> Any:
    return client.post(path, content=body, headers={**JSON, **headers})


def with_round_id(body: bytes, old: str, new: str) -> bytes:
    assert body.count(f'"{old}"'.encode()) == 1
    return body.replace(f'"{old}"'.encode(), f'"{new}"'.encode())


def assert_problem(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert body["status"] == status
    assert body["type"] and body["title"]
    assert "Traceback" not in resp.text
    return body


# --- submit, replay, conflict -----------------------------------------------------------------------------------


def test_submit_answers_201_with_the_audit_and_stores_the_record_verbatim(
    client: TestClient, examples: dict[str, bytes], engine: Engine
) -> None:
    body = examples["nj-double-then-dealer-blackjack"]
    resp = post(client, body)
    assert resp.status_code == 201, resp.text
    assert resp.headers["content-type"] == "application/json"
    assert resp.headers["location"] == "/v1/rounds/EX-NJ-0003?source=default&jurisdiction=US-NJ"
    audit = resp.json()
    assert audit["round_id"] == "EX-NJ-0003"
    assert audit["verdict"] == "violations"
    assert [(f["rule"], f["event"]) for f in audit["findings"]] == [("19:47-2.10(b)", 7)]
    assert {"ruleset", "engine_version", "elections_source", "elections"} <= audit.keys()

    with engine.connect() as conn:
        row = conn.execute(text("SELECT record, record_sha256, audit, verdict, source FROM rounds")).one()
        findings = conn.execute(text("SELECT rule, event_index, table_id, amount_delta FROM findings")).all()
    assert bytes(row.record) == body  # byte for byte, whitespace and all
    assert row.record_sha256 == hashlib.sha256(body).hexdigest()
    assert row.audit.encode() == resp.content
    assert (row.verdict, row.source) == ("violations", "default")
    assert [tuple(f) for f in findings] == [("19:47-2.10(b)", 7, "BJ07", 2500)]


def test_every_example_is_accepted_with_its_expected_findings(
    client: TestClient, examples: dict[str, bytes]
) -> None:
    for name, body in examples.items():
        resp = post(client, body)
        assert resp.status_code == 201, (name, resp.text)
        got = [{"rule": f["rule"], "event": f["event"]} for f in resp.json()["findings"]]
        assert got == json.loads((EXAMPLES / f"{name}.expected.json").read_text()), name


def test_the_same_record_again_answers_200_with_the_stored_bytes(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    body = examples["nz-insurance-over-half"]
    first = post(client, body)
    assert first.status_code == 201
    assert "idempotent-replayed" not in first.headers
    again = post(client, body)
    assert again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    assert again.headers["location"] == first.headers["location"]
    assert rows("rounds") == 1
    assert rows("findings") == len(first.json()["findings"])


def test_a_different_record_under_a_stored_round_id_is_a_conflict_and_changes_nothing(
    client: TestClient, examples: dict[str, bytes], engine: Engine, rows: Callable[..., int]
) -> None:
    body = examples["nj-dealer-draws-on-hard-17"]
    assert post(client, body).status_code == 201
    with engine.connect() as conn:
        before = (
            conn.execute(text("SELECT * FROM rounds")).all(),
            conn.execute(text("SELECT * FROM findings")).all(),
        )

    changed = body.replace(b'"wager": 2500', b'"wager": 2000')
    resp = post(client, changed)
    problem = assert_problem(resp, 409)
    assert problem["round_id"] == "EX-NJ-0002"
    assert problem["stored_sha256"] == hashlib.sha256(body).hexdigest()
    assert problem["sha256"] == hashlib.sha256(changed).hexdigest()
    # Even a whitespace-only difference is a different record: the bytes are the evidence.
    assert post(client, body + b"\n").status_code == 409

    with engine.connect() as conn:
        after = (
            conn.execute(text("SELECT * FROM rounds")).all(),
            conn.execute(text("SELECT * FROM findings")).all(),
        )
    assert after == before
    assert rows("rounds") == 1


def test_round_ids_are_unique_per_source(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    body = examples["nj-compliant-double"]
    assert post(client, body).status_code == 201
    other = post(client, body.replace(b'"wager": 2500', b'"wager": 3000'), **as_source(client, "casino-b.bj"))
    assert other.status_code == 201, other.text
    assert other.headers["location"].endswith("source=casino-b.bj&jurisdiction=US-NJ")
    assert rows("rounds") == 2

    # each source sees its own; a key of every source sees both, and must say which
    assert client.get("/v1/rounds/EX-NJ-0001").json()["record"]["seats"][0]["wager"] == 2500
    regulator = as_source(client, None, ["read"])
    ambiguous = assert_problem(client.get("/v1/rounds/EX-NJ-0001", headers=regulator), 409)
    assert {c["source"] for c in ambiguous["candidates"]} == {"default", "casino-b.bj"}
    one = client.get("/v1/rounds/EX-NJ-0001", params={"source": "casino-b.bj"}, headers=regulator)
    assert one.status_code == 200
    assert one.json()["record"]["seats"][0]["wager"] == 3000

    bad = client.get("/v1/rounds/EX-NJ-0001", params={"source": "no spaces allowed"}, headers=regulator)
    assert assert_problem(bad, 422)["errors"][0]["parameter"] == "source"


# --- lookup -----------------------------------------------------------------------------------------------------


def test_lookup_returns_the_record_its_audit_and_the_rules_cited(
    client: TestClient, examples: dict[str, bytes]
) -> None:
    body = examples["nj-double-then-dealer-blackjack"]
    audit = post(client, body).json()
    resp = client.get("/v1/rounds/EX-NJ-0003")
    assert resp.status_code == 200
    got = resp.json()
    assert got["record"] == json.loads(body)
    assert got["record_sha256"] == hashlib.sha256(body).hexdigest()
    assert got["audit"] == audit
    assert (got["round_id"], got["source"], got["jurisdiction"], got["table_id"]) == (
        "EX-NJ-0003",
        "default",
        "US-NJ",
        "BJ07",
    )
    assert got["played_at"] == "2026-12-01T03:15:00Z"  # 22:15 at -05:00
    rule = got["rules"]["19:47-2.10(b)"]
    assert rule["citation"] == "N.J.A.C. 19:47-2.10(b)"
    assert rule["title"] and rule["paraphrase"]


def test_the_record_is_served_byte_for_byte(client: TestClient, examples: dict[str, bytes]) -> None:
    body = examples["nz-blackjack-paid-before-dealer-second-card"]
    post(client, body)
    resp = client.get("/v1/rounds/EX-NZ-0002/record")
    assert resp.status_code == 200
    assert resp.content == body
    assert resp.headers["etag"] == f'"{hashlib.sha256(body).hexdigest()}"'


def test_an_unknown_round_is_404(client: TestClient) -> None:
    problem = assert_problem(client.get("/v1/rounds/NO-SUCH-ROUND"), 404)
    assert "NO-SUCH-ROUND" in problem["detail"]
    assert_problem(client.get("/v1/rounds/NO-SUCH-ROUND/record"), 404)


# --- search -----------------------------------------------------------------------------------------------------


@pytest.fixture
def all_examples(client: TestClient, examples: dict[str, bytes]) -> dict[str, bytes]:
    for body in examples.values():
        assert post(client, body).status_code == 201
    return examples


def ids(resp: Any) -> list[str]:
    assert resp.status_code == 200, resp.text
    return [item["round_id"] for item in resp.json()["items"]]


def test_search_by_rule_table_date_and_verdict(client: TestClient, all_examples: dict[str, bytes]) -> None:
    assert ids(client.get("/v1/rounds")) == [
        "EX-NJ-0003",
        "EX-NJ-0002",
        "EX-NJ-0001",
        "EX-NZ-0002",
        "EX-NZ-0001",
    ]
    assert ids(client.get("/v1/rounds", params={"rule": "19:47-2.10(b)"})) == ["EX-NJ-0003"]
    # A rule found under its other number (also_cited_as) is found too.
    assert ids(client.get("/v1/rounds", params={"rule": "13:69F-2.10(b)"})) == ["EX-NJ-0003"]
    assert ids(client.get("/v1/rounds", params={"rule": "9.3"})) == ["EX-NZ-0001"]
    assert ids(client.get("/v1/rounds", params={"table": "CHC-BJ3"})) == ["EX-NZ-0002", "EX-NZ-0001"]
    assert ids(client.get("/v1/rounds", params={"verdict": "compliant"})) == ["EX-NJ-0001"]
    assert ids(client.get("/v1/rounds", params={"jurisdiction": "NZ", "rule": "8.2"})) == ["EX-NZ-0002"]
    # EX-NJ-0002 was played 2026-11-30T22:12-05:00 = 2026-12-01T03:12Z; EX-NJ-0001 at 03:10Z.
    window = {"from": "2026-12-01T03:11:00Z", "to": "2026-12-01T03:13:00Z"}
    assert ids(client.get("/v1/rounds", params=window)) == ["EX-NJ-0002"]
    assert ids(client.get("/v1/rounds", params={"from": "2000-01-01"})) == [
        "EX-NJ-0003",
        "EX-NJ-0002",
        "EX-NJ-0001",
    ]
    assert ids(client.get("/v1/rounds", params={"to": "2000-01-01"})) == ["EX-NZ-0002", "EX-NZ-0001"]
    # A rule number written another usual way finds the same rounds; one we do not hold is an error, not nothing.
    assert ids(client.get("/v1/rounds", params={"rule": "13:69F-2.12(b)(1)"})) == ["EX-NJ-0002"]
    assert ids(client.get("/v1/rounds", params={"rule": "N.J.A.C. 19:47-2.10(b)"})) == ["EX-NJ-0003"]
    problem = assert_problem(client.get("/v1/rounds", params={"rule": "no-such-rule"}), 422)
    assert problem["errors"] == [
        {"in": "query", "parameter": "rule", "detail": "no such rule: 'no-such-rule'"}
    ]


def test_search_pages_with_a_cursor(client: TestClient, all_examples: dict[str, bytes]) -> None:
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        resp = client.get("/v1/rounds", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        seen += ids(resp)
        cursor = resp.json()["next_cursor"]
        if cursor is None:
            break
    assert seen == ["EX-NJ-0003", "EX-NJ-0002", "EX-NJ-0001", "EX-NZ-0002", "EX-NZ-0001"]


@pytest.mark.parametrize(
    "params",
    [{"cursor": "not-a-cursor"}, {"from": "2026-12-01T00:00:00"}, {"limit": "0"}, {"verdict": "maybe"}],
)
def test_search_rejects_unusable_parameters(client: TestClient, params: dict[str, str]) -> None:
    problem = assert_problem(client.get("/v1/rounds", params=params), 422)
    assert problem["errors"]


# --- dry run, rules, health ----------------------------------------------------------------------------------------


def test_dry_run_audits_and_stores_nothing(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    body = examples["nz-insurance-over-half"]
    resp = post(client, body, path="/v1/audit")
    assert resp.status_code == 200
    assert [f["rule"] for f in resp.json()["findings"]] == ["9.3"]
    assert rows("rounds") == 0
    # and it answers what the stored submission will answer
    assert post(client, body).content == resp.content


def test_rules_catalogue(client: TestClient) -> None:
    everything = client.get("/v1/rules")
    assert everything.status_code == 200
    rules = everything.json()["rules"]
    assert {r["jurisdiction"] for r in rules} == {"US-NJ", "NZ"}
    assert {"rule", "citation", "citation_status", "title", "checkable", "paraphrase"} <= rules[0].keys()
    nz = client.get("/v1/rules", params={"jurisdiction": "NZ"}).json()["rules"]
    assert nz and {r["jurisdiction"] for r in nz} == {"NZ"}
    assert_problem(client.get("/v1/rules", params={"jurisdiction": "XX"}), 422)


def test_health_and_readiness(client: TestClient) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["status"] == "ready"


def test_unknown_routes_and_methods_are_problems(client: TestClient) -> None:
    assert_problem(client.get("/v2/rounds"), 404)
    resp = client.delete("/v1/rounds/EX-NJ-0001")
    assert_problem(resp, 405)
    assert "GET" in resp.headers["allow"]


# --- inputs the service cannot use --------------------------------------------------------------------------------


def _edit(body: bytes, fn: Callable[[dict[str, Any]], None]) -> bytes:
    doc = json.loads(body)
    fn(doc)
    return json.dumps(doc).encode()


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def fn(doc: dict[str, Any]) -> None:
        *parents, last = path.strip("/").split("/")
        node: Any = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        node[int(last) if isinstance(node, list) else last] = value

    return fn


BAD_RECORDS: dict[str, tuple[Callable[[bytes], bytes], str | None]] = {
    "malformed JSON": (lambda b: b[:-3], ""),
    "not an object": (lambda b: b"[1, 2, 3]", None),
    "wrong type: wager as a string": (lambda b: _edit(b, _set("/seats/0/wager", "2500")), "/seats/0/wager"),
    "wrong type: money as a float": (
        lambda b: _edit(b, _set("/events/4/amount", 2500.5)),
        "/events/4/amount",
    ),
    "unknown jurisdiction": (lambda b: _edit(b, _set("/jurisdiction", "US-NV")), "/jurisdiction"),
    "unknown event type": (lambda b: _edit(b, _set("/events/5/type", "teleport")), "/events/5/type"),
    "absurd wager": (lambda b: _edit(b, _set("/seats/0/wager", 10**30)), "/seats/0/wager"),
    "absurd exponent": (lambda b: b.replace(b'"wager": 2500', b'"wager": 1e400'), "/seats/0/wager"),
    "negative wager": (lambda b: _edit(b, _set("/seats/0/wager", -1)), "/seats/0/wager"),
    "bad card": (lambda b: _edit(b, _set("/events/0/card", "ZZ")), "/events/0/card"),
    "seat out of range": (lambda b: _edit(b, _set("/seats/0/seat", 99)), "/seats/0/seat"),
    "empty body": (lambda b: b"", ""),
    "NUL in the table id": (lambda b: b.replace(b'"BJ12"', b'"BJ\\u000012"'), "/table/id"),
    "not UTF-8": (lambda b: b.replace(b"BJ12", b"BJ\xff2"), None),
}


@pytest.mark.parametrize("path", ["/v1/rounds", "/v1/audit"])
@pytest.mark.parametrize("case", list(BAD_RECORDS))
def test_an_unreadable_record_is_422_with_json_pointers_and_nothing_is_stored(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int], case: str, path: str
) -> None:
    mutate, pointer = BAD_RECORDS[case]
    resp = post(client, mutate(examples["nj-compliant-double"]), path=path)
    problem = assert_problem(resp, 422)
    assert problem["type"] == "urn:bjaudit:problem:round-invalid"
    assert problem["errors"], problem
    assert all({"pointer", "detail"} <= e.keys() for e in problem["errors"])
    if pointer is not None:
        assert pointer in [e["pointer"] for e in problem["errors"]], problem["errors"]
    assert rows("rounds") == 0


def test_a_record_played_before_any_ruleset_is_422(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    body = _edit(examples["nz-insurance-over-half"], _set("/played_at", "1970-01-01T00:00:00+12:00"))
    problem = assert_problem(post(client, body), 422)
    assert problem["errors"]
    assert rows("rounds") == 0


def test_a_body_over_the_limit_is_413_and_is_not_read_whole(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int]
) -> None:
    big = b'{"round_id": "X", "padding": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    problem = assert_problem(post(client, big), 413)
    assert problem["max_body_bytes"] == 1024 * 1024

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is enforced while streaming
        for _ in range(64):
            yield b" " * 32768
        yield examples["nj-compliant-double"]

    streamed = client.post("/v1/rounds", content=chunks(), headers=JSON)
    assert_problem(streamed, 413)
    assert_problem(post(client, big, path="/v1/audit"), 413)
    assert rows("rounds") == 0


def test_a_small_limit_is_configurable(examples: dict[str, bytes], database_url: str, engine: Engine) -> None:
    from app.config import Settings
    from app.main import create_app

    with TestClient(create_app(Settings(database_url=database_url, max_body_bytes=100))) as c:
        keyed(c, database_url)
        assert_problem(post(c, examples["nj-compliant-double"]), 413)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1", None],
)
def test_a_body_that_is_not_json_is_415(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int], content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    resp = client.post("/v1/rounds", content=examples["nj-compliant-double"], headers=headers)
    assert_problem(resp, 415)
    assert rows("rounds") == 0


def test_json_with_a_charset_and_a_plus_json_type_are_accepted(
    client: TestClient, examples: dict[str, bytes]
) -> None:
    body = examples["nj-compliant-double"]
    ok = client.post("/v1/audit", content=body, headers={"Content-Type": "application/json; charset=UTF-8"})
    assert ok.status_code == 200
    ok = client.post(
        "/v1/audit", content=body, headers={"Content-Type": "application/vnd.bjaudit.round+json"}
    )
    assert ok.status_code == 200


# --- a round played after it was received (round-v1 section 2.3) --------------------------------------------------


def _played_in(body: bytes, ahead: timedelta, round_id: str) -> bytes:
    """The record played ``ahead`` of now (whole seconds, at New Jersey's winter offset), under another round_id."""
    at = (datetime.now(UTC) + ahead).replace(microsecond=0).astimezone(timezone(timedelta(hours=-5)))
    return _edit(body, lambda d: d.update(played_at=at.isoformat(), round_id=round_id))


@pytest.mark.parametrize("path", ["/v1/rounds", "/v1/audit"])
def test_a_round_played_more_than_5_minutes_after_it_was_received_is_422_and_nothing_is_stored(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int], path: str
) -> None:
    for ahead in (timedelta(minutes=5, seconds=30), timedelta(days=400)):
        resp = post(client, _played_in(examples["nj-compliant-double"], ahead, "FUT-1"), path=path)
        problem = assert_problem(resp, 422)
        assert problem["type"] == "urn:bjaudit:problem:round-in-future"
        assert problem["round_id"] == "FUT-1"
        assert [e["pointer"] for e in problem["errors"]] == ["/played_at"]
        assert "cannot have been played yet" in problem["errors"][0]["detail"]
        assert "5 minutes" in problem["detail"]
    assert rows("rounds") == 0 and rows("findings") == 0


@pytest.mark.parametrize("path", ["/v1/rounds", "/v1/audit"])
def test_a_round_played_5_minutes_ahead_is_accepted(
    client: TestClient, examples: dict[str, bytes], rows: Callable[..., int], path: str
) -> None:
    # exactly 5 minutes after the moment the test sends it: less than that after the service receives it
    resp = post(client, _played_in(examples["nj-compliant-double"], timedelta(minutes=5), "FUT-2"), path=path)
    assert resp.status_code == (201 if path == "/v1/rounds" else 200), resp.text
    assert resp.json()["verdict"] == "compliant"
    assert rows("rounds") == (1 if path == "/v1/rounds" else 0)
