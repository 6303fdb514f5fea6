"""Registered table elections against a real database (SQLite and PostgreSQL): register, replay, conflict,
validation problems, listing, and their use by submissions and dry runs of rounds without ``table.rules``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, text
from sqlalchemy.orm import Session

from app.usecases import rounds as round_cases
from app.wire.schema import parse_round
from tests.keys import as_source

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
TABLE = "BJ21"


def register(
    client: TestClient,
    effective_from: str,
    rules: dict[str, Any],
    *,
    table: str = TABLE,
    jurisdiction: str = "US-NJ",
    source: str | None = None,
    reason: str = "the table's rule card",
    supersedes: int | None = None,
) -> Any:
    body: dict[str, Any] = {
        "jurisdiction": jurisdiction,
        "effective_from": effective_from,
        "rules": rules,
        "reason": reason,
    }
    if supersedes is not None:
        body["supersedes"] = supersedes
    headers = {**JSON, **(as_source(client, source) if source else {})}
    return client.put(f"/v1/tables/{table}/elections", content=json.dumps(body), headers=headers)


def soft_17_round(
    round_id: str,
    played_at: str,
    *,
    rules: dict[str, Any] | None = None,
    table: str = TABLE,
    player: tuple[str, str] = ("TH", "6D"),
) -> bytes:
    """An NJ round where the dealer, on a soft 17 (6 + A), draws to 19 and the player's 16 loses: compliant where
    the table hits soft 17, a 13:69F-2.12(b)1 finding where it stands (at the draw, event 6; the 16 loses to the 17
    the dealer should have stood on too, so the settlement, judged against it, is right: round-v1 section 2.2).
    ``player`` ("TH", "8D"): an 18, which beats that 17: where the table stands, also an uncited:settlement-outcome
    finding at the settlement (event 7) owing the player 2000."""
    tbl: dict[str, Any] = {"id": table}
    if rules is not None:
        tbl["rules"] = rules
    doc = {
        "round_id": round_id,
        "jurisdiction": "US-NJ",
        "played_at": played_at,
        "table": tbl,
        "seats": [{"seat": 1, "wager": 1000}],
        "events": [
            {"type": "deal", "to": "1", "card": player[0]},
            {"type": "deal", "to": "dealer", "card": "6C"},
            {"type": "deal", "to": "1", "card": player[1]},
            {"type": "deal", "to": "dealer", "card": "AS", "face": "down"},
            {"type": "stand", "hand": "1"},
            {"type": "reveal", "to": "dealer", "card": "AS"},
            {"type": "deal", "to": "dealer", "card": "2C"},
            {"type": "settle", "bet": "main", "hand": "1", "result": "lose", "amount": 1000},
        ],
    }
    return json.dumps(doc).encode()


def submit(client: TestClient, body: bytes, path: str = "/v1/rounds", source: str | None = None) -> Any:
    headers = {**JSON, **(as_source(client, source) if source else {})}
    resp = client.post(path, content=body, headers=headers)
    assert resp.status_code in (200, 201), resp.text
    return resp.json()


def rules_fired(audit: dict[str, Any]) -> list[tuple[str, int]]:
    return [(f["rule"], f["event"]) for f in audit["findings"]]


def assert_problem(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert body["status"] == status and body["type"] and body["title"]
    assert "Traceback" not in resp.text
    return body


def stored_count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM table_elections")).scalar_one())


HIT = {"decks": 6, "dealer_soft_17": "hit"}
STAND = {"decks": 6, "dealer_soft_17": "stand"}
S17 = ("13:69F-2.12(b)1", 6)


# --- register, replay, conflict ---------------------------------------------------------------------------------


def test_register_answers_201_and_stores_the_elections(client: TestClient, engine: Engine) -> None:
    resp = register(client, "2026-12-01T00:00:00-05:00", {"dealer_soft_17": "hit", "decks": 6})
    assert resp.status_code == 201, resp.text
    assert resp.headers["content-type"] == "application/json"
    assert resp.headers["location"] == f"/v1/tables/{TABLE}/elections?jurisdiction=US-NJ"
    body = resp.json()
    assert body["source"] == "default"
    assert (body["jurisdiction"], body["table_id"]) == ("US-NJ", TABLE)
    assert body["effective_from"] == "2026-12-01T05:00:00Z"
    assert body["rules"] == {"decks": 6, "dealer_soft_17": "hit"}
    assert body["created_at"].endswith("Z")
    assert body["reason"] == "the table's rule card"
    assert body["registered_by"].startswith("key ") and body["registered_by"].endswith("(test)")
    assert (body["supersedes"], body["superseded_by"]) == (None, None)
    assert isinstance(body["id"], int)
    with engine.connect() as conn:
        row = conn.execute(text("SELECT source, jurisdiction, table_id, rules FROM table_elections")).one()
    assert tuple(row) == ("default", "US-NJ", TABLE, '{"dealer_soft_17":"hit","decks":6}')


def test_the_same_elections_again_answer_200_and_change_nothing(client: TestClient, engine: Engine) -> None:
    first = register(client, "2026-12-01T00:00:00-05:00", HIT)
    assert first.status_code == 201
    # the same instant written in another offset, the same elections in another order
    again = register(client, "2026-12-01T05:00:00Z", {"dealer_soft_17": "hit", "decks": 6})
    assert again.status_code == 200, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()  # created_at included: the stored registration
    assert stored_count(engine) == 1


def test_other_elections_for_the_same_effective_from_are_a_conflict(
    client: TestClient, engine: Engine
) -> None:
    assert register(client, "2026-12-01T00:00:00-05:00", HIT).status_code == 201
    resp = register(client, "2026-12-01T00:00:00-05:00", STAND)
    body = assert_problem(resp, 409)
    assert body["type"] == "urn:bjaudit:problem:elections-conflict"
    assert body["stored_rules"] == HIT and body["rules"] == STAND
    assert stored_count(engine) == 1
    listed = client.get(f"/v1/tables/{TABLE}/elections").json()["items"]
    assert [i["rules"] for i in listed] == [HIT]


def test_the_same_key_in_another_jurisdiction_or_table_is_another_registration(
    client: TestClient, engine: Engine
) -> None:
    assert register(client, "2026-12-01T00:00:00Z", HIT).status_code == 201
    assert register(client, "2026-12-01T00:00:00Z", STAND, jurisdiction="NZ").status_code == 201
    assert register(client, "2026-12-01T00:00:00Z", STAND, table="BJ22").status_code == 201
    assert stored_count(engine) == 3


# --- validation ---------------------------------------------------------------------------------------------------


def test_invalid_registrations_answer_422_with_a_pointer_per_problem(
    client: TestClient, engine: Engine
) -> None:
    body = {
        "jurisdiction": "US-NV",
        "effective_from": "2026-12-01T00:00:00",
        "rules": {
            "decks": 9,
            "dealer_soft_17": "sometimes",
            "peek": "yes",
            "min_wager": 25.5,
            "color": "red",
        },
        "note": "x",
    }
    resp = client.put(f"/v1/tables/{TABLE}/elections", content=json.dumps(body), headers=JSON)
    problem = assert_problem(resp, 422)
    assert problem["type"] == "urn:bjaudit:problem:elections-invalid"
    errors = {e["pointer"]: e["detail"] for e in problem["errors"]}
    assert errors == {
        "/jurisdiction": "'US-NV' is not one of 'US-NJ', 'NZ'",
        "/effective_from": "'2026-12-01T00:00:00' has no UTC offset: add 'Z' or '+hh:mm' (RFC 3339)",
        "/rules/decks": "must be at most 8, not 9",
        "/rules/dealer_soft_17": "'sometimes' is not one of 'stand', 'hit'",
        "/rules/peek": "must be true or false, not the string 'yes'",
        "/rules/min_wager": "must be an integer count of minor units (cents), not 25.5",
        "/rules/color": "unknown rule election 'color'",
        "/note": "unknown field 'note'",
        "/reason": "required field 'reason' is missing",
    }
    assert stored_count(engine) == 0


def test_the_rules_are_validated_exactly_as_a_rounds_table_rules(client: TestClient) -> None:
    bad = {
        "decks": 0,
        "blackjack_pays": "2:1",
        "double_card": True,
        "boxes": 10,
        "surrender": "early",
        "x": 1,
    }
    reg = client.put(
        f"/v1/tables/{TABLE}/elections",
        content=json.dumps(
            {"jurisdiction": "US-NJ", "effective_from": "2026-12-01T00:00:00Z", "rules": bad, "reason": "r"}
        ),
        headers=JSON,
    )
    rnd = client.post(
        "/v1/audit", content=soft_17_round("V-1", "2026-12-01T21:00:00Z", rules=bad), headers=JSON
    )
    reg_errors = {
        e["pointer"].removeprefix("/rules"): e["detail"] for e in assert_problem(reg, 422)["errors"]
    }
    rnd_errors = {
        e["pointer"].removeprefix("/table/rules"): e["detail"] for e in assert_problem(rnd, 422)["errors"]
    }
    assert reg_errors == rnd_errors
    assert len(reg_errors) == 6


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        (b"{not json", "", "malformed JSON"),
        (b"[]", "", "the registration must be a JSON object"),
        (b"{}", "/rules", "required field 'rules' is missing"),
        (
            b'{"jurisdiction": "NZ", "effective_from": "2026-12-01T00:00:00Z", "rules": null}',
            "/rules",
            "must be a JSON object of rule elections, not null",
        ),
        (
            b'{"jurisdiction": "NZ", "effective_from": 1764547200, "rules": {}}',
            "/effective_from",
            "must be an RFC 3339 timestamp with offset",
        ),
        (
            b'{"jurisdiction": "NZ", "effective_from": "2026-12-01", "rules": {}}',
            "/effective_from",
            "'2026-12-01' is a date, not a timestamp",
        ),
    ],
)
def test_unreadable_registrations(client: TestClient, body: bytes, pointer: str, detail: str) -> None:
    resp = client.put(f"/v1/tables/{TABLE}/elections", content=body, headers=JSON)
    errors = assert_problem(resp, 422)["errors"]
    assert any(e["pointer"] == pointer and e["detail"].startswith(detail) for e in errors), errors


def test_http_level_errors_are_problems(client: TestClient) -> None:
    resp = client.put(f"/v1/tables/{TABLE}/elections", content=b"{}", headers={"Content-Type": "text/plain"})
    assert assert_problem(resp, 415)["type"] == "urn:bjaudit:problem:unsupported-media-type"
    resp = client.put(f"/v1/tables/{TABLE}/elections?source=a%20b", content=b"{}", headers=JSON)
    assert assert_problem(resp, 422)["type"] == "urn:bjaudit:problem:parameter-invalid"
    resp = client.put(
        f"/v1/tables/{TABLE}/elections", content=b"{}", headers={**JSON, "X-Bjaudit-Source": "casino-b"}
    )
    assert "no longer read" in assert_problem(resp, 403)["detail"]
    resp = client.get(f"/v1/tables/{TABLE}/elections?jurisdiction=US-NV")
    assert assert_problem(resp, 422)["errors"][0]["parameter"] == "jurisdiction"
    resp = client.put("/v1/tables/" + "T" * 129 + "/elections", content=b"{}", headers=JSON)
    assert assert_problem(resp, 422)["errors"][0]["parameter"] == "table_id"
    resp = client.put("/v1/tables/T%00/elections", content=b"{}", headers=JSON)
    assert assert_problem(resp, 422)["errors"][0]["parameter"] == "table_id"
    resp = client.delete(f"/v1/tables/{TABLE}/elections")
    assert_problem(resp, 405)


# --- listing -------------------------------------------------------------------------------------------------------


def test_list_answers_the_registrations_newest_first(client: TestClient) -> None:
    register(client, "2026-11-01T00:00:00Z", STAND)
    register(client, "2026-12-01T00:00:00Z", HIT)
    register(client, "2026-10-01T00:00:00Z", {"decks": 8}, jurisdiction="NZ")
    register(client, "2026-12-15T00:00:00Z", HIT, source="casino-b")
    got = client.get(f"/v1/tables/{TABLE}/elections")
    assert got.status_code == 200 and got.headers["content-type"] == "application/json"
    body = got.json()
    assert (body["table_id"], body["source"]) == (TABLE, "default")
    assert [(i["jurisdiction"], i["effective_from"]) for i in body["items"]] == [
        ("US-NJ", "2026-12-01T00:00:00Z"),
        ("US-NJ", "2026-11-01T00:00:00Z"),
        ("NZ", "2026-10-01T00:00:00Z"),
    ]
    nj = client.get(f"/v1/tables/{TABLE}/elections?jurisdiction=US-NJ").json()["items"]
    assert [i["rules"] for i in nj] == [HIT, STAND]
    other = client.get(f"/v1/tables/{TABLE}/elections", headers=as_source(client, "casino-b")).json()
    assert [i["effective_from"] for i in other["items"]] == ["2026-12-15T00:00:00Z"]
    assert client.get("/v1/tables/NOPE/elections").json()["items"] == []


def test_a_table_id_with_a_slash_can_be_registered(client: TestClient) -> None:
    resp = register(client, "2026-12-01T00:00:00Z", HIT, table="PIT3%2FBJ21")
    assert resp.status_code == 201, resp.text
    assert resp.json()["table_id"] == "PIT3/BJ21"
    audit = submit(client, soft_17_round("SL-1", "2026-12-01T12:00:00Z", table="PIT3/BJ21"))
    assert audit["elections_source"] == "registered"


def test_a_table_id_with_a_line_break_can_be_registered_and_listed(client: TestClient) -> None:
    """Found by schemathesis: the routes took the table id with starlette's ``path`` convertor (``.*``), which stops
    at a newline, so such a table (a round may name one) had no route at all: 404 "No route", undocumented."""
    resp = register(client, "2026-12-01T00:00:00Z", HIT, table="PIT3%0ABJ21%0A")
    assert resp.status_code == 201, resp.text
    assert resp.json()["table_id"] == "PIT3\nBJ21\n"
    listed = client.get(resp.headers["Location"])
    assert listed.status_code == 200, listed.text
    assert [r["table_id"] for r in listed.json()["items"]] == ["PIT3\nBJ21\n"]


# --- use by submissions and dry runs ----------------------------------------------------------------------------


def test_a_round_without_rules_is_audited_by_the_registration_in_force_at_played_at(
    client: TestClient, engine: Engine
) -> None:
    assert register(client, "2026-11-01T00:00:00-05:00", STAND).status_code == 201
    assert register(client, "2026-12-01T00:00:00-05:00", HIT).status_code == 201

    before = submit(client, soft_17_round("L-1", "2026-10-31T23:59:59-05:00"))
    assert (before["elections_source"], before["verdict"]) == ("defaults", "compliant")

    first_boundary = submit(client, soft_17_round("L-2", "2026-11-01T05:00:00Z"))  # exactly effective_from
    assert first_boundary["elections_source"] == "registered"
    assert first_boundary["elections"]["dealer_soft_17"] == "stand"
    assert (first_boundary["verdict"], rules_fired(first_boundary)) == ("violations", [S17])

    between = submit(client, soft_17_round("L-3", "2026-11-30T23:59:59.999-05:00"))
    assert (between["elections_source"], rules_fired(between)) == ("registered", [S17])

    second_boundary = submit(client, soft_17_round("L-4", "2026-12-01T00:00:00-05:00"))
    assert second_boundary["elections_source"] == "registered"
    assert second_boundary["elections"]["dealer_soft_17"] == "hit"
    assert (second_boundary["verdict"], rules_fired(second_boundary)) == ("compliant", [])

    later = submit(client, soft_17_round("L-5", "2026-12-03T12:00:00+12:00"))
    assert (later["elections_source"], later["verdict"]) == ("registered", "compliant")

    with engine.connect() as conn:
        stored = dict(conn.execute(text("SELECT round_id, elections_source FROM rounds")).all())
    assert stored == {
        "L-1": "defaults",
        "L-2": "registered",
        "L-3": "registered",
        "L-4": "registered",
        "L-5": "registered",
    }
    looked_up = client.get("/v1/rounds/L-3").json()["audit"]
    assert (looked_up["elections_source"], rules_fired(looked_up)) == ("registered", [S17])


def test_a_round_with_its_own_rules_ignores_registrations(client: TestClient) -> None:
    register(client, "2026-11-01T00:00:00Z", STAND)
    own = submit(client, soft_17_round("R-1", "2026-12-01T12:00:00Z", rules=HIT))
    assert (own["elections_source"], own["verdict"]) == ("record", "compliant")
    register(client, "2026-11-15T00:00:00Z", HIT)
    own = submit(client, soft_17_round("R-2", "2026-12-01T12:00:00Z", rules=STAND))
    assert (own["elections_source"], rules_fired(own)) == ("record", [S17])


def test_the_dry_run_uses_registrations_too(client: TestClient, engine: Engine) -> None:
    body = soft_17_round("D-1", "2026-12-01T12:00:00Z")
    assert submit(client, body, "/v1/audit")["elections_source"] == "defaults"
    register(client, "2026-12-01T00:00:00Z", STAND)
    dry = submit(client, body, "/v1/audit")
    assert (dry["elections_source"], rules_fired(dry)) == ("registered", [S17])
    # another source's dry run sees its own registrations, not these
    other = submit(client, body, "/v1/audit", source="casino-b")
    assert other["elections_source"] == "defaults"
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM rounds")).scalar_one() == 0


def test_registrations_are_per_source_jurisdiction_and_table(client: TestClient) -> None:
    register(client, "2026-11-01T00:00:00Z", STAND, source="casino-a")
    register(client, "2026-11-01T00:00:00Z", HIT, source="casino-b")
    register(client, "2026-11-01T00:00:00Z", STAND, jurisdiction="NZ")  # default source, other jurisdiction
    register(client, "2026-11-01T00:00:00Z", STAND, table="BJ99")  # default source, other table

    a = submit(client, soft_17_round("P-1", "2026-12-01T12:00:00Z"), source="casino-a")
    assert (a["elections_source"], rules_fired(a)) == ("registered", [S17])
    b = submit(client, soft_17_round("P-1", "2026-12-01T12:00:00Z"), source="casino-b")
    assert (b["elections_source"], b["verdict"]) == ("registered", "compliant")
    c = submit(client, soft_17_round("P-1", "2026-12-01T12:00:00Z"))
    assert (c["elections_source"], c["verdict"]) == ("defaults", "compliant")


def test_a_chunk_lookup_reads_each_table_once(client: TestClient, engine: Engine) -> None:
    register(client, "2026-11-01T00:00:00Z", STAND)
    register(client, "2026-12-01T00:00:00Z", HIT)
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        with Session(engine) as session:
            lookup = round_cases.cached_registered_elections(session, "default")
            got = [
                lookup(parse_round(soft_17_round(f"C-{i}", played_at, table=table)))
                for i, (played_at, table) in enumerate(
                    [
                        ("2026-10-01T00:00:00Z", TABLE),
                        ("2026-11-01T00:00:00Z", TABLE),
                        ("2026-11-30T23:59:59.999999Z", TABLE),
                        ("2026-12-01T00:00:00Z", TABLE),
                        ("2027-01-01T00:00:00Z", TABLE),
                        ("2026-12-01T00:00:00Z", "BJ22"),
                        ("2026-12-02T00:00:00Z", "BJ22"),
                    ]
                )
            ]
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert [g[1] if g is not None else None for g in got] == [None, STAND, STAND, HIT, HIT, None, None]
    assert len([s for s in statements if "table_elections" in s]) == 2  # one per table


# --- an append-only, attributed history -------------------------------------------------------------------------


def test_a_correction_supersedes_and_both_stay_in_the_history(client: TestClient, engine: Engine) -> None:
    wrong = register(client, "2026-12-01T00:00:00Z", HIT, reason="opened with the wrong rule card").json()
    assert (
        submit(client, soft_17_round("H-1", "2026-12-02T12:00:00Z"))["elections_registration"] == wrong["id"]
    )
    fixed = register(
        client, "2026-12-01T00:00:00Z", STAND, reason="the table stands on soft 17", supersedes=wrong["id"]
    )
    assert fixed.status_code == 201, fixed.text
    fixed_body = fixed.json()
    assert (fixed_body["supersedes"], fixed_body["reason"]) == (wrong["id"], "the table stands on soft 17")
    # the next round is audited by the correction, and names it; the round audited before keeps its audit
    after = submit(client, soft_17_round("H-2", "2026-12-02T12:00:00Z"))
    assert (after["elections_registration"], rules_fired(after)) == (fixed_body["id"], [S17])
    assert client.get("/v1/rounds/H-1").json()["audit"]["elections_registration"] == wrong["id"]
    history = client.get(f"/v1/tables/{TABLE}/elections").json()["items"]
    assert [(i["id"], i["supersedes"], i["superseded_by"]) for i in history] == [
        (fixed_body["id"], wrong["id"], None),
        (wrong["id"], None, fixed_body["id"]),
    ]
    assert [i["rules"] for i in history] == [STAND, HIT]
    with engine.connect() as conn:
        stored = dict(conn.execute(text("SELECT round_id, elections_id FROM rounds")).all())
    assert stored == {"H-1": wrong["id"], "H-2": fixed_body["id"]}


def test_a_correction_must_name_the_registration_in_force(client: TestClient, engine: Engine) -> None:
    first = register(client, "2026-12-01T00:00:00Z", HIT).json()
    fixed = register(client, "2026-12-01T00:00:00Z", STAND, supersedes=first["id"]).json()
    # superseding the one already superseded (a stale view of the history) changes nothing
    stale = register(client, "2026-12-01T00:00:00Z", {"decks": 8}, supersedes=first["id"])
    body = assert_problem(stale, 409)
    assert body["registration"] == fixed["id"] and f"registration {fixed['id']} is" in body["detail"]
    # nor can a correction name a registration of another time
    other = register(client, "2026-12-05T00:00:00Z", HIT, supersedes=fixed["id"])
    assert assert_problem(other, 409)["registration"] is None
    assert stored_count(engine) == 2
    # the same elections as the one in force, without supersedes: nothing changes
    again = register(client, "2026-12-01T00:00:00Z", STAND)
    assert again.status_code == 200 and again.json()["id"] == fixed["id"]


def test_a_reason_is_required(client: TestClient, engine: Engine) -> None:
    resp = register(client, "2026-12-01T00:00:00Z", HIT, reason="   ")
    errors = assert_problem(resp, 422)["errors"]
    assert [e["pointer"] for e in errors] == ["/reason"]
    assert stored_count(engine) == 0


def test_another_source_cannot_change_how_a_casinos_rounds_are_audited(client: TestClient) -> None:
    """The attack of issue 8: registering 'dealer hits soft 17' for casino-a's table as casino-a, from outside."""
    register(client, "2026-12-01T00:00:00Z", STAND, source="casino-a")
    attacker = as_source(client, "casino-b")
    body = {"jurisdiction": "US-NJ", "effective_from": "2026-12-02T00:00:00Z", "rules": HIT, "reason": "x"}
    for path in (f"/v1/tables/{TABLE}/elections?source=casino-a", f"/v1/tables/{TABLE}/elections"):
        resp = client.put(path, content=json.dumps(body), headers={**JSON, **attacker})
        if "source=" in path:
            assert_problem(resp, 403)
        else:
            assert resp.status_code == 201  # its own table of its own source: harmless to casino-a
    audit = submit(client, soft_17_round("A-1", "2026-12-03T12:00:00Z"), source="casino-a")
    assert rules_fired(audit) == [S17]
    # a key without the admin scope cannot register at all
    reader = as_source(client, "casino-a", scopes=("read", "submit"))
    resp = client.put(f"/v1/tables/{TABLE}/elections", content=json.dumps(body), headers={**JSON, **reader})
    assert "'admin'" in assert_problem(resp, 403)["detail"]
